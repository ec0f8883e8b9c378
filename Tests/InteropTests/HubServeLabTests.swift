import Foundation
import Testing
import TestSupport

/// `matterctl hub serve` in the lab, driven by the real Matter Server clients (python-matter-server
/// 8.1.2, and matter-python-client 1.6.1 with schema 14's and 15's commands) through a real device
/// it did not write: CircuitMatter on h14, the hub and the client on h15 (the client connects on
/// the hub's loopback).
@Suite(.serialized, .enabled(if: Lab.isAvailable, "lab integration tests need root (network namespaces): run scripts/test as root"))
struct HubServeLabTests {
    static let deviceHost = 14
    static let hubHost = 15
    /// 0x76C: short discriminator 7, used by no other suite. The lab hosts share one link, so a
    /// short 6 here (1752 before) could be picked by CircuitMatterCommissioningTests' manual code.
    static let discriminator = 1900

    @Test(arguments: ["ohf-client", "ohf-client-mpc"])
    func realClientCommissionsAndControlsCircuitMatterThroughTheHub(venv: String) async throws {
        let lab = try Lab.shared()
        // python-matter-server 8.1.2's venv is always there; matter-python-client's where Python 3.12 is.
        if venv != "ohf-client", Lab.matterPythonClient() == nil { return }
        let python = Lab.peerPython(venv)
        try #require(FileManager.default.isExecutableFile(atPath: python), "run scripts/peers (scripts/test does)")
        let device = try await CircuitMatterPASETests.startDevice(lab, on: Self.deviceHost, discriminator: Self.discriminator)
        defer { device.process.kill9() }
        let state = "\(lab.directory)/hub-serve-\(UInt32.random(in: 0...UInt32.max))"
        // matter-python-client's run: the hub without auto subscription (its client subscribes).
        let hub = try lab.spawn(on: Self.hubHost, [Lab.matterctl, "hub", "serve", "--state", state, "--port", "5580",
                                                   "--paa-store", try CircuitMatterCommissioningTests.paaStore(lab),
                                                   "--allow-test-devices"] + (venv == "ohf-client" ? [] : ["--no-auto-subscription"]))
        defer { hub.kill9() }
        let ready = await hub.waitForLine(timeout: 30) { $0.contains("hub: ready ws://127.0.0.1:5580/ws") }
        try #require(ready != nil, "the hub did not start: \(hub.text)")
        // The hub's own node is on the network: another host's avahi resolves its operational
        // instance to the hub's UDP port (where devices reach it: OTA, ICD check-in).
        let advertised = await hub.waitForLine(timeout: 20) { $0.contains("hub: node ") && $0.contains(" advertised on UDP port ") }
        func word(after marker: String, in line: String) -> String? {
            line.range(of: marker).flatMap { line[$0.upperBound...].split(separator: " ").first.map(String.init) }
        }
        if let line = advertised, let name = word(after: "hub: node ", in: line), let port = word(after: "UDP port ", in: line) {
            // Another host's avahi (the daemon probes the name before it announces it).
            let (found, browse) = try await lab.browseUntilResolved(on: Self.deviceHost, "_matter._tcp", timeout: 60) {
                $0.count > 8 && $0[3] == name && $0[8] == port
            }
            #expect(found != nil, "the hub's node \(name) on port \(port) is not in another host's browse: \(browse)\nhub: \(hub.text)")
        } else {
            Issue.record("the hub did not say it advertised its node: \(hub.text)")
        }

        let script = Lab.repositoryRoot.appendingPathComponent("scripts/ohf-hub-check.py").path
        let (status, output) = try await lab.run(on: Self.hubHost, [python, script, "ws://127.0.0.1:5580/ws", device.qr],
                                                 timeout: 240)
        print(output)
        #expect(status == 0, "\(output)\nhub:\n\(hub.text)")
        #expect(output.contains(" passed, 0 failed"))
        await hub.stop()
    }
}
