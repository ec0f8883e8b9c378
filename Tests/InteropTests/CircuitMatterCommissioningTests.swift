import Foundation
import Testing
import TestSupport

/// Our commissioner commissions the real CircuitMatter device end to end (discovery, PASE,
/// attestation with the SDK test PAAs, CSR, NOC, CASE, CommissioningComplete), then reads
/// BasicInformation.VendorName over CASE and finds it in the hub's device list.
/// Device on h8, hub on h9 (each CircuitMatter binds UDP 5541, so suites that run in parallel
/// use hosts of their own).
@Suite(.serialized, .enabled(if: Lab.isAvailable, "lab integration tests need root (network namespaces): run scripts/test as root"))
struct CircuitMatterCommissioningTests {
    static let deviceHost = 8
    static let hubHost = 9

    /// The SDK's test PAAs (CircuitMatter's PAI chains to the no-VID one).
    static func paaStore(_ lab: Lab) throws -> String {
        let dir = "\(lab.directory)/paa-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for name in ["Chip-Test-PAA-NoVID-Cert.der", "Chip-Test-PAA-FFF1-Cert.der"] {
            let source = TestVectors.directory.appendingPathComponent("attestation/test-attestation/\(name)").path
            try FileManager.default.copyItem(atPath: source, toPath: "\(dir)/\(name)")
        }
        return dir
    }

    static func matterctl(_ lab: Lab, _ args: [String]) async throws -> (Int32, String) {
        try await lab.run(on: hubHost, [Lab.matterctl] + args, timeout: 90)
    }

    static func json(_ output: String) -> [String: Any] {
        let line = output.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? "{}"
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    static let discriminator = 3860

    @Test(arguments: ["qr", "manual"])
    func commissionsAndReadsVendorName(_ kind: String) async throws {
        let lab = try Lab.shared()
        let device = try await CircuitMatterPASETests.startDevice(lab, on: Self.deviceHost, discriminator: Self.discriminator)
        defer { device.process.kill9() }
        let code = kind == "qr" ? device.qr : device.manual
        let state = "\(lab.directory)/hub-\(UInt32.random(in: 0...UInt32.max))"
        let paa = try Self.paaStore(lab)

        let (status, out) = try await Self.matterctl(lab, ["commission", code, "--state", state, "--paa-store", paa,
                                                           "--allow-test-devices", "--name", "Desk lamp", "--room", "Office", "--json"])
        #expect(status == 0, "\(out)")
        let result = try #require((Self.json(out)["devices"] as? [[String: Any]])?.first)
        #expect(result["result"] as? String == "commissioned")
        #expect(result["vendorId"] as? Int == 0xFFF4 && result["productId"] as? Int == 0x1234)
        let steps = (result["steps"] as? [[String: Any]] ?? []).compactMap { $0["step"] as? String }
        #expect(steps.first == "discovery" && steps.contains("device-attestation") && steps.last == "commissioning-complete")
        let node = try #require(result["nodeId"] as? UInt64 ?? (result["nodeId"] as? Int).map(UInt64.init))

        let (readStatus, vendor) = try await Self.matterctl(lab, ["read", "0x" + String(node, radix: 16), "basicinformation",
                                                                  "vendorname", "--state", state])
        #expect(readStatus == 0)
        #expect(vendor.trimmingCharacters(in: .whitespacesAndNewlines) == "CircuitMatter")

        let (_, list) = try await Self.matterctl(lab, ["devices", "--state", state, "--json"])
        let devices = Self.json(list)["devices"] as? [[String: Any]] ?? []
        #expect(devices.count == 1)
        #expect(devices.first?["name"] as? String == "Desk lamp")
        #expect(devices.first?["room"] as? String == "Office")
    }

    /// Strict by default: without --allow-test-devices the test-credential device is refused at
    /// attestation, the fail-safe is disarmed, and nothing is recorded.
    @Test func testDeviceRefusedWithoutOptIn() async throws {
        let lab = try Lab.shared()
        let device = try await CircuitMatterPASETests.startDevice(lab, on: Self.deviceHost, discriminator: Self.discriminator)
        defer { device.process.kill9() }
        let state = "\(lab.directory)/hub-\(UInt32.random(in: 0...UInt32.max))"
        let (status, out) = try await Self.matterctl(lab, ["commission", device.qr, "--state", state,
                                                           "--paa-store", try Self.paaStore(lab), "--json"])
        #expect(status == 1)
        let result = (Self.json(out)["devices"] as? [[String: Any]])?.first
        #expect(result?["step"] as? String == "device-attestation", "\(out)")
        let (_, list) = try await Self.matterctl(lab, ["devices", "--state", state, "--json"])
        #expect((Self.json(list)["devices"] as? [Any])?.isEmpty == true)
    }
}
