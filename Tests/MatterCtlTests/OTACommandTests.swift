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

    /// `ota add FOLDER`: an offline home's firmware folder; every sound image is added, a damaged
    /// one and a sha-512 one named with their reasons (exit 1), other files left alone.
    @Test func aFolderOfImagesIsAddedAndTheDamagedOneNamed() throws {
        let folder = NSTemporaryDirectory() + "matterctl-ota-folder-\(UUID().uuidString)"
        let state = NSTemporaryDirectory() + "matterctl-ota-state-\(UUID().uuidString)"
        defer { for p in [folder, state] { try? FileManager.default.removeItem(atPath: p) } }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (id, name) in [("sdk-sha256-fff1-8000-v2", "a.ota"), ("sdk-sha512-fff1-8001-v10", "b.ota")] {
            try FileManager.default.moveItem(atPath: try image(id), toPath: folder + "/" + name)
        }
        try FileManager.default.moveItem(atPath: try image("sdk-sha256-fff1-8000-v2") { $0[$0.count - 1] ^= 0xFF }, toPath: folder + "/c.ota")
        try Data("notes".utf8).write(to: URL(fileURLWithPath: folder + "/README.txt"))
        try Data(repeating: 0x5A, count: 5000).write(to: URL(fileURLWithPath: folder + "/payload.bin"))
        let made = try ProcessRunner.run(ProcessRunner.matterctl, ["ota", "make", folder + "/payload.bin", folder + "/d.ota", "--vendor-id",
                                                                   "0xFFF1", "--product-id", "0x8000", "--version", "3", "--version-string", "3.0.0"])
        #expect(made.status == 0, "\(made.stderr)")
        let r = try ProcessRunner.run(ProcessRunner.matterctl, ["--state", state, "ota", "add", folder, "--json"])
        #expect(r.status == 1, "\(r.stderr)")
        let added = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(added.compactMap { $0["softwareVersion"] as? Int }.sorted() == [2, 3], "\(r.stdout)")
        #expect(r.stderr.contains("c.ota") && r.stderr.contains("digest-mismatch") && r.stderr.contains("b.ota")
                    && r.stderr.contains("unsupported-digest") && !r.stderr.contains("README"), "\(r.stderr)")
        let list = try ProcessRunner.run(ProcessRunner.matterctl, ["--state", state, "ota", "list", "--json"])
        #expect(list.status == 0 && list.stdout.split(separator: "\n").count == 2, "\(list.stdout)")
        let empty = try ProcessRunner.run(ProcessRunner.matterctl, ["--state", state, "ota", "add", state + "/nothing-here"])
        #expect(empty.status == 1 && empty.stderr.contains("no such file or folder"), "\(empty.stderr)")
    }
}
