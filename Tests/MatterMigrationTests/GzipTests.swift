import Foundation
import MatterMigration
import Testing
import TestSupport

/// zlib's gzip inflation as matterjs-server's snapshots need it, on files made by Python's gzip
/// module (a second implementation) and on defects.
@Suite struct GzipTests {
    /// `text` compressed by Python's gzip module.
    static func pythonGzip(_ text: String) throws -> [UInt8] {
        let dir = NSTemporaryDirectory() + "gzip-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/in"))
        let r = try ProcessRunner.run("/usr/bin/env", ["python3", "-c",
            "import gzip,sys; open(sys.argv[2],'wb').write(gzip.compress(open(sys.argv[1],'rb').read(), mtime=0))",
            dir + "/in", dir + "/out.gz"])
        #expect(r.status == 0, "\(r.stderr)")
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/out.gz")))
    }

    @Test func inflatesWhatPythonCompressed() throws {
        let text = String(repeating: "matterjs-server snapshot ", count: 10_000)
        let compressed = try Self.pythonGzip(text)
        #expect(compressed.count < text.utf8.count / 10)
        #expect(try Gzip.inflate(compressed) == Array(text.utf8))
    }

    @Test func refusesTruncatedCorruptAndOversizedInput() throws {
        let compressed = try Self.pythonGzip(String(repeating: "x", count: 100_000))
        #expect(throws: Gzip.Failure.self) { try Gzip.inflate(Array(compressed.dropLast(12))) }
        var corrupt = compressed
        corrupt[corrupt.count - 6] ^= 0xFF  // the CRC-32 trailer
        #expect(throws: Gzip.Failure.self) { try Gzip.inflate(corrupt) }
        #expect(throws: Gzip.Failure.self) { try Gzip.inflate(Array("{\"not\": \"gzip\"}".utf8)) }
        #expect(throws: Gzip.Failure.self) { try Gzip.inflate(compressed, limit: 50_000) }
        #expect(try Gzip.inflate(compressed, limit: 100_000).count == 100_000)
    }
}

