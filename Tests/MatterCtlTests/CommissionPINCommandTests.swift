import Foundation
import Testing
import TestSupport

/// `matterctl commission --pin P|- [--address A]`: a device shared from another ecosystem,
/// known by its PIN alone. The options are checked without a network; then, in the lab, a
/// virtual device on h26 (a passcode and discriminator no other suite uses) is commissioned
/// from h27 by its PIN read from stdin, after a wrong PIN that names the device and leaves it
/// untouched. h26 and h27 carry nothing else during this run (Home Assistant's suite, which
/// also uses them, runs in a pass of its own).
@Suite(.serialized) struct CommissionPINCommandTests {
    static let deviceHost = 26
    static let commissionerHost = 27
    static let passcode = "24681357"

    func matterctl(_ args: [String], stdin: String? = nil) throws -> ProcessRunner.Result {
        try ProcessRunner.run(ProcessRunner.matterctl, args, stdin: stdin)
    }

    static func scratch() -> String { NSTemporaryDirectory() + "matterctl-pin-\(UUID().uuidString)" }

    @Test(arguments: [
        (["34970112332", "--pin", "24681357"], "give a setup code or --pin, not both"),
        (["34970112332", "--address", "fe80::1"], "--address goes with --pin"),
        (["--pin", "1234567"], "--pin takes the 8-digit setup PIN"),
        (["--pin", "2468135x"], "--pin takes the 8-digit setup PIN"),
        (["--pase-only", "--pin", "24681357"], "--pin does not go with --pase-only"),
        ([], "commission needs a setup code, or --pin P"),
    ])
    func optionsThatDoNotGoTogetherExit64(_ arguments: [String], _ message: String) throws {
        let r = try matterctl(["--state", Self.scratch(), "commission"] + arguments)
        #expect(r.status == 64, "\(arguments): \(r.stderr)")
        #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
    }

    /// A forbidden passcode is refused before any search, without printing it back.
    @Test func aForbiddenPINIsRefusedAtOnce() throws {
        let r = try matterctl(["--state", Self.scratch(), "commission", "--pin", "-", "--json"], stdin: "12345678\n")
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("not a valid setup passcode") && !r.stderr.contains("12345678") && !r.stdout.contains("12345678"),
                "\(r.stdout)\n\(r.stderr)")
    }

    @Test(.enabled(if: Lab.isAvailable, "lab tests need root (network namespaces): run scripts/test as root"))
    func commissionsTheDeviceThatAcceptsThePIN() async throws {
        let lab = try Lab.shared()
        let deviceState = "\(lab.directory)/pin-device-\(UInt32.random(in: 0...UInt32.max))"
        let device = try lab.spawn(on: Self.deviceHost, [Lab.matterctl, "virtual-device", "--state", deviceState,
                                                         "--passcode", Self.passcode, "--discriminator", "2719", "--port", "5719"])
        defer { device.kill9() }
        let ready = await device.waitForLine(timeout: 30) { $0.contains("virtual-device: ready") }
        try #require(ready != nil, "the virtual device did not start: \(device.text)")
        let address = lab.hosts[Self.deviceHost].ipv6
        let state = "\(lab.directory)/pin-hub-\(UInt32.random(in: 0...UInt32.max))"
        let paa = try CommissionNetworkCommandTests.paaStore(lab)
        func commission(pin: String) async throws -> (status: Int32, result: [String: Any], output: String) {
            let pinFile = "\(lab.directory)/pin-\(UInt32.random(in: 0...UInt32.max))"
            try (pin + "\n").write(toFile: pinFile, atomically: true, encoding: .utf8)
            // The PIN from stdin, out of the argument list.
            let (status, out) = try await lab.run(on: Self.commissionerHost, [
                "sh", "-c", "exec \"$@\" < \"$0\"", pinFile, Lab.matterctl, "--state", state, "commission", "--pin", "-",
                "--address", address, "--paa-store", paa, "--allow-test-devices", "--json", "--timeout", "5"], timeout: 120)
            let line = out.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? "{}"
            let json = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
            return (status, (json["devices"] as? [[String: Any]])?.first ?? [:], out)
        }

        let wrong = try await commission(pin: "13572460")
        #expect(wrong.status == 1, "\(wrong.output)")
        #expect(wrong.result["code"] as? String == "wrong-passcode", "\(wrong.output)")
        #expect((wrong.result["error"] as? String ?? "").contains("discriminator 2719"), "\(wrong.output)")
        #expect(!wrong.output.contains("13572460"), "the PIN was printed: \(wrong.output)")
        #expect(HubLabState.fabricCount(deviceState) == 0, "the device took a fabric from a wrong PIN")

        let right = try await commission(pin: Self.passcode)
        #expect(right.status == 0 && right.result["result"] as? String == "commissioned", "\(right.output)\n\(device.text)")
        #expect(HubLabState.fabricCount(deviceState) == 1)
        let (status, devices) = try await lab.run(on: Self.commissionerHost, [Lab.matterctl, "--state", state, "devices", "--json"])
        #expect(status == 0 && devices.contains("\(right.result["nodeId"] ?? "none")"), "\(devices)")
    }
}

/// What a virtual device's state directory says.
enum HubLabState {
    /// The fabrics the device saved (0 when it saved none).
    static func fabricCount(_ state: String) -> Int {
        guard let data = FileManager.default.contents(atPath: "\(state)/state.json"),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return 0 }
        return (object["fabrics"] as? [Any])?.count ?? 0
    }
}
