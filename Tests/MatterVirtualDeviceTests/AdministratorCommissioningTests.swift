import MatterCrypto
import MatterInteraction
import MatterMessaging
import MatterSecureChannel
@testable import MatterVirtualDevice
import Testing

/// Windows an administrator opens and revokes, and the rules that keep two administrators apart.
@Suite struct AdministratorCommissioningTests {
    static let deviceNode: UInt64 = 0xD001
    static let admin: UInt64 = 0xA001

    /// A commissioned device and its administrator's CASE client.
    static func commissioned() async throws -> (DeviceHarness, InteractionClient, TestFabric) {
        let h = try await DeviceHarness.make()
        let pase = h.client(try await h.pase())
        let fabric = try TestFabric()
        try await h.addNOC(over: pase, fabric: fabric, deviceNode: deviceNode, admin: admin)
        let client = h.client(try await h.caseSession(try fabric.node(admin), deviceNode: deviceNode))
        #expect(try await client.invoke(GC.CommissioningComplete(), endpoint: 0).errorCode == .ok)
        return (h, client, fabric)
    }

    @Test func enhancedWindowAcceptsTheNewPasscodeOnly() async throws {
        let (h, admin, _) = try await Self.commissioned()
        defer { Task { await h.shutdown() } }
        #expect(await !h.device.isCommissioningWindowOpen)
        await #expect(throws: SecureChannelError.self) { _ = try await h.pase() }  // no window
        let salt = SecureRandom.bytes(32)
        let verifier = try PASEVerifier(passcode: 35_792_468, salt: salt, iterations: 1000)
        _ = try await admin.invoke(AC.OpenCommissioningWindow(commissioningTimeout: 180, pakePasscodeVerifier: verifier.serialized.bytes,
                                                              discriminator: 1234, iterations: 1000, salt: salt), endpoint: 0)
        #expect(await h.device.isCommissioningWindowOpen)
        let status = try await admin.readAttribute(ConcreteAttributePath(0, .administratorCommissioning, 0))
        #expect(try status.unsigned(as: UInt8.self) == AC.CommissioningWindowStatusEnum.enhancedWindowOpen.rawValue)
        #expect(try await admin.readAttribute(ConcreteAttributePath(0, .administratorCommissioning, 1)).unsigned(as: UInt8.self) == 1)
        // A second window while one is open: Busy (cluster status 2).
        do {
            _ = try await admin.invoke(AC.OpenBasicCommissioningWindow(commissioningTimeout: 180), endpoint: 0)
            Issue.record("a second window opened")
        } catch {
            let e = error
            guard case .status(_, let clusterStatus, _) = e else { throw e }
            #expect(clusterStatus == AC.StatusCode.busy.rawValue)
        }
        await #expect(throws: SecureChannelError.self) { _ = try await h.pase() }  // the setup code is not it
        _ = try await h.pase(passcode: 35_792_468)
        // Revoke closes the window (and disarms the fail-safe the PASE session armed).
        _ = try await admin.invoke(AC.RevokeCommissioning(), endpoint: 0)
        #expect(await !h.device.isCommissioningWindowOpen)
        #expect(await !h.device.isFailSafeArmed)
        do {
            _ = try await admin.invoke(AC.RevokeCommissioning(), endpoint: 0)
            Issue.record("RevokeCommissioning without a window succeeded")
        } catch {
            let e = error
            guard case .status(_, let clusterStatus, _) = e else { throw e }
            #expect(clusterStatus == AC.StatusCode.windowNotOpen.rawValue)
        }
    }

    @Test func badPAKEParametersAreRefused() async throws {
        let (h, admin, _) = try await Self.commissioned()
        defer { Task { await h.shutdown() } }
        do {
            _ = try await admin.invoke(AC.OpenCommissioningWindow(commissioningTimeout: 180, pakePasscodeVerifier: [1, 2, 3],
                                                                  discriminator: 1234, iterations: 1000, salt: SecureRandom.bytes(32)),
                                       endpoint: 0)
            Issue.record("a 3-byte verifier was accepted")
        } catch {
            let e = error
            guard case .status(_, let clusterStatus, _) = e else { throw e }
            #expect(clusterStatus == AC.StatusCode.pakeParameterError.rawValue)
        }
        #expect(await !h.device.isCommissioningWindowOpen)
    }

    @Test func armFailSafeFromAnotherAdministratorIsBusy() async throws {
        let (h, admin, _) = try await Self.commissioned()
        defer { Task { await h.shutdown() } }
        _ = try await admin.invoke(AC.OpenBasicCommissioningWindow(commissioningTimeout: 180), endpoint: 0)
        // Over CASE while a window is open and nothing is armed: BusyWithOtherAdmin.
        let busy = try await admin.invoke(GC.ArmFailSafe(expiryLengthSeconds: 60, breadcrumb: 0), endpoint: 0)
        #expect(busy.errorCode == .busyWithOtherAdmin)
        // A new commissioner's PASE arms it; the first administrator still may not touch it.
        let pase = h.client(try await h.pase())
        #expect(try await pase.invoke(GC.ArmFailSafe(expiryLengthSeconds: 60, breadcrumb: 1), endpoint: 0).errorCode == .ok)
        let stillBusy = try await admin.invoke(GC.ArmFailSafe(expiryLengthSeconds: 0, breadcrumb: 0), endpoint: 0)
        #expect(stillBusy.errorCode == .busyWithOtherAdmin)
        #expect(await h.device.isFailSafeArmed)
    }

    @Test func fabricLabelAndRemoveFabric() async throws {
        let (h, admin, fabric) = try await Self.commissioned()
        defer { Task { await h.shutdown() } }
        let labeled = try await admin.invoke(OC.UpdateFabricLabel(label: "Home"), endpoint: 0)
        #expect(labeled.statusCode == .ok && labeled.fabricIndex == 1)
        let tooLong = try? await admin.invoke(OC.UpdateFabricLabel(label: String(repeating: "x", count: 33)), endpoint: 0)
        #expect(tooLong == nil)
        #expect(try await admin.invoke(OC.RemoveFabric(fabricIndex: 9), endpoint: 0).statusCode == .invalidFabricIndex)
        #expect(try await admin.invoke(OC.RemoveFabric(fabricIndex: 1), endpoint: 0).statusCode == .ok)
        #expect(await h.device.fabricIndexes.isEmpty)
        // With no fabric left the device is commissionable again, and CASE on the old fabric fails.
        #expect(await h.device.isCommissioningWindowOpen)
        await #expect(throws: SecureChannelError.self) {
            _ = try await h.caseSession(try fabric.node(Self.admin), deviceNode: Self.deviceNode)
        }
    }
}
