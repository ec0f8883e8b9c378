import MatterClusters
import MatterCrypto
import MatterInteraction
import MatterMessaging
import MatterNetworkCredentials
import MatterSecureChannel
import MatterTLV
@testable import MatterVirtualDevice
import Testing
import TestSupport

/// The virtual device's simulated Wi-Fi and Thread interfaces (its NetworkCommissioning server,
/// Matter Core 11.9) driven command by command over PASE: the fail-safe guards every change and
/// its expiry or ArmFailSafe(0) makes the device forget the network (11.9.7.5, 11.10.7.2.2);
/// CASE answers only once the device is on the operational network; invalid requests get the
/// statuses the spec names.
@Suite struct SimulatedNetworkTests {
    typealias NC = Clusters.NetworkCommissioning
    static let ssid = Array("HomeNet".utf8)
    static let passphrase = Array("correct horse battery".utf8)
    static let dataset = Hex.decode(TestVectors.vectors("thread_dataset.json").first { $0.id == "ot-cli-set-active-5938" }!
        .string("tlvs")!)!

    /// AddOrUpdateThreadNetwork must fail with `status`.
    static func expectRefusal(_ status: IMStatus, _ what: String, _ pase: InteractionClient) async throws {
        do {
            _ = try await pase.invoke(NC.AddOrUpdateThreadNetwork(operationalDataset: dataset), endpoint: 0)
            Issue.record("\(what) was accepted")
        } catch {
            let e = error
            #expect(e.imStatus == status, "\(what)")
        }
    }

    @Test func failSafeExpiryForgetsTheNetwork() async throws {
        let h = try await DeviceHarness.make(network: .wifi)
        defer { Task { await h.shutdown() } }
        let pase = h.client(try await h.pase())
        // 8 s, not less: at the start of a full run the whole suite starves the pool for seconds,
        // and a fail-safe that expired before ConnectNetwork took the PASE session with it (seen
        // as "the peer did not acknowledge a message sent 5 times").
        #expect(try await pase.invoke(GC.ArmFailSafe(expiryLengthSeconds: 8, breadcrumb: 1), endpoint: 0).errorCode == .ok)
        let added = try await pase.invoke(NC.AddOrUpdateWiFiNetwork(ssid: Self.ssid, credentials: Self.passphrase, breadcrumb: 16),
                                          endpoint: 0)
        #expect(added.networkingStatus == .success && added.networkIndex == 0)
        let connected = try await pase.invoke(NC.ConnectNetwork(networkID: Self.ssid, breadcrumb: 17), endpoint: 0)
        #expect(connected.networkingStatus == .success && connected.errorValue == nil)
        #expect(await h.device.isOnOperationalNetwork)
        #expect(await h.device.networks == [NC.NetworkInfo(networkID: Self.ssid, connected: true)])
        #expect(try await pase.readAttribute(ConcreteAttributePath(0, .generalCommissioning, 0)).unsigned(as: UInt64.self) == 17)
        #expect(await eventually(20) { await h.device.networks.isEmpty }, "the network outlived the fail-safe")
        #expect(await !h.device.isOnOperationalNetwork)
    }

    @Test func armFailSafeZeroForgetsTheThreadNetworkAndChangesNeedTheFailSafe() async throws {
        let h = try await DeviceHarness.make(network: .thread)
        defer { Task { await h.shutdown() } }
        let pase = h.client(try await h.pase())  // PASE arms the fail-safe for 60 s
        let added = try await pase.invoke(NC.AddOrUpdateThreadNetwork(operationalDataset: Self.dataset, breadcrumb: 16), endpoint: 0)
        #expect(added.networkingStatus == .success)
        let xpan = try ThreadDataset(tlvs: Self.dataset).extendedPANID!
        #expect(try await pase.invoke(NC.ConnectNetwork(networkID: xpan), endpoint: 0).networkingStatus == .success)
        #expect(try await pase.invoke(GC.ArmFailSafe(expiryLengthSeconds: 0, breadcrumb: 0), endpoint: 0).errorCode == .ok)
        #expect(await h.device.networks.isEmpty)
        #expect(await !h.device.isOnOperationalNetwork)
        try await Self.expectRefusal(.failsafeRequired, "AddOrUpdateThreadNetwork without a fail-safe", pase)
    }

