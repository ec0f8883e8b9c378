import Foundation
import MatterClusters
import MatterCommissioning
import MatterInteractionMessaging
import MatterMessaging
import MatterCrypto
import MatterInteraction
import MatterNetworkCredentials
import MatterTLV
import MatterVirtualDevice
import Testing
import TestSupport

/// Steps 16-17 (Matter Core 5.5, 11.9) against the virtual device's simulated Wi-Fi and Thread
/// interfaces, in process: the device joins the network only through the flow, each fault ends
/// in its step with the NetworkCommissioningStatus named, the fail-safe is disarmed after every
/// failure and the device forgets the network again; no secret reaches an error.
@Suite struct NetworkCommissioningTests {
    typealias NC = Clusters.NetworkCommissioning
    static let passphrase = "correct horse battery"
    static var wifi: WiFiCredentials { try! WiFiCredentials(ssid: Array("HomeNet".utf8), passphrase: SecretBytes(Array(passphrase.utf8))) }
    /// OpenThread's `dataset set active` example (testvectors/thread_dataset.json).
    static let datasetHex = TestVectors.vectors("thread_dataset.json").first { $0.id == "ot-cli-set-active-5938" }!.string("tlvs")!
    static var dataset: ThreadDataset { try! ThreadDataset(tlvs: Hex.decode(datasetHex)!) }

    static func harness(_ network: VirtualDeviceConfiguration.Network, faults: Set<VirtualDeviceFault> = [], scan: Bool = false,
                        credentials: Bool = true) async throws -> CommissioningHarness {
        try await CommissioningHarness.make(faults: faults, network: network) { o in
            o.scanNetworks = scan
            if credentials {
                o.wifiCredentials = wifi
                o.threadDataset = dataset
            }
        }
    }

    static let ethernetSteps: [CommissioningStep] = [.discovery, .pase, .readCommissioningInfo, .armFailSafe, .regulatoryConfig,
                                                     .deviceAttestation, .csr, .addTrustedRoot, .addNOC, .case, .commissioningComplete]

    @Test(arguments: [VirtualDeviceConfiguration.Network.wifi, .thread], [false, true])
    func joinsTheNetworkInTheSpecsOrder(_ network: VirtualDeviceConfiguration.Network, _ scan: Bool) async throws {
        let h = try await Self.harness(network, scan: scan)
        defer { Task { await h.shutdown() } }
        #expect(await !h.device.isOnOperationalNetwork)
        let result = try await h.commissioner.commission(h.payload, nodeID: 0x50)
        var expected = Self.ethernetSteps
        expected.insert(contentsOf: (scan ? [.scanNetworks] : []) + [.addNetwork, .connectNetwork], at: expected.firstIndex(of: .case)!)
        #expect(result.timings.map(\.step) == expected)
        #expect(zip(expected, expected.dropFirst()).allSatisfy { $0.specNumber <= $1.specNumber })
        let online = await h.device.isOnOperationalNetwork, commissioned = await h.device.isCommissioned
        let armed = await h.device.isFailSafeArmed
        #expect(online && commissioned && !armed)
        let id = network == .wifi ? Array("HomeNet".utf8) : Self.dataset.extendedPANID!
        #expect(await h.device.networks == [NC.NetworkInfo(networkID: id, connected: true)])
        // A Thread scan that does not hear the network only warns (the simulated mesh is not in its beacons).
        #expect(result.warnings.contains { $0.contains("did not hear") } == (scan && network == .thread))
    }

    /// The device's NetworkCommissioning attributes after the flow, over the new CASE session.
    @Test func reportsTheClusterAttributes() async throws {
        let h = try await Self.harness(.wifi)
        defer { Task { await h.shutdown() } }
        let result = try await h.commissioner.commission(h.payload, nodeID: 0x51)
        let client = InteractionClient.over(h.manager, session: result.caseSession, timeout: .seconds(10))
        func read(_ a: AttributeID) async throws -> TLVElement { try await client.readAttribute(ConcreteAttributePath(0, NC.id, a)) }
        #expect(try await read(.featureMap).unsigned(as: UInt32.self) == NC.Feature.wiFiNetworkInterface.rawValue)
        #expect(try await read(NC.Attribute.maxNetworks).unsigned(as: UInt8.self) == 1)
        #expect(try await read(NC.Attribute.scanMaxTimeSeconds).unsigned(as: UInt8.self) > 0)
        #expect(try await read(NC.Attribute.connectMaxTimeSeconds).unsigned(as: UInt8.self) > 0)
        #expect(try await read(NC.Attribute.interfaceEnabled).bool())
        #expect(try await read(NC.Attribute.lastNetworkingStatus).unsigned(as: UInt8.self) == NC.Status.success.rawValue)
        #expect(try await read(NC.Attribute.lastNetworkID).bytes() == Array("HomeNet".utf8))
        #expect(try await read(NC.Attribute.lastConnectErrorValue).isNull)
        let networks = try await read(NC.Attribute.networks).members(of: .array).map { try NC.NetworkInfo(element: $0) }
        #expect(networks == [NC.NetworkInfo(networkID: Array("HomeNet".utf8), connected: true)])
    }

