import Foundation
import MatterOTA
import Testing
import TestSupport

/// The CHIP SDK tool's images (testvectors/ota_image.json) put in a hub's image store.
enum OTATestImage {
    /// The image `id` (default: FFF1/8000 version 2, for the virtual light at version 1) added to
    /// `<state>/ota`, as `matterctl ota add` does; returns its bytes.
    @discardableResult
    static func add(_ id: String = "sdk-sha256-fff1-8000-v2", toStateDirectory state: String) throws -> [UInt8] {
        let image = try #require(TestVectors.vectors("ota_image.json").first { $0.id == id }?.hex("image"))
        let file = NSTemporaryDirectory() + "ota-\(UUID().uuidString).ota"
        try Data(image).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        try OTAImageStore(directory: state + "/ota").add(path: file)
        return image
    }
}

extension OTATestImage {
    /// A `bytes`-byte payload wrapped by OTAImageWriter as version `version` of the virtual light
    /// (FFF1/8000), added to `<state>/ota`: for transfers longer than the SDK's 1 kB vectors.
    static func addMade(payloadBytes bytes: Int, version: UInt32 = 2, toStateDirectory state: String) throws {
        let payload = (0..<bytes).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        let image = try OTAImageWriter.image(OTAImageWriter.Fields(vendorID: 0xFFF1, productID: 0x8000, softwareVersion: version,
                                                                   softwareVersionString: "\(version).0.0"), payload: payload)
        let file = NSTemporaryDirectory() + "ota-\(UUID().uuidString).ota"
        try Data(image).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        try OTAImageStore(directory: state + "/ota").add(path: file)
    }
}
