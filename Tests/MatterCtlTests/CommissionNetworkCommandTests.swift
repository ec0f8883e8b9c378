import Foundation
import Testing
import TestSupport

/// `matterctl commission --wifi SSID | --thread-dataset FILE|-`: how the network options are
/// read (the passphrase and the dataset never from the argument list), checked without a
/// network; then, in the lab, `commission` against `virtual-device --network wifi|thread` and
/// its faults (device on h10, hub on h11, discriminators 3051-3059 and ports 5651-5659, beside
/// HubVirtualDeviceTests' 30x1/56x1: this suite runs in scripts/test's second pass).
@Suite(.serialized) struct CommissionNetworkCommandTests {
    static let passphrase = "correct horse battery"
    static let dataset = ThreadCommandTests.openThread5938
    /// OpenThread's example network key (inside `dataset`), which must never be printed.
    static let networkKey = "f366cec7a446bab978d90d27abe38f23"

    func matterctl(_ args: [String], stdin: String? = nil) throws -> ProcessRunner.Result {
        try ProcessRunner.run(ProcessRunner.matterctl, args, stdin: stdin)
    }

    static func scratch() -> String { NSTemporaryDirectory() + "matterctl-netcomm-\(UUID().uuidString)" }

    static func file(_ contents: String) throws -> String {
        let path = scratch()
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    // MARK: Options, no network

    @Test(arguments: [
        ["--wifi", "HomeNet", "--thread-dataset", "-"],
        ["--passphrase-file", "/nonexistent"],
        ["--pase-only", "--wifi", "HomeNet"],
        ["--pase-only", "--thread-dataset", "-"],
    ])
    func combinationsThatDoNotGoTogetherExit64(_ options: [String]) throws {
        let r = try matterctl(["--state", Self.scratch(), "commission", "34970112332"] + options, stdin: Self.passphrase)
        #expect(r.status == 64, "\(options): \(r.stderr)")
    }

    /// The dataset in the argument list is refused without echoing it: its network key would be
    /// visible to every user (ps) and kept in shell history.
    @Test func datasetInTheArgumentListIsRefused() throws {
        let r = try matterctl(["commission", "34970112332", "--thread-dataset", "hex:" + Self.dataset])
        #expect(r.status == 64)
        #expect(r.stderr.contains("argument list") && r.stderr.contains("--thread-dataset -"), "\(r.stderr)")
        #expect(!r.stderr.contains(Self.networkKey) && !r.stdout.contains(Self.networkKey))
    }

    @Test(arguments: [
        ("empty stdin", ["--wifi", "HomeNet"], "", "no passphrase"),
        ("short passphrase", ["--wifi", "HomeNet"], "short\n", "8-63 printable"),
        ("long SSID", ["--wifi", String(repeating: "S", count: 33)], "correct horse battery\n", "1-32 bytes"),
        ("missing file", ["--thread-dataset", "/nonexistent/dataset"], "", "cannot read"),
        ("not hex", ["--thread-dataset", "-"], "zz\n", "not hex"),
        ("incomplete dataset", ["--thread-dataset", "-"], "0e080000000000010000\n", "missing TLV"),
        ("malformed dataset", ["--thread-dataset", "-"], "0e0800\n", "dataset in stdin is unusable"),
    ])
    func badNetworkInputExits1Named(_ name: String, _ options: [String], _ stdin: String, _ words: String) throws {
        let r = try matterctl(["--state", Self.scratch(), "commission", "34970112332", "--timeout", "1"] + options, stdin: stdin)
        #expect(r.status == 1, "\(name): \(r.stderr)")
        #expect(r.stderr.contains(words), "\(name): \(r.stderr)")
        #expect(!r.stderr.contains("short") || name != "short passphrase", "the passphrase was echoed: \(r.stderr)")
    }

    @Test func helpNamesTheNetworkOptions() throws {
        let help = try matterctl(["commission", "--help"]).stdout
        for word in ["--wifi SSID", "--passphrase-file FILE", "--thread-dataset FILE", "--scan-networks", "AuthFailure"] {
            #expect(help.contains(word), "help lacks \(word)")
        }
        let device = try matterctl(["virtual-device", "--help"]).stdout
        for word in ["--network N", "wrong-network-credentials", "network-not-found"] {
            #expect(device.contains(word), "virtual-device help lacks \(word)")
        }
    }

    // MARK: In the lab

    static let deviceHost = 10
    static let hubHost = 11

    static func startDevice(_ lab: Lab, _ index: Int, _ extra: [String]) async throws -> (process: ChildProcess, qr: String) {
        let dir = "\(lab.directory)/netcomm-device-\(UInt32.random(in: 0...UInt32.max))"
        let device = try lab.spawn(on: deviceHost, [Lab.matterctl, "virtual-device", "--state", dir, "--passcode", "13572468",
                                                    "--discriminator", String(3051 + index), "--port", String(5651 + index)] + extra)
        let ready = await device.waitForLine(timeout: 30) { $0.contains("virtual-device: ready") }
        try #require(ready != nil, "the virtual device did not start: \(device.text)")
        let qr = try #require(device.text.split(separator: "\n").first { $0.hasPrefix("QR code: ") }?.dropFirst(9)).description
        return (device, qr)
    }

    static func paaStore(_ lab: Lab) throws -> String {
        let dir = "\(lab.directory)/netcomm-paa-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let source = TestVectors.directory.appendingPathComponent("attestation/test-attestation/Chip-Test-PAA-FFF1-Cert.der").path
        try FileManager.default.copyItem(atPath: source, toPath: "\(dir)/Chip-Test-PAA-FFF1-Cert.der")
        return dir
    }

    static func commission(_ lab: Lab, _ qr: String, _ options: [String], state: String? = nil) async throws
        -> (status: Int32, json: [String: Any], output: String) {
        let state = state ?? "\(lab.directory)/netcomm-hub-\(UInt32.random(in: 0...UInt32.max))"
        let (status, out) = try await lab.run(on: hubHost, [Lab.matterctl, "--state", state, "commission", qr, "--paa-store",
                                                            try paaStore(lab), "--allow-test-devices", "--json", "--timeout", "10"]
                                                  + options, timeout: 120)
        let line = out.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? "{}"
        let json = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        return (status, (json["devices"] as? [[String: Any]])?.first ?? [:], out)
    }

    static func steps(_ result: [String: Any]) -> [String] {
        (result["steps"] as? [[String: Any]] ?? []).compactMap { $0["step"] as? String }
    }

    @Test(.enabled(if: Lab.isAvailable, "lab tests need root (network namespaces): run scripts/test as root"))
    func commissionsAWiFiDeviceWithWifiAndAThreadDeviceWithThreadDataset() async throws {
        let lab = try Lab.shared()
        let wifi = try await Self.startDevice(lab, 0, ["--network", "wifi"])
        defer { wifi.process.kill9() }
        let passFile = "\(lab.directory)/netcomm-pass-\(UInt32.random(in: 0...UInt32.max))"
        try (Self.passphrase + "\n").write(toFile: passFile, atomically: true, encoding: .utf8)
        let w = try await Self.commission(lab, wifi.qr, ["--wifi", "HomeNet", "--passphrase-file", passFile, "--scan-networks"])
        #expect(w.status == 0 && w.json["result"] as? String == "commissioned", "\(w.output)\n\(wifi.process.text)")
        #expect(Self.steps(w.json).suffix(5) == ["scan-networks", "add-network", "connect-network", "case", "commissioning-complete"],
                "\(w.output)")
        #expect(wifi.process.text.contains("joined the operational network"))
        #expect(!w.output.contains(Self.passphrase) && !wifi.process.text.contains(Self.passphrase))

        let thread = try await Self.startDevice(lab, 1, ["--network", "thread"])
        defer { thread.process.kill9() }
        let datasetFile = "\(lab.directory)/netcomm-dataset-\(UInt32.random(in: 0...UInt32.max))"
        try ("hex:" + Self.dataset + "\n").write(toFile: datasetFile, atomically: true, encoding: .utf8)
        let t = try await Self.commission(lab, thread.qr, ["--thread-dataset", datasetFile])
        #expect(t.status == 0 && t.json["result"] as? String == "commissioned", "\(t.output)\n\(thread.process.text)")
        #expect(Self.steps(t.json).suffix(4) == ["add-network", "connect-network", "case", "commissioning-complete"], "\(t.output)")
        #expect(!t.output.lowercased().contains(Self.networkKey) && !thread.process.text.lowercased().contains(Self.networkKey))
    }