    /// Before ConnectNetwork the device is reachable only over PASE: Sigma1 gets no answer.
    @Test func caseAnswersOnlyOnTheOperationalNetwork() async throws {
        let h = try await DeviceHarness.make(network: .wifi)
        defer { Task { await h.shutdown() } }
        let pase = h.client(try await h.pase())
        let fabric = try TestFabric()
        #expect(try await h.addNOC(over: pase, fabric: fabric, deviceNode: 0xD001, admin: 0xA001).statusCode == .ok)
        await #expect(throws: SecureChannelError.self) {
            _ = try await CASEInitiator.establish(manager: h.controller, peer: h.address, fabric: try fabric.node(0xA001),
                                                  peerNodeID: 0xD001, timeout: .seconds(1))
        }
        _ = try await pase.invoke(NC.AddOrUpdateWiFiNetwork(ssid: Self.ssid, credentials: Self.passphrase), endpoint: 0)
        #expect(try await pase.invoke(NC.ConnectNetwork(networkID: Self.ssid), endpoint: 0).networkingStatus == .success)
        _ = try await h.caseSession(try fabric.node(0xA001), deviceNode: 0xD001)
    }

    @Test func invalidRequestsGetTheStatusesTheSpecNames() async throws {
        let h = try await DeviceHarness.make(network: .wifi)
        defer { Task { await h.shutdown() } }
        let pase = h.client(try await h.pase())
        func add(_ ssid: [UInt8], _ credentials: [UInt8]) async throws -> NC.Status {
            try await pase.invoke(NC.AddOrUpdateWiFiNetwork(ssid: ssid, credentials: credentials), endpoint: 0).networkingStatus
        }
        #expect(try await add([UInt8](repeating: 0x41, count: 33), Self.passphrase) == .outOfRange)
        #expect(try await add(Self.ssid, Array("short".utf8)) == .outOfRange)
        #expect(try await add(Self.ssid, Self.passphrase) == .success)
        #expect(try await add(Self.ssid, Array("another passphrase".utf8)) == .success)  // an update
        #expect(try await add(Array("Other".utf8), Self.passphrase) == .boundsExceeded)  // MaxNetworks is 1
        #expect(try await pase.invoke(NC.ConnectNetwork(networkID: Array("Other".utf8)), endpoint: 0).networkingStatus
                == .networkIDNotFound)
        // A Wi-Fi interface does not take a Thread dataset: the command is not in its AcceptedCommandList.
        try await Self.expectRefusal(.unsupportedCommand, "a Thread dataset on a Wi-Fi interface", pase)
    }

    @Test func wrongCredentialsFaultSetsTheLastAttributes() async throws {
        let h = try await DeviceHarness.make(faults: [.wrongNetworkCredentials], network: .wifi)
        defer { Task { await h.shutdown() } }
        let pase = h.client(try await h.pase())
        _ = try await pase.invoke(NC.AddOrUpdateWiFiNetwork(ssid: Self.ssid, credentials: Self.passphrase), endpoint: 0)
        let r = try await pase.invoke(NC.ConnectNetwork(networkID: Self.ssid), endpoint: 0)
        #expect(r.networkingStatus == .authFailure && r.errorValue == 15)
        func read(_ a: AttributeID) async throws -> TLVElement { try await pase.readAttribute(ConcreteAttributePath(0, NC.id, a)) }
        #expect(try await read(NC.Attribute.lastNetworkingStatus).unsigned(as: UInt8.self) == NC.Status.authFailure.rawValue)
        #expect(try await read(NC.Attribute.lastNetworkID).bytes() == Self.ssid)
        #expect(try await read(NC.Attribute.lastConnectErrorValue).signed(as: Int32.self) == 15)
        #expect(await !h.device.isOnOperationalNetwork)
    }

    @Test func networkFaultsNeedASimulatedNetwork() async throws {
        await #expect(throws: VirtualDeviceError.self) {
            _ = try await VirtualDevice(configuration: VirtualDeviceConfiguration(faults: [.networkNotFound], advertises: false),
                                        transport: MemoryNetwork().makeEndpoint())
        }
    }
}
