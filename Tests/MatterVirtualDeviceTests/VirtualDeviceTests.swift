import MatterCertificates
import MatterClusters
import MatterCrypto
import MatterInteraction
import MatterInteractionMessaging
import MatterMessaging
import MatterSecureChannel
import MatterTLV
@testable import MatterVirtualDevice
import Testing
import TestSupport

/// The virtual device in-process: commissioning over PASE and CASE, the fail-safe, the window's
/// attempt limit and access control, driven by our InteractionClient over real exchanges.
@Suite struct VirtualDeviceTests {
    static let deviceNode: UInt64 = 0x0000_0000_0000_D001
    static let admin: UInt64 = 0x0000_0000_0000_A001

    @Test func addNOCCreatesTheFabricAndCommissioningCompleteCommitsIt() async throws {
        let h = try await DeviceHarness.make()
        defer { Task { await h.shutdown() } }
        let pase = h.client(try await h.pase())
        let fabric = try TestFabric()
        let response = try await h.addNOC(over: pase, fabric: fabric, deviceNode: Self.deviceNode, admin: Self.admin)
        #expect(response.statusCode == .ok)
        #expect(response.fabricIndex == 1)
        #expect(await h.device.fabricIndexes == [1])
        #expect(await !h.device.isCommissioned)  // staged until CommissioningComplete
        // CommissioningComplete over PASE is refused.
        let overPASE = try await pase.invoke(GC.CommissioningComplete(), endpoint: 0)
        #expect(overPASE.errorCode == .invalidAuthentication)
        // Over CASE from the administrator it commits, disarms and closes the window.
        let caseClient = h.client(try await h.caseSession(try fabric.node(Self.admin), deviceNode: Self.deviceNode))
        let done = try await caseClient.invoke(GC.CommissioningComplete(), endpoint: 0)
        #expect(done.errorCode == .ok)
        #expect(await h.device.isCommissioned)
        #expect(await !h.device.isFailSafeArmed)
        #expect(await !h.device.isCommissioningWindowOpen)
        let fabrics = try await caseClient.readAttribute(ConcreteAttributePath(0, .operationalCredentials, 3))
        #expect(try fabrics.unsigned(as: UInt8.self) == 1)
        // The fabric's ACL holds the Administer entry for CaseAdminSubject.
        let acl = try await caseClient.readAttribute(ConcreteAttributePath(0, .accessControl, 0))
        let entries = try acl.members.map { try Clusters.AccessControl.Entry(element: $0) }
        #expect(entries.count == 1)
        #expect(entries.first?.privilege == .administer && entries.first?.subjects == [Self.admin])
        // With no fail-safe armed, CommissioningComplete answers NoFailSafe.
        #expect(try await caseClient.invoke(GC.CommissioningComplete(), endpoint: 0).errorCode == .noFailSafe)
    }

