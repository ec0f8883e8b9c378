import Foundation
import Testing
import TestSupport

/// `matterctl cert`, run as a user runs it, on the certificates of matter_certs.json.
@Suite struct CertCommandTests {
    func matterctl(_ args: String...) throws -> ProcessRunner.Result {
        try ProcessRunner.run(ProcessRunner.matterctl, args)
    }

    static let root01 = TestVectors.vectors("matter_certs.json").first { $0.id == "cert-root01" }!
    static let node = TestVectors.vectors("matter_certs.json").first { $0.id == "cert-node02-04" }!

    @Test func decodeTLVHexAsJSON() throws {
        let r = try matterctl("cert", "decode", Self.node.string("chip_tlv")!, "--json")
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["encoding"] as? String == "tlv")
        #expect(json["type"] as? String == "NOC")
        #expect(json["notBefore"] as? String == "2020-10-15T14:23:43Z")
        #expect(json["publicKey"] as? String == Self.node.string("public_key"))
        #expect(json["der"] as? String == Self.node.string("der"))
        let subject = try #require(json["subject"] as? [[String: Any]])
        #expect(subject.contains { $0["type"] as? String == "matter-node-id" && $0["value"] as? String == "DEDEDEDE00020004" })
        #expect(subject.contains { $0["type"] as? String == "matter-noc-cat" && $0["value"] as? String == "ABCD0003" })
        let exts = try #require(json["extensions"] as? [[String: Any]])
        #expect(exts.map { $0["name"] as? String } == ["basicConstraints", "keyUsage", "extKeyUsage", "subjectKeyIdentifier", "authorityKeyIdentifier"])
    }

    @Test func decodeDERFileAsText() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("root01-\(UUID().uuidString).der")
        try Data(Self.root01.hex("der")!).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try matterctl("cert", "decode", file.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Type:            RCAC"))
        #expect(r.stdout.contains("matter-rcac-id=CACACACA00000001"))
        #expect(r.stdout.contains("basicConstraints (critical): CA:TRUE"))
        #expect(r.stdout.contains("keyUsage (critical): keyCertSign, cRLSign"))
    }

    @Test func convertBothWaysWithPEMAndHexInput() throws {
        let toDER = try matterctl("cert", "convert", Self.root01.string("chip_tlv")!, "--to", "der")
        #expect(toDER.status == 0)
        #expect(toDER.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == Self.root01.string("der"))

        let pem = "-----BEGIN CERTIFICATE-----\n" + Data(Self.root01.hex("der")!).base64EncodedString(options: .lineLength64Characters)
            + "\n-----END CERTIFICATE-----\n"
        let pemFile = FileManager.default.temporaryDirectory.appendingPathComponent("root01-\(UUID().uuidString).pem")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("root01-\(UUID().uuidString).tlv")
        try pem.write(to: pemFile, atomically: true, encoding: .utf8)
        defer {
            try? FileManager.default.removeItem(at: pemFile)
            try? FileManager.default.removeItem(at: out)
        }
        let toTLV = try matterctl("cert", "convert", pemFile.path, "--to", "tlv", "--out", out.path)
        #expect(toTLV.status == 0, "\(toTLV.stderr)")
        #expect(Array(try Data(contentsOf: out)) == Self.root01.hex("chip_tlv")!)
    }

    @Test func textFilesInHexAndBase64() throws {
        let dir = FileManager.default.temporaryDirectory
        let hexFile = dir.appendingPathComponent("root01-\(UUID().uuidString).hex")
        let b64File = dir.appendingPathComponent("root01-\(UUID().uuidString).chip-b64")
        try ("0x" + Self.root01.string("chip_tlv")! + "\n").write(to: hexFile, atomically: true, encoding: .utf8)
        try Data(Self.root01.hex("chip_tlv")!).base64EncodedString().write(to: b64File, atomically: true, encoding: .utf8)
        defer {
            try? FileManager.default.removeItem(at: hexFile)
            try? FileManager.default.removeItem(at: b64File)
        }
        for file in [hexFile, b64File] {
            let r = try matterctl("cert", "convert", file.path, "--to", "der")
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == Self.root01.string("der"))
        }
    }

    @Test func malformedCertificateExitsOneNamingTheDefect() throws {
        let bad = try #require(TestVectors.vectors("matter_certs.json").first { $0.id == "certerr-rcac-sig-curve-secp256k1-der" })
        let r = try matterctl("cert", "convert", bad.string("bytes")!, "--to", "tlv")
        #expect(r.status == 1)
        #expect(r.stderr.contains("curve"))
        #expect(r.stdout.isEmpty)
        let d = try matterctl("cert", "decode", "15300108")
        #expect(d.status == 1)
        #expect(d.stderr.hasPrefix("error: invalid certificate"))
    }

    @Test func usageErrorsExit64() throws {
        #expect(try matterctl("cert").status == 64)
        #expect(try matterctl("cert", "convert", "1530").status == 64)  // no --to
        #expect(try matterctl("cert", "convert", "1530", "--to", "pem").status == 64)
        #expect(try matterctl("cert", "decode", "--bogus", "1530").status == 64)
        let help = try matterctl("cert", "--help")
        #expect(help.status == 0)
        #expect(help.stdout.contains("\n  convert "))
        #expect(try matterctl("cert", "convert", "--help").stdout.contains("USAGE: matterctl cert convert <certificate> --to FORMAT"))
    }
}
