import Foundation
import MatterCertificates
import MatterCommissioning
import MatterDiscovery
import MatterHubService
import MatterMessaging
import MatterServerAPI
import MatterVirtualDevice
import Testing
import TestSupport
import MatterTLV

/// `matterctl hub serve` in process (the hub on loopback, a virtual light on UDP loopback found
/// through fixed DNS-SD answers), driven by the real Matter Server clients through a device's
/// whole life: commission, control with reports (OnOff and Level Control), read, write, share,
/// interview, remove.
@Suite(.serialized) struct HubServerTests {
    static func paaStore() throws -> PAATrustStore {
        let url = TestVectors.directory.appendingPathComponent("attestation/test-attestation/Chip-Test-PAA-FFF1-Cert.der")
        return PAATrustStore(files: [("paa.der", [UInt8](try Data(contentsOf: url)))])
    }

    func run(venv: String, discriminator: UInt16) async throws {
        let root = Lab.repositoryRoot
        let python = root.appendingPathComponent(".peers/\(venv)/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            print("skipped: \(python) is missing (scripts/peers installs it; matter-python-client needs Python 3.12)")
            return
        }
        let device = try await VirtualDevice(configuration: VirtualDeviceConfiguration(
            passcode: 20_202_021, discriminator: discriminator, port: 0, advertises: false))
        await device.start()
        let devicePort = await device.port
        let state = NSTemporaryDirectory() + "matterhub-serve-\(UUID().uuidString)"
        var configuration = HubServer.Configuration(
            stateDirectory: state, options: CommissioningOptions(trustStore: try Self.paaStore(), allowTestDevices: true))
        configuration.listen = ["127.0.0.1"]
        configuration.port = 0
        configuration.discovery = MatterDiscovery(browser: FixedServiceBrowser(
            [FixedServiceBrowser.commissionable(discriminator: discriminator, port: devicePort)]))
        let server = try await HubServer(configuration, log: { print($0) })
        try await server.start(log: { print($0) })
        let url = try #require(server.urls.first { $0.hasPrefix("ws://") })
        // A second hub on the same state directory is refused, naming the first.
        await #expect(throws: HubLock.HeldElsewhere.self) { _ = try await HubServer(configuration, log: { _ in }) }

        let script = root.appendingPathComponent("scripts/ohf-hub-check.py").path
        let child = try ChildProcess([python, script, url, device.qrCode])
        let status = await child.wait(timeout: 180)
        let output = child.text
        print(output)
        #expect(status == 0, "\(venv): \(output)")
        #expect(output.contains(" passed, 0 failed"))
        #expect(!output.contains("FAIL"))
        // The light is dimmable: the client drove Level Control through the hub too.
        #expect(output.contains("MoveToLevelWithOnOff(200) answers null") && output.contains("read_attribute 1/8/0 gives 200"),
                "the Level Control checks did not run: \(output)")
        #expect(await device.currentLevel == 200)
        // remove_node took the hub's fabric off the device.
        #expect(await device.fabricIndexes.isEmpty)
        await server.stop()
        await device.shutdown()
        try? FileManager.default.removeItem(atPath: state)
    }

    @Test func pythonMatterServer812DrivesTheHub() async throws {
        try await run(venv: "ohf-client", discriminator: 401)
    }

    @Test func matterPythonClient161DrivesTheHub() async throws {
        try await run(venv: "ohf-client-mpc", discriminator: 402)
    }
}

/// A hub stopped with SIGTERM's path and started again on the same state: every node is listed
/// at once, with its last values, and is available again within seconds.
@Suite(.serialized) struct HubRestartTests {
    @Test func restartListsNodesAtOnceAndReconnects() async throws {
        let device = try await VirtualDevice(configuration: VirtualDeviceConfiguration(
            passcode: 20_202_021, discriminator: 403, port: 0, advertises: false))
        await device.start()
        let port = await device.port
        let state = NSTemporaryDirectory() + "matterhub-restart-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        var configuration = HubServer.Configuration(
            stateDirectory: state, options: CommissioningOptions(trustStore: try HubServerTests.paaStore(), allowTestDevices: true))
        configuration.port = 0
        configuration.discovery = MatterDiscovery(browser: FixedServiceBrowser(
            [FixedServiceBrowser.commissionable(discriminator: 403, port: port)]))

        let first = try await HubServer(configuration, log: { _ in })
        try await first.start(log: { _ in })
        let added = try await first.service.handle(.commissionWithCode(code: device.qrCode, networkOnly: true))
        let nodeID = try #require(added["node_id"]?.uint64)
        _ = try await first.service.handle(.deviceCommand(DeviceCommandArguments(
            nodeID: nodeID, endpointID: 1, clusterID: 6, commandName: "On")))
        // The report of the change reaches the cache before the hub stops.
        try await Task.sleep(for: .milliseconds(300))
        await first.stop()

        let clock = ContinuousClock()
        let started = clock.now
        let second = try await HubServer(configuration, log: { _ in })
        try await second.start(log: { _ in })
        let listed = await second.service.nodes()
        #expect(listed.map(\.nodeID) == [nodeID])
        #expect(listed.first?.attributes[AttributePath(endpoint: 1, cluster: 6, attribute: 0)] == .bool(true))
        #expect(listed.first?.attributes[AttributePath(endpoint: 0, cluster: 40, attribute: 1)]?.string?.isEmpty == false)
        let available = await second.service.runtime.waitUntilAvailable(NodeID(nodeID), timeout: .seconds(5))
        #expect(available, "not available within 5 s of the restart")
        print("restart to available: \((clock.now - started).milliseconds) ms")
        await second.stop()
        await device.shutdown()
    }
}
