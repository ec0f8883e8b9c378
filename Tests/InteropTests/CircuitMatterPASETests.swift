import Foundation
import Testing
import TestSupport

/// `matterctl commission --pase-only` against the real CircuitMatter device (peers.md), across
/// two lab hosts: discovery through avahi, PASE over UDP (fe80:: with its interface).
/// The device runs on h4 and the commissioner on h5 (h0-h3 belong to the discovery tests).
@Suite(.serialized, .enabled(if: Lab.isAvailable,
                             "lab integration tests need root (network namespaces): run scripts/test as root"))
struct CircuitMatterPASETests {
    static let deviceHost = 4
    static let commissionerHost = 5

    /// All lab hosts share one link, so every suite's CircuitMatter gets its own discriminator
    /// (discovery tests use 3840): a browse by discriminator finds only its own device.
    static let discriminator = 3850

    /// Starts a fresh CircuitMatter (passcode 20202021) and returns it with the QR and manual
    /// codes it prints.
    static func startDevice(_ lab: Lab, on host: Int = deviceHost, discriminator: Int = discriminator) async throws
        -> (process: ChildProcess, qr: String, manual: String) {
        let python = Lab.repositoryRoot.appendingPathComponent(".peers/venv/bin/python").path
        try #require(FileManager.default.isExecutableFile(atPath: python),
                     "CircuitMatter is not installed: run scripts/peers (scripts/test does)")
        let state = "\(lab.directory)/cm-pase-\(UInt32.random(in: 0...UInt32.max))"
        let device = try lab.spawn(on: host, [
            python, Lab.repositoryRoot.appendingPathComponent("scripts/circuitmatter-device.py").path, state,
            "--passcode", "20202021", "--discriminator", String(discriminator),
        ])
        let ready = await device.waitForLine(timeout: 30) { $0.contains("circuitmatter: ready") }
        try #require(ready != nil, "CircuitMatter did not start: \(device.text)")
        let qrLine = try unwrap(device.lines.first { $0.contains("MT:") }, "the device's QR code")
        let qr = String(qrLine[try unwrap(qrLine.range(of: "MT:")).lowerBound...])
        let manual = try unwrap(device.lines.first { $0.hasPrefix("Manual code:") }?.dropFirst("Manual code:".count)
            .trimmingCharacters(in: .whitespaces), "the device's manual code")
        return (device, qr.trimmingCharacters(in: .whitespaces), manual)
    }

    static func paseOnly(_ lab: Lab, _ code: String) async throws -> (Int32, [String: Any]) {
        let (status, output) = try await lab.run(on: commissionerHost,
                                                 [Lab.matterctl, "commission", "--pase-only", code, "--json", "--timeout", "10"],
                                                 timeout: 60)
        let line = output.split(separator: "\n").first { $0.hasPrefix("{") }.map(String.init) ?? "{}"
        let json = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        return (status, json)
    }

    @Test(arguments: ["qr", "manual"])
    func paseSucceedsWithTheDevicesCode(_ kind: String) async throws {
        let lab = try Lab.shared()
        let device = try await Self.startDevice(lab)
        defer { device.process.kill9() }
        let (status, json) = try await Self.paseOnly(lab, kind == "qr" ? device.qr : device.manual)
        #expect(status == 0, "\(json)")
        #expect(json["result"] as? String == "pase-established")
        let steps = json["steps"] as? [[String: Any]] ?? []
        #expect(steps.map { $0["step"] as? String } == ["discovery", "pase"])
        let found = json["device"] as? [String: Any]
        #expect(found?["vendorId"] as? Int == 0xFFF4 && found?["productId"] as? Int == 0x1234)
        #expect((json["address"] as? String)?.contains(":5541") == true)
    }

    /// A valid code for the same discriminator that carries another passcode: PASE fails, named.
    @Test func wrongPasscodeFailsNamingPASE() async throws {
        let lab = try Lab.shared()
        let device = try await Self.startDevice(lab)
        defer { device.process.kill9() }
        // A valid code for this device's discriminator with passcode 20202022.
        let (status, json) = try await Self.paseOnly(lab, try generate(Self.discriminator, passcode: 20_202_022))
        #expect(status == 1)
        #expect(json["result"] as? String == "failed")
        #expect(json["step"] as? String == "pase")
        #expect(json["wrongPasscode"] as? Bool == true)
        #expect((json["error"] as? String)?.contains("passcode") == true)
    }

    @Test func noDeviceFailsNamingDiscovery() async throws {
        let lab = try Lab.shared()
        // Discriminator 1234 with nobody advertising it.
        let (status, json) = try await Self.paseOnly(lab, try generate(1234))
        #expect(status == 1)
        #expect(json["step"] as? String == "discovery")
    }

    func generate(_ discriminator: Int, passcode: Int = 20_202_021) throws -> String {
        // CircuitMatter's vendor and product: a code with others would not match its advert.
        let r = try ProcessRunner.run(ProcessRunner.matterctl, ["payload", "generate", "--vendor-id", "0xFFF4",
                                                                "--product-id", "0x1234", "--passcode", String(passcode),
                                                                "--discriminator", String(discriminator), "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        return try unwrap(json?["qr"] as? String, "generated QR")
    }
}
