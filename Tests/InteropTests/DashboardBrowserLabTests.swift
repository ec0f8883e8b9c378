import Foundation
import Testing
import TestSupport

/// The hub's dashboard in a real browser (Debian's headless Chromium driven by selenium,
/// scripts/dashboard-browser-check.py) in the lab: the hub (with a token), the browser and the CHIP
/// controller on h20, our virtual light on h21. At phone width, on the still empty hub, the page
/// offers to move a home in and dry-runs python-matter-server's real storage (a wrong folder
/// refused naming why, the storage's nodes listed, cancelled); it refuses a wrong code naming PASE
/// and what to try, commissions the light from its pasted code with the steps appearing live,
/// lists it, shows its connectivity history (available once subscribed), toggles it, dims it with the slider (the level read from the light's own state file)
/// and follows a level set by another client, renames and moves it, shares it (its QR read back by
/// zbarimg); the CHIP controller joins through that window on another fabric and toggles the
/// light, which the page shows without a reload; the page removes it. Screenshots (and, on
/// failure, the console log and the page) stay in .build/dashboard-tests/.
@Suite(.serialized, .enabled(if: Lab.isAvailable, "lab integration tests need root (network namespaces): run scripts/test as root"))
struct DashboardBrowserLabTests {
    static let hubHost = 20
    static let deviceHost = 21

    @Test func dashboardCommissionsControlsSharesAndRemovesInChromium() async throws {
        let lab = try Lab.shared()
        let root = Lab.repositoryRoot
        let python = root.appendingPathComponent(".peers/selenium/bin/python").path
        try #require(FileManager.default.isExecutableFile(atPath: python), "run scripts/peers (scripts/test does)")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
                     && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"), "run scripts/setup (chromium, chromium-driver)")
        let run = UInt32.random(in: 0...UInt32.max)
        let deviceState = "\(lab.directory)/dash-vd-\(run)"
        // Version 1, an OTA requestor: the hub holds version 2 for it (below), and the page offers it.
        let device = try lab.spawn(on: Self.deviceHost, [Lab.matterctl, "virtual-device", "--state", deviceState, "--passcode", "24681012",
                                                         "--discriminator", "2620", "--port", "5620", "--software-version", "1"])
        defer { device.kill9() }
        let ready = await device.waitForLine(timeout: 30) { $0.contains("virtual-device: ready") }
        try #require(ready != nil, "the virtual device did not start: \(device.text)")
        let qr = try #require(device.text.split(separator: "\n").first { $0.hasPrefix("QR code: ") }?.dropFirst(9)).description

        // The same device with a wrong passcode: the page must name PASE and what to try.
        let (generated, payload) = try await lab.run(on: Self.hubHost, [Lab.matterctl, "payload", "generate", "--passcode", "24681013",
                                                                       "--discriminator", "2620"])
        let wrongCode = try #require(payload.split(separator: "\n").first { $0.hasPrefix("QR code:") }?
            .dropFirst(8).trimmingCharacters(in: .whitespaces), "matterctl payload generate (\(generated)): \(payload)")

        let state = "\(lab.directory)/dash-hub-\(run)"
        // The CHIP SDK tool's image for FFF1/8000, version 2 ("2.0.0"), in the hub's store.
        let image = "\(lab.directory)/dash-image-\(run).ota"
        let bytes = try #require(TestVectors.vectors("ota_image.json").first { $0.id == "sdk-sha256-fff1-8000-v2" }?.hex("image"))
        try Data(bytes).write(to: URL(fileURLWithPath: image))
        let (added, addOutput) = try await lab.run(on: Self.hubHost, [Lab.matterctl, "--state", state, "ota", "add", image])
        try #require(added == 0, "ota add: \(addOutput)")
        let hub = try lab.spawn(on: Self.hubHost, [Lab.matterctl, "hub", "serve", "--state", state, "--port", "5580", "--require-token",
                                                   "--paa-store", try CircuitMatterCommissioningTests.paaStore(lab), "--allow-test-devices"])
        defer { hub.kill9() }
        let up = await hub.waitForLine(timeout: 30) { $0.contains("hub: ready ws://127.0.0.1:5580/ws") }
        try #require(up != nil, "the hub did not start: \(hub.text)")

        let out = root.appendingPathComponent(".build/dashboard-tests/\(run)").path
        let handoff = "\(lab.directory)/dash-handoff-\(run)"
        let script = root.appendingPathComponent("scripts/dashboard-browser-check.py").path
        // The token file, never the token, on the command line.
        let browser = try lab.spawn(on: Self.hubHost, [python, script, "--url", "http://127.0.0.1:5580/", "--token-file", "\(state)/api-token",
                                                       "--code", qr, "--wrong-code", wrongCode, "--out", out, "--handoff", handoff,
                                                       "--device-state", deviceState, "--firmware-to", "2.0.0", "--move-in-storage",
                                                       root.appendingPathComponent("testvectors/python-matter-server/storage-8.1.2").path])
        defer { browser.kill9() }

        // Another fabric joins through the window the page opened, and toggles the light twice.
        var shared: [String: Any]?
        for _ in 0..<1800 where shared == nil && !browser.hasExited {
            if let data = FileManager.default.contents(atPath: "\(handoff)/shared.json") {
                shared = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            } else {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        if let code = shared?["qr"] as? String {
            let (status, lines, output) = try await CHIPControllerVirtualDeviceTests.controller(
                lab, ["--code", code, "--final-toggle"], host: Self.hubHost)
            let final = CHIPControllerVirtualDeviceTests.step(lines, "final-on-off")
            let ok = status == 0 && lines.last?["result"] as? String == "ok" && final?["ok"] as? Bool == true
            let done = try JSONSerialization.data(withJSONObject: ["ok": ok, "status": Int(status),
                                                                   "final": final?["value"] as? Bool ?? false])
            #expect(FileManager.default.createFile(atPath: "\(handoff)/controller-done.json", contents: done))
            #expect(ok, "the CHIP controller did not join through the shared window: \(lines)\n\(output.suffix(2000))")
        }

        let status = await browser.wait(timeout: 400)
        for _ in 0..<500 where !browser.isDrained { try? await Task.sleep(for: .milliseconds(10)) }
        let output = browser.text
        print(output)
        #expect(status == 0, "\(output)\nscreenshots and console log: \(out)\nhub:\n\(hub.text.suffix(4000))")
        #expect(output.contains("15 passed, 0 failed"))
        let screenshots = (try? FileManager.default.contentsOfDirectory(atPath: out))?.filter { $0.hasSuffix(".png") } ?? []
        #expect(screenshots.count >= 15, "screenshots: \(screenshots)")
        #expect(output.contains("ok   dim: ") && output.contains("ok   dim-elsewhere: "), "the dim checks did not run: \(output)")
        #expect(output.contains("ok   firmware: 1.0 -> 2.0.0") || output.contains("-> 2.0.0 in "), "the firmware check did not run: \(output)")
        // The page's Remove took the hub's fabric off the light; the controller removed its own.
        await device.stop()
        let saved = (try? String(contentsOfFile: "\(deviceState)/state.json", encoding: .utf8)) ?? ""
        #expect(saved.contains("\"fabrics\":[]"), "fabrics left on the light: \(saved.prefix(300))")
        await hub.stop()
    }
}
