import Foundation
import MatterCertificates
import MatterCommissioning
import MatterDiscovery
import MatterHubService
import MatterVirtualDevice
import Testing
import TestSupport

/// `matterctl hub serve` in process (the hub on loopback, a virtual light on UDP loopback found
/// through fixed DNS-SD answers), driven by the real Matter Server clients through a device's
/// whole life: commission, control with reports, read, write, share, interview, remove.
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