    @Test func failSafeExpiryRollsBackTheFabric() async throws {
        let clock = ManualClock()
        let h = try await DeviceHarness.make(clock: clock)
        defer { Task { await h.shutdown() } }
        let pase = h.client(try await h.pase())
        let fabric = try TestFabric()
        let response = try await h.addNOC(over: pase, fabric: fabric, deviceNode: Self.deviceNode, admin: Self.admin, failSafe: 3)
        #expect(response.statusCode == .ok && response.fabricIndex == 1)  // the fabric was staged
        clock.advance(by: .milliseconds(2_999))
        #expect(await h.device.fabricIndexes == [1], "the fabric went before the fail-safe expired")
        clock.advance(by: .milliseconds(1))  // the fail-safe expires now
        #expect(await eventually(10) { await h.device.fabricIndexes.isEmpty }, "the staged fabric outlived the fail-safe")
        #expect(await !h.device.isFailSafeArmed)
        #expect(await h.device.core.state.acl.isEmpty)
        // The PASE session ended with the fail-safe (the controller's side finds out by timing out).
        await fastForward(clock) {
            await #expect(throws: (any Error).self) {
                _ = try await pase.readAttribute(ConcreteAttributePath(0, .operationalCredentials, 4))
            }
        }
        // CASE on the rolled-back fabric no longer works.
        await #expect(throws: SecureChannelError.self) {
            _ = try await h.caseSession(try fabric.node(Self.admin), deviceNode: Self.deviceNode)
        }
    }

    @Test func armFailSafeZeroRollsBackTheFabric() async throws {
        let h = try await DeviceHarness.make()
        defer { Task { await h.shutdown() } }
        let pase = h.client(try await h.pase())
        let fabric = try TestFabric()
        #expect(try await h.addNOC(over: pase, fabric: fabric, deviceNode: Self.deviceNode, admin: Self.admin).statusCode == .ok)
        let disarmed = try await pase.invoke(GC.ArmFailSafe(expiryLengthSeconds: 0, breadcrumb: 0), endpoint: 0)
        #expect(disarmed.errorCode == .ok)
        #expect(await h.device.fabricIndexes.isEmpty)
        let acl = try await pase.readAttribute(ConcreteAttributePath(0, .accessControl, 0))
        #expect(acl.members.isEmpty)
        // AddNOC without an armed fail-safe is refused with FailsafeRequired.
        do {
            _ = try await pase.invoke(OC.CSRRequest(csrNonce: SecureRandom.bytes(32)), endpoint: 0)
            Issue.record("CSRRequest succeeded without a fail-safe")
        } catch {
            let e = error
            #expect(e.imStatus == .failsafeRequired)
        }
    }

    @Test func windowClosesAfterTwentyFailedPASEAttempts() async throws {
        let h = try await DeviceHarness.make()
        defer { Task { await h.shutdown() } }
        for attempt in 1...20 {
            await #expect(throws: SecureChannelError.self, "attempt \(attempt)") { _ = try await h.pase(passcode: 12_121_212) }
        }
        #expect(await eventually(10) { await !h.device.isCommissioningWindowOpen })
        // Even the right passcode is refused now.
        await #expect(throws: SecureChannelError.self) { _ = try await h.pase() }
    }

    @Test func nineteenFailedAttemptsKeepTheWindowOpen() async throws {
        let h = try await DeviceHarness.make()
        defer { Task { await h.shutdown() } }
        for _ in 1...19 { _ = try? await h.pase(passcode: 12_121_212) }
        #expect(await h.device.isCommissioningWindowOpen)
        _ = try await h.pase()
    }

    @Test func aclIsEnforcedOnEveryCASERequest() async throws {
        let h = try await DeviceHarness.make()
        defer { Task { await h.shutdown() } }
        let pase = h.client(try await h.pase())
        let fabric = try TestFabric()
        try await h.addNOC(over: pase, fabric: fabric, deviceNode: Self.deviceNode, admin: Self.admin)
        let adminClient = h.client(try await h.caseSession(try fabric.node(Self.admin), deviceNode: Self.deviceNode))
        #expect(try await adminClient.invoke(GC.CommissioningComplete(), endpoint: 0).errorCode == .ok)

        // Another node of the same fabric has no ACL entry: every request is UnsupportedAccess.
        let stranger: UInt64 = 0xB002
        let other = h.client(try await h.caseSession(try fabric.node(stranger), deviceNode: Self.deviceNode))
        let vendorName = ConcreteAttributePath(0, .basicInformation, 1)
        await #expect { _ = try await other.readAttribute(vendorName) } throws: {
            ($0 as? InteractionError)?.imStatus == .unsupportedAccess
        }
        let toggle = CommandPathIB(endpoint: 1, cluster: .onOff, command: Clusters.OnOff.Command.toggle)
        guard case .status(let denied) = try await other.invoke(commandPath: toggle) else {
            Issue.record("toggle without privilege got a response command")
            return
        }
        #expect(denied.status == .unsupportedAccess)
        await #expect { try await other.writeAttribute(ConcreteAttributePath(0, .basicInformation, 5), value: .utf8("x")) } throws: {
            ($0 as? InteractionError)?.imStatus == .unsupportedAccess
        }

        // The administrator grants View to the stranger: reads work, invokes still do not.
        let adminEntry = Clusters.AccessControl.Entry(privilege: .administer, authMode: .case, subjects: [Self.admin], targets: nil)
        let viewEntry = Clusters.AccessControl.Entry(privilege: .view, authMode: .case, subjects: [stranger], targets: nil)
        try await adminClient.writeAttribute(ConcreteAttributePath(0, .accessControl, 0),
                                             value: .array([adminEntry.element(tag: .anonymous), viewEntry.element(tag: .anonymous)]))
        #expect(try await other.readAttribute(vendorName).utf8() == "MatterHub")
        guard case .status(let stillDenied) = try await other.invoke(commandPath: toggle) else {
            Issue.record("toggle with View got a response command")
            return
        }
        #expect(stillDenied.status == .unsupportedAccess)
        // The administrator may toggle.
        guard case .status(let ok) = try await adminClient.invoke(commandPath: toggle) else { return }
        #expect(ok.status == .success)
        #expect(try await adminClient.readAttribute(ConcreteAttributePath(1, .onOff, 0)).bool() == true)
    }

    @Test func attestationResponseVerifiesWithTheDACOverTheSessionChallenge() async throws {
        let h = try await DeviceHarness.make()
        defer { Task { await h.shutdown() } }
        let session = try await h.pase()
        let pase = h.client(session)
        let nonce = SecureRandom.bytes(32)
        let response = try await pase.invoke(OC.AttestationRequest(attestationNonce: nonce), endpoint: 0)
        let dac = try await pase.invoke(OC.CertificateChainRequest(certificateType: .dac), endpoint: 0)
        let dacKey = try P256PublicKey(x962Representation: try X509Certificate(derEncoded: dac.certificate).subjectPublicKeyInfo.publicKey)
        let challenge = try #require(await h.controller.secureSession(session)).attestationChallenge.bytes
        let signature = try P256Signature(rawRepresentation: response.attestationSignature)
        #expect(dacKey.isValidSignature(signature, for: response.attestationElements + challenge))
        let elements = try AttestationElements(tlv: response.attestationElements)
        #expect(elements.attestationNonce == nonce)
        let cd = try CertificationDeclaration(cms: elements.certificationDeclaration).elements()
        #expect(cd.vendorID == 0xFFF1 && cd.productIDs == [0x8000])
    }

    @Test func invalidAttestationFaultSignsTheWrongBytes() async throws {
        let h = try await DeviceHarness.make(faults: [.invalidAttestation])
        defer { Task { await h.shutdown() } }
        let session = try await h.pase()
        let pase = h.client(session)
        let response = try await pase.invoke(OC.AttestationRequest(attestationNonce: SecureRandom.bytes(32)), endpoint: 0)
        let dac = try await pase.invoke(OC.CertificateChainRequest(certificateType: .dac), endpoint: 0)
        let dacKey = try P256PublicKey(x962Representation: try X509Certificate(derEncoded: dac.certificate).subjectPublicKeyInfo.publicKey)
        let challenge = try #require(await h.controller.secureSession(session)).attestationChallenge.bytes
        let signature = try P256Signature(rawRepresentation: response.attestationSignature)
        #expect(!dacKey.isValidSignature(signature, for: response.attestationElements + challenge))
    }
}

/// The response faults.
@Suite struct VirtualDeviceFaultTests {
    @Test func slowResponsesDelayEveryIMReply() async throws {
        let h = try await DeviceHarness.make(faults: [.slowResponses])
        defer { Task { await h.shutdown() } }
        let client = h.client(try await h.pase())
        let start = ContinuousClock.now
        #expect(try await client.readAttribute(ConcreteAttributePath(0, .basicInformation, 1)).utf8() == "MatterHub")
        #expect(ContinuousClock.now - start >= .milliseconds(1900))
    }

    @Test func cdVendorMismatchNamesAnotherVendor() async throws {
        let h = try await DeviceHarness.make(faults: [.cdVendorMismatch])
        defer { Task { await h.shutdown() } }
        let client = h.client(try await h.pase())
        let response = try await client.invoke(OC.AttestationRequest(attestationNonce: SecureRandom.bytes(32)), endpoint: 0)
        let elements = try AttestationElements(tlv: response.attestationElements)
        let cd = try CertificationDeclaration(cms: elements.certificationDeclaration).elements()
        #expect(cd.vendorID != 0xFFF1)
    }
}
