import Foundation
import MatterOTA
import Testing
import TestSupport

/// OTA images made by the CHIP SDK's ota_image_tool.py (testvectors/ota_image.json): the header
/// reads as the tool wrote it, the payload's digest is checked, and each way a file can be wrong
/// is refused with its kind.
@Suite struct OTAImageTests {
    static let vectors = TestVectors.vectors("ota_image.json")

    func write(_ bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "ota-\(UUID().uuidString).ota"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func expectKind(_ kind: OTAImageError.Kind, _ bytes: [UInt8], _ comment: Comment) throws {
        let path = try write(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try OTAImageFile.inspect(path: path, chunkSize: 100)
            Issue.record("accepted: \(comment)")
        } catch {
            #expect(error.kind == kind, "\(comment): \(error)")
        }
    }

    @Test func theSDKsHeadersReadAsWritten() throws {
        #expect(Self.vectors.count == 3)
        for v in Self.vectors {
            let image = try #require(v.hex("image"))
            let header = try OTAImageHeader(parsing: image, fileSize: UInt64(image.count))
            #expect(Int(header.vendorID) == v.int("vendorID") && Int(header.productID) == v.int("productID"), "\(v.id)")
            #expect(Int(header.softwareVersion) == v.int("softwareVersion") && header.softwareVersionString == v.string("softwareVersionString"))
            #expect(Int(header.payloadSize) == v.int("payloadSize") && Int(header.digestType.rawValue) == v.int("digestType"))
            #expect(header.minApplicableVersion.map(Int.init) == v.int("minApplicableVersion"))
            #expect(header.maxApplicableVersion.map(Int.init) == v.int("maxApplicableVersion"))
            #expect(header.releaseNotesURL == v.string("releaseNotesURL"))
            #expect(header.digest == v.hex("digest"))
            #expect(header.payloadOffset + Int(header.payloadSize) == image.count)
        }
    }

    @Test func aSHA256ImageIsVerifiedInChunks() throws {
        for v in Self.vectors where v.int("digestType") == 1 {
            let path = try write(try #require(v.hex("image")))
            defer { try? FileManager.default.removeItem(atPath: path) }
            // Chunks smaller than the header and than the payload: the digest spans reads.
            let header = try OTAImageFile.inspect(path: path, chunkSize: 7)
            #expect(header.softwareVersionString == v.string("softwareVersionString"), "\(v.id)")
        }
    }

    @Test func eachWayAFileIsWrongIsRefusedWithItsKind() throws {
        let image = try #require(Self.vectors.first { $0.id == "sdk-sha256-fff1-8000-v2" }?.hex("image"))
        var flipped = image
        flipped[image.count - 10] ^= 0x01
        try expectKind(.digestMismatch, flipped, "a payload bit flipped")
        try expectKind(.sizeMismatch, Array(image.dropLast()), "one byte cut")
        try expectKind(.sizeMismatch, image + [0], "one byte added")
        try expectKind(.sizeMismatch, Array(image.prefix(10)), "only 10 bytes")
        var magic = image
        magic[0] = 0
        try expectKind(.notAnImage, magic, "another file identifier")
        var huge = image
        huge[15] = 0x7F  // HeaderSize
        try expectKind(.malformedHeader, huge, "a 2 GB header")
        var garbled = image
        garbled[16] = 0xFF  // the header TLV's first control byte
        try expectKind(.malformedHeader, garbled, "a header that is not TLV")
        let sha512 = try #require(Self.vectors.first { $0.int("digestType") == 8 }?.hex("image"))
        try expectKind(.unsupportedDigest, sha512, "a sha-512 image")
        #expect(throws: OTAImageError.self) { try OTAImageFile.inspect(path: "/nonexistent/image.ota") }
        #expect(throws: OTAImageError.self) { try OTAImageFile.inspect(path: "/tmp") }
    }

    @Test func anImageAppliesOnlyToItsNodeAndVersions() throws {
        let image = try #require(Self.vectors.first { $0.id == "sdk-sha256-fff1-8000-v2" }?.hex("image"))
        let header = try OTAImageHeader(parsing: image, fileSize: UInt64(image.count))  // v2, applies from 1 to 1
        #expect(header.refusal(vendorID: 0xFFF1, productID: 0x8000, currentVersion: 1) == nil)
        #expect(header.refusal(vendorID: 0xFFF1, productID: 0x8001, currentVersion: 1)?.kind == .notApplicable)
        #expect(header.refusal(vendorID: 0xFFF2, productID: 0x8000, currentVersion: 1)?.message.contains("vendor 0xFFF1") == true)
        #expect(header.refusal(vendorID: 0xFFF1, productID: 0x8000, currentVersion: 2)?.message.contains("already runs 2") == true)
        #expect(header.refusal(vendorID: 0xFFF1, productID: 0x8000, currentVersion: 0)?.message.contains("applies from version 1") == true)
        let minimal = try #require(Self.vectors.first { $0.id == "sdk-sha256-minimal" }?.hex("image"))
        let open = try OTAImageHeader(parsing: minimal, fileSize: UInt64(minimal.count))  // no range
        #expect(open.refusal(vendorID: 0x1234, productID: 0x5678, currentVersion: 0) == nil)
        #expect(open.refusal(vendorID: 0x1234, productID: 0x5678, currentVersion: 0x0102_0304) != nil)
    }

    /// Any bytes at all: a header or a typed error, never a crash.
    @Test func randomBytesNeverCrash() {
        var rng = SystemRandomNumberGenerator()
        let image = Self.vectors.first?.hex("image") ?? []
        for i in 0..<2000 {
            var bytes = i % 2 == 0 ? Array(image.prefix(Int.random(in: 0...200, using: &rng)))
                                   : (0..<Int.random(in: 0...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if !bytes.isEmpty, i % 3 == 0 { bytes[Int.random(in: 0..<bytes.count, using: &rng)] = .random(in: 0...255, using: &rng) }
            _ = try? OTAImageHeader(parsing: bytes, fileSize: UInt64(Int.random(in: 0...300, using: &rng)))
        }
    }

    /// The writer makes, byte for byte, what ota_image_tool.py made from the same fields and
    /// payload (its sha-256 vectors), and its own images read back as written.
    @Test func theWriterMakesTheSDKsBytes() throws {
        for v in Self.vectors where v.string("digestType") == "1" {
            let image = try #require(v.hex("image"))
            let path = try write(image)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let header = try OTAImageFile.inspect(path: path, chunkSize: 100)
            let fields = OTAImageWriter.Fields(
                vendorID: header.vendorID, productID: header.productID, softwareVersion: header.softwareVersion,
                softwareVersionString: header.softwareVersionString, minApplicableVersion: header.minApplicableVersion,
                maxApplicableVersion: header.maxApplicableVersion, releaseNotesURL: header.releaseNotesURL)
            #expect(try OTAImageWriter.image(fields, payload: Array(image[header.payloadOffset...])) == image, "\(v.id)")
        }
        let big = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let made = try OTAImageWriter.image(.init(vendorID: 0xFFF1, productID: 0x8000, softwareVersion: 3, softwareVersionString: "3.0"),
                                            payload: big)
        let path = try write(made)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let header = try OTAImageFile.inspect(path: path, chunkSize: 4096)
        #expect(header.softwareVersion == 3 && header.payloadSize == UInt64(big.count) && header.totalSize == UInt64(made.count))
        #expect(throws: OTAImageError.self) {
            try OTAImageWriter.image(.init(vendorID: 1, productID: 1, softwareVersion: 1, softwareVersionString: ""), payload: [1])
        }
    }
}
