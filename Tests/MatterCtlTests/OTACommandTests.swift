import Foundation
import Testing
import TestSupport

/// `matterctl ota inspect` on the CHIP SDK's images (testvectors/ota_image.json): the header as the
/// tool wrote it, exit 0; a damaged image or one for another node, exit 1 with the reason.
@Suite struct OTACommandTests {
    func image(_ id: String, _ edit: (inout [UInt8]) -> Void = { _ in }) throws -> String {
        var bytes = try #require(TestVectors.vectors("ota_image.json").first { $0.id == id }?.hex("image"))
        edit(&bytes)
        let path = NSTemporaryDirectory() + "matterctl-ota-\(UUID().uuidString).ota"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aSoundImageShowsItsHeader() throws {
        let path = try image("sdk-sha256-fff1-8000-v2")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try ProcessRunner.run(ProcessRunner.matterctl, ["ota", "inspect", path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["vendorId"] as? Int == 0xFFF1 && json["productId"] as? Int == 0x8000 && json["softwareVersion"] as? Int == 2)
        #expect(json["softwareVersionString"] as? String == "2.0.0" && json["digestType"] as? String == "sha-256")
        #expect(json["releaseNotesUrl"] as? String == "https://example.com/matterhub/2.0.0" && json["verified"] as? Bool == true)
        // For a node it applies to, and one it does not.
        let applies = try ProcessRunner.run(ProcessRunner.matterctl, ["ota", "inspect", path, "--vendor-id", "0xFFF1",
                                                                      "--product-id", "0x8000", "--current-version", "1"])
        #expect(applies.status == 0, "\(applies.stderr)")
        let newer = try ProcessRunner.run(ProcessRunner.matterctl, ["ota", "inspect", path, "--vendor-id", "0xFFF1",
                                                                    "--product-id", "0x8000", "--current-version", "2"])
        #expect(newer.status == 1 && newer.stderr.contains("the node already runs 2"), "\(newer.stderr)")
        let half = try ProcessRunner.run(ProcessRunner.matterctl, ["ota", "inspect", path, "--vendor-id", "0xFFF1"])
        #expect(half.status == 64, "\(half.stderr)")
    }

    @Test func aDamagedImageIsRefusedWithTheReason() throws {
        let path = try image("sdk-sha256-fff1-8000-v2") { $0[$0.count - 1] ^= 0xFF }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try ProcessRunner.run(ProcessRunner.matterctl, ["ota", "inspect", path])
        #expect(r.status == 1 && r.stderr.contains("digest-mismatch") && r.stderr.contains("fetch it again"), "\(r.stderr)")
    }

    /// `ota make` writes what ota_image_tool.py wrote from the same payload and fields.
    @Test func makeWritesTheSDKsImage() throws {
        let sdk = try #require(TestVectors.vectors("ota_image.json").first { $0.id == "sdk-sha256-fff1-8000-v2" }?.hex("image"))
        let payloadPath = NSTemporaryDirectory() + "matterctl-payload-\(UUID().uuidString).bin"
        let out = NSTemporaryDirectory() + "matterctl-made-\(UUID().uuidString).ota"
        defer { for p in [payloadPath, out] { try? FileManager.default.removeItem(atPath: p) } }
        try Data(sdk[(sdk.count - 3000)...]).write(to: URL(fileURLWithPath: payloadPath))
        let r = try ProcessRunner.run(ProcessRunner.matterctl, [
            "ota", "make", payloadPath, out, "--vendor-id", "0xFFF1", "--product-id", "0x8000", "--version", "2", "--version-string", "2.0.0",
            "--min-version", "1", "--max-version", "1", "--release-notes", "https://example.com/matterhub/2.0.0"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.contents(atPath: out).map(Array.init) == sdk)
        let bad = try ProcessRunner.run(ProcessRunner.matterctl, [
            "ota", "make", payloadPath, out, "--vendor-id", "0xFFF1", "--product-id", "0x8000", "--version", "2",
            "--version-string", String(repeating: "9", count: 65)])
        #expect(bad.status == 1 && bad.stderr.contains("1 to 64"), "\(bad.stderr)")
    }
}
