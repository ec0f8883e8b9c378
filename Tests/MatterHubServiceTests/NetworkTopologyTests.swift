import Foundation
import MatterCommissioning
import MatterDiscovery
import MatterHome
import MatterHubService
import MatterNetworkCredentials
import MatterServerAPI
import MatterVirtualDevice
import Testing
import TestSupport
import MatterTLV

/// `get_network_topology` on a real hub (in process, on loopback) with three virtual devices
/// commissioned onto simulated radios: two Thread devices that hear each other unequally plus a
/// neighbour of one's that is not the hub's, and a Wi-Fi device. matter-python-client 1.6.1
/// (what Home Assistant's network map uses) asks for the graph, parses it into its own models and
/// checks it; then a link fades and the graph it is sent follows. A schema 11 connection that
/// never asked gets no `network_topology_updated` (the 8.1.2 client drops a connection on one).
@Suite(.serialized) struct NetworkTopologyTests {
    static let discriminators: [UInt16] = [421, 422, 423]
    static func address(_ discriminator: UInt16) -> UInt64 { RadioDiagnostics.defaults(discriminator: discriminator).threadExtendedAddress }
    static let outsider: UInt64 = 0x1122_3344_5566_7788

    @Test func threadMeshAndWiFiStarReachMatterPythonClient() async throws {
        let root = Lab.repositoryRoot
        guard let python = Lab.matterPythonClient() else { return }
        let (da, db, dc) = (Self.discriminators[0], Self.discriminators[1], Self.discriminators[2])
        var radioA = RadioDiagnostics.defaults(discriminator: da)
        radioA.threadNeighbors = [.init(extendedAddress: Self.address(db), lqi: 3, averageRSSI: -58),
                                  .init(extendedAddress: Self.outsider, lqi: 2, averageRSSI: -80)]
        var radioB = RadioDiagnostics.defaults(discriminator: db)
        radioB.threadRole = .endDevice
        radioB.threadNeighbors = [.init(extendedAddress: Self.address(da), lqi: 1, averageRSSI: -90)]
        var radioC = RadioDiagnostics.defaults(discriminator: dc)
        radioC.wifiRSSI = -75
        var devices: [VirtualDevice] = []
        for (discriminator, network, radio) in [(da, VirtualDeviceConfiguration.Network.thread, radioA), (db, .thread, radioB),
                                                (dc, .wifi, radioC)] {
            var c = VirtualDeviceConfiguration(discriminator: discriminator, port: 0, advertises: false, network: network)
            c.radioDiagnostics = radio
            let device = try await VirtualDevice(configuration: c)
            await device.start()
            devices.append(device)
        }
        var adverts: [ServiceInstance] = []
        for (device, discriminator) in zip(devices, Self.discriminators) {
            adverts.append(FixedServiceBrowser.commissionable(discriminator: discriminator, port: await device.port))
        }
        let state = NSTemporaryDirectory() + "matterhub-topology-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        var configuration = HubServer.Configuration(
            stateDirectory: state, options: CommissioningOptions(trustStore: try HubServerTests.paaStore(), allowTestDevices: true))
        configuration.listen = ["127.0.0.1"]
        configuration.port = 0
        configuration.discovery = MatterDiscovery(browser: FixedServiceBrowser(adverts))
        let server = try await HubServer(configuration, log: { _ in })
        try await server.start(log: { _ in })
        let service = server.service

        let dataset = try #require(TestVectors.vectors("thread_dataset.json").first { $0.id == "ot-cli-set-active-5938" }?.string("tlvs"))
        _ = try await service.handle(.setThreadDataset(dataset: dataset))
        _ = try await service.handle(.setWifiCredentials(ssid: "Home", credentials: "correct horse battery"))
        var nodeIDs: [UInt64] = []
        for device in devices {
            let added = try await service.handle(.commissionWithCode(code: device.qrCode, networkOnly: true))
            nodeIDs.append(try #require(added["node_id"]?.uint64))
        }
        for node in nodeIDs {
            #expect(await service.runtime.waitUntilAvailable(NodeID(node), timeout: .seconds(30)), "node \(node) is not available")
        }
        // The hub's own answer first (the same code the client reaches).
        let topology = try await service.handle(.getNetworkTopology(refresh: true))
        let ids = Set(topology["nodes"]?.array?.compactMap { $0["id"]?.string } ?? [])
        #expect(ids.isSuperset(of: nodeIDs.map(String.init)), "\(topology)")

        // A listening schema 11 connection that never asks for the graph.
        let port = try #require(server.api.webSocket.tcpPort)
        let bystander = try await HubTestConnection(port: port)
        _ = try await bystander.call("start_listening", .null)

        let url = try #require(server.urls.first { $0.hasPrefix("ws://") })
        func hex(_ v: UInt64) -> String { String(format: "%016llX", v) }
        let script = root.appendingPathComponent("scripts/topology-check.py").path
        let child = try ChildProcess([python, script, url] + nodeIDs.map(String.init)
                                     + [hex(Self.address(da)), hex(Self.address(db)), hex(Self.outsider)])
        let asked = await child.waitForLine(timeout: 90) { $0 == "asked" }
        #expect(asked != nil, "the client did not get its first graph: \(child.text)")
        // A's link to B fades to nothing and its other neighbour moves away.
        await devices[0].setThreadNeighbors([.init(extendedAddress: Self.address(db), lqi: 0, averageRSSI: nil)])
        let status = await child.wait(timeout: 90)
        let output = child.text
        print(output)
        #expect(status == 0, "\(output)")
        #expect(output.contains(" passed, 0 failed") && !output.contains("FAIL"), "\(output)")

        let (_, before) = try await bystander.call("server_info", .null)
        #expect(!before.contains { $0["event"]?.string == "network_topology_updated" },
                "a connection that never asked got network_topology_updated")
        await server.stop()
        for device in devices { await device.shutdown() }
    }
}