    /// Without --wifi the hub's stored credentials are used; without any, the error says how to give them.
    @Test(.enabled(if: Lab.isAvailable, "lab tests need root (network namespaces): run scripts/test as root"))
    func usesTheStoredCredentialsAndNamesTheMissingOnes() async throws {
        let lab = try Lab.shared()
        let device = try await Self.startDevice(lab, 2, ["--network", "wifi"])
        defer { device.process.kill9() }
        let state = "\(lab.directory)/netcomm-hub-\(UInt32.random(in: 0...UInt32.max))"
        let missing = try await Self.commission(lab, device.qr, [], state: state)
        #expect(missing.status == 1 && missing.json["code"] as? String == "network-credentials-missing", "\(missing.output)")
        #expect((missing.json["error"] as? String)?.contains("wifi set") == true)
        let passFile = "\(lab.directory)/netcomm-pass-\(UInt32.random(in: 0...UInt32.max))"
        try Self.passphrase.write(toFile: passFile, atomically: true, encoding: .utf8)
        let (set, setOut) = try await lab.run(on: Self.hubHost, [Lab.matterctl, "--state", state, "wifi", "set", "HomeNet",
                                                                 "--passphrase-file", passFile])
        #expect(set == 0, "\(setOut)")
        let stored = try await Self.commission(lab, device.qr, [], state: state)
        #expect(stored.status == 0, "\(stored.output)\n\(device.process.text)")
        #expect(Self.steps(stored.json).contains("connect-network"))
    }