    struct FaultCase: Sendable, CustomTestStringConvertible {
        var network: VirtualDeviceConfiguration.Network
        var fault: VirtualDeviceFault
        var scan: Bool
        var step: CommissioningStep
        var code: CommissioningError.Code
        var status: Clusters.NetworkCommissioning.Status
        var testDescription: String { "\(network.rawValue) \(fault.rawValue)\(scan ? " with scan" : "")" }
    }

    @Test(arguments: [
        FaultCase(network: .wifi, fault: .wrongNetworkCredentials, scan: false, step: .connectNetwork, code: .wrongNetworkCredentials,
                  status: .authFailure),
        FaultCase(network: .wifi, fault: .networkNotFound, scan: false, step: .connectNetwork, code: .networkNotFound,
                  status: .networkNotFound),
        FaultCase(network: .wifi, fault: .networkNotFound, scan: true, step: .scanNetworks, code: .networkNotFound,
                  status: .networkNotFound),
        FaultCase(network: .thread, fault: .wrongNetworkCredentials, scan: false, step: .connectNetwork, code: .wrongNetworkCredentials,
                  status: .authFailure),
        FaultCase(network: .thread, fault: .networkNotFound, scan: true, step: .connectNetwork, code: .networkNotFound,
                  status: .networkNotFound),
    ])
    func faultEndsNamedWithTheFailSafeDisarmed(_ c: FaultCase) async throws {
        let h = try await Self.harness(c.network, faults: [c.fault], scan: c.scan)
        defer { Task { await h.shutdown() } }
        do {
            _ = try await h.commissioner.commission(h.payload, nodeID: 0x52)
            Issue.record("\(c.testDescription): commissioning succeeded")
        } catch {
            #expect(error.step == c.step && error.code == c.code && error.networkStatus == c.status, "\(error)")
            #expect(error.description.contains(c.status.name), "\(error)")
            #expect(!error.hint.isEmpty && error.description.contains(error.hint))
            Self.expectNoSecret(in: error.description)
        }
        #expect(await !h.device.isFailSafeArmed, "the fail-safe is still armed")
        #expect(await !h.device.isCommissioned)
        #expect(await h.device.networks.isEmpty, "the device kept the network it was given")
        #expect(await !h.device.isOnOperationalNetwork)
    }

    /// A Wi-Fi device off the network with no credentials fails before anything is installed.
    @Test(arguments: [VirtualDeviceConfiguration.Network.wifi, .thread])
    func missingCredentialsAreNamed(_ network: VirtualDeviceConfiguration.Network) async throws {
        let h = try await Self.harness(network, credentials: false)
        defer { Task { await h.shutdown() } }
        do {
            _ = try await h.commissioner.commission(h.payload, nodeID: 0x53)
            Issue.record("commissioning went on without network credentials")
        } catch {
            #expect(error.step == .addNetwork && error.code == .networkCredentialsMissing, "\(error)")
            #expect(error.hint.contains(network == .wifi ? "wifi set" : "thread datasets add"), "\(error)")
        }
        let armed = await h.device.isFailSafeArmed, commissioned = await h.device.isCommissioned
        #expect(!armed && !commissioned)
    }

    /// The committed network survives a restart: the device comes back on the operational network.
    @Test func theCommittedNetworkSurvivesARestart() async throws {
        let dir = NSTemporaryDirectory() + "netcomm-device-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let h = try await CommissioningHarness.make(network: .thread, stateDirectory: dir) { $0.threadDataset = Self.dataset }
        _ = try await h.commissioner.commission(h.payload, nodeID: 0x55)
        await h.shutdown()
        let again = try await VirtualDevice(configuration: VirtualDeviceConfiguration(stateDirectory: dir, advertises: false, network: .thread),
                                            transport: MemoryNetwork().makeEndpoint())
        let online = await again.isOnOperationalNetwork, commissioned = await again.isCommissioned
        #expect(online && commissioned)
        #expect(await again.networks == [NC.NetworkInfo(networkID: Self.dataset.extendedPANID!, connected: true)])
        await again.shutdown()
    }

    /// An Ethernet device skips steps 16-17 even when credentials are given.
    @Test func ethernetSkipsTheNetworkSteps() async throws {
        let h = try await CommissioningHarness.make { o in
            o.wifiCredentials = Self.wifi
            o.scanNetworks = true
        }
        defer { Task { await h.shutdown() } }
        let result = try await h.commissioner.commission(h.payload, nodeID: 0x54)
        #expect(result.timings.map(\.step) == Self.ethernetSteps)
    }

    static func expectNoSecret(in text: String) {
        #expect(!text.contains(passphrase))
        let key = Base16.encode(dataset.networkKey!.bytes)
        #expect(!text.lowercased().contains(key))
        #expect(!text.lowercased().contains(datasetHex.lowercased()))
    }
}
