import Foundation
import Testing
import TestSupport

/// A sleepy device in the namespace lab, as shipped: `matterctl virtual-device --icd lit` (h30)
/// and `matterctl hub serve` (h31), each with its own avahi-daemon. matter-python-client 1.6.1
/// drives the hub through scripts/icd-check.py: the hub registers with the LIT light when it
/// commissions it; the light, asleep between wakes 5 s apart, finds the hub's `_matter._tcp`
/// advert to send its Check-Ins; a Toggle sent while it sleeps is delivered at its wake. Then
/// the hub restarts (what Check-Ins are for): the light, asleep, cannot be reached, and at its
/// next wake it checks in with the new hub, which subscribes again.
@Suite(.serialized, .enabled(if: Lab.isAvailable, "lab integration tests need root (network namespaces): run scripts/test as root"))
struct ICDLabTests {
    static let deviceHost = 30
    static let hubHost = 31

    @Test func aLITLightFromTheCLIChecksInWithTheHubItFindsByDNSSD() async throws {
        let lab = try Lab.shared()
        guard let python = Lab.matterPythonClient() else { return }
        let run = UInt32.random(in: 0...UInt32.max)
        let device = try lab.spawn(on: Self.deviceHost, [Lab.matterctl, "virtual-device", "--state", "\(lab.directory)/icd-vd-\(run)",
                                                         "--passcode", "20202021", "--discriminator", "3030", "--port", "5630",
                                                         "--icd", "lit", "--icd-idle", "5", "--icd-active", "1000",
                                                         "--fault", "silent-subscriptions"])
        defer { device.kill9() }
        let ready = await device.waitForLine(timeout: 30) { $0.contains("virtual-device: ready") }
        try #require(ready != nil, "the virtual device did not start: \(device.text)")
        let qr = try #require(device.text.split(separator: "\n").first { $0.hasPrefix("QR code: ") }?.dropFirst(9)).description

        let hubArguments = [Lab.matterctl, "hub", "serve", "--state", "\(lab.directory)/icd-hub-\(run)", "--port", "5580",
                            "--paa-store", try CircuitMatterCommissioningTests.paaStore(lab), "--allow-test-devices"]
        let hub = try lab.spawn(on: Self.hubHost, hubArguments)
        defer { hub.kill9() }
        let up = await hub.waitForLine(timeout: 30) { $0.contains("hub: ready ws://127.0.0.1:5580/ws") }
        try #require(up != nil, "the hub did not start: \(hub.text)")

        let script = Lab.repositoryRoot.appendingPathComponent("scripts/icd-check.py").path
        let (status, output) = try await lab.run(on: Self.hubHost, [python, script, "ws://127.0.0.1:5580/ws", qr, "5"], timeout: 240)
        print(output)
        #expect(status == 0 && output.contains(" passed, 0 failed"), "\(output)\nhub:\n\(hub.text.suffix(4000))\ndevice:\n\(device.text.suffix(2000))")
        // The device lost its subscriptions on purpose, so it checked in at its wakes, over
        // DNS-SD, and the hub took each.
        #expect(hub.text.contains("checked in (counter offset"), "\(hub.text.suffix(4000))")
        #expect(!device.text.contains("no address for check-in client"), "\(device.text.suffix(2000))")

        // The hub restarts: registered again from its store, it finds the light asleep and waits;
        // the light's next Check-In (it finds the new hub by DNS-SD) brings the subscription back.
        await hub.stop(grace: 10)
        let again = try lab.spawn(on: Self.hubHost, hubArguments)
        defer { again.kill9() }
        let clock = ContinuousClock(), restarted = clock.now
        let checkedIn = await again.waitForLine(timeout: 60) { $0.contains("checked in (counter offset") }
        #expect(checkedIn != nil, "no Check-In reached the restarted hub: \(again.text.suffix(4000))\ndevice:\n\(device.text.suffix(2000))")
        let available = await again.waitForLine(timeout: 30) { $0.contains("is available") }
        #expect(available != nil, "the light did not become available again: \(again.text.suffix(4000))")
        print("hub restarted: the sleeping light checked in and was available again \((clock.now - restarted).milliseconds) ms later")
    }
}