    @Test(.enabled(if: Lab.isAvailable, "lab tests need root (network namespaces): run scripts/test as root"),
          arguments: [("wifi", "wrong-network-credentials", "AuthFailure"), ("wifi", "network-not-found", "NetworkNotFound"),
                      ("thread", "wrong-network-credentials", "AuthFailure"), ("thread", "network-not-found", "NetworkNotFound")])
    func faultEndsInTheNamedStatus(_ network: String, _ fault: String, _ status: String) async throws {
        let lab = try Lab.shared()
        let index = 3 + (network == "wifi" ? 0 : 2) + (fault == "network-not-found" ? 1 : 0)
        let device = try await Self.startDevice(lab, index, ["--network", network, "--fault", fault])
        defer { device.process.kill9() }
        let source = network == "wifi" ? "pass" : "dataset"
        let file = "\(lab.directory)/netcomm-\(source)-\(UInt32.random(in: 0...UInt32.max))"
        try (network == "wifi" ? Self.passphrase : Self.dataset).write(toFile: file, atomically: true, encoding: .utf8)
        let options = network == "wifi" ? ["--wifi", "HomeNet", "--passphrase-file", file] : ["--thread-dataset", file]
        let r = try await Self.commission(lab, device.qr, options)
        #expect(r.status == 1, "\(r.output)")
        #expect(r.json["step"] as? String == "connect-network" && r.json["code"] as? String == fault
                && r.json["networkStatus"] as? String == status, "\(r.output)")
        #expect(!r.output.contains(Self.passphrase) && !r.output.lowercased().contains(Self.networkKey))
        // The device never joined the network.
        #expect(!device.process.text.contains("joined the operational network"))
    }
}
