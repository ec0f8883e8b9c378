import Foundation
import Testing
import TestSupport

/// `matterctl cert verify` on matter_certs.json: the SDK's valid chains verify (exit 0), every
/// malformed certificate whose must_fail lists ValidateChipRCAC is refused (exit 1), and usage
/// mistakes exit 64.
@Suite struct CertVerifyCommandTests {
    static let vectors = TestVectors.vectors("matter_certs.json")
    static func named(_ name: String) -> Vector? { vectors.first { $0.string("name") == name } }

    func matterctl(_ args: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(ProcessRunner.matterctl, ["cert", "verify"] + args)
    }

    /// Node02_07 carries a critical subjectAltName (a "future extension" to the SDK), which the
    /// SDK's ValidateCert refuses (CHIP_ERROR_CERT_USAGE_NOT_ALLOWED): well formed, not a valid chain.
    static let criticalFutureExtension = "Node02_07"

    /// Each valid RCAC, ICAC and NOC whose issuers are in the file, in alternating encodings.
    static let valid: [Vector] = vectors.filter { v in
        let name = v.string("name") ?? ""
        let issuer = v.string("issuer_cert") ?? ""
        return v.bool("valid") == true && !name.hasPrefix("FWSign") && !name.hasPrefix("PDC") && name != criticalFutureExtension
            && named(issuer) != nil && (!issuer.hasPrefix("ICA") || named(named(issuer)?.string("issuer_cert") ?? "") != nil)
    }

    @Test func aCriticalFutureExtensionIsRefusedAsTheSDKDoes() throws {
        let noc = try #require(Self.named(Self.criticalFutureExtension))
        let ica = try #require(Self.named("ICA02")), root = try #require(Self.named("Root02"))
        let r = try matterctl([noc.string("der") ?? "", "--chain", ica.string("der") ?? "", "--root", root.string("der") ?? ""])
        #expect(r.status == 1)
        #expect(r.stderr.contains("unsupported_critical_extension"), "\(r.stderr)")
    }

    @Test(arguments: valid)
    func validCertificateVerifies(_ v: Vector) throws {
        let name = try #require(v.string("name"))
        var args = [try #require(v.string(name.count % 2 == 0 ? "der" : "chip_tlv"))]
        if name.hasPrefix("Root") {
            args += ["--as", "rcac"]
        } else {
            // Walk up: the issuer, and its issuer when the issuer is an ICA.
            let issuerName = v.string("issuer_cert") ?? "?"
            let issuer = try #require(Self.named(issuerName), "issuer of \(name)")
            if issuerName.hasPrefix("ICA") {
                let root = try #require(Self.named(issuer.string("issuer_cert") ?? "?"))
                args += ["--chain", issuer.string("chip_tlv") ?? "", "--root", root.string("der") ?? ""]
            } else {
                args += ["--root", issuer.string("chip_tlv") ?? ""]
            }
        }
        args += ["--at", "2026-01-01T00:00:00Z"]
        let r = try matterctl(args)
        #expect(r.status == 0, "\(name): \(r.stderr)")
        #expect(r.stdout.hasPrefix("valid "), "\(name): \(r.stdout)")
    }

    static let mustFailRCAC: [Vector] = vectors.filter { v in
        v.bool("valid") == false && ((v["must_fail"] as? [[String: Any]]) ?? []).contains { $0["op"] as? String == "ValidateChipRCAC" }
    }

    @Test(arguments: mustFailRCAC)
    func malformedCertificateIsRefusedAsRCAC(_ v: Vector) throws {
        let r = try matterctl([try #require(v.string("bytes")), "--as", "rcac", "--json"])
        #expect(r.status == 1, "\(v.id): \(r.stdout) \(r.stderr)")
        #expect(r.stderr.contains("error: invalid"), "\(v.id): \(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect(json?["valid"] as? Bool == false)
        #expect((json?["rule"] as? String)?.isEmpty == false)
    }

    @Test func countsMatchTheVectorFile() {
        #expect(Self.mustFailRCAC.count == 64)
        #expect(Self.valid.count == 11)
    }

    @Test func aNOCWithTheWrongRootNamesTheRule() throws {
        let noc = try #require(Self.named("Node01_02"))
        let otherRoot = try #require(Self.named("Root02"))
        let r = try matterctl([try #require(noc.string("der")), "--root", try #require(otherRoot.string("der"))])
        #expect(r.status == 1)
        #expect(r.stderr.contains("issuer"), "\(r.stderr)")
    }

    @Test func expiredAtTheGivenTime() throws {
        let root = try #require(Self.named("Root01"))
        let r = try matterctl([try #require(root.string("der")), "--at", "2045-01-01T00:00:00Z"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("expired"), "\(r.stderr)")
    }

    @Test func usageErrorsExit64() throws {
        let noc = try #require(Self.named("Node01_02"))
        #expect(try matterctl([try #require(noc.string("der"))]).status == 64)  // a NOC needs --root
        #expect(try matterctl([try #require(noc.string("der")), "--as", "pai"]).status == 64)
        #expect(try matterctl([]).status == 64)
        #expect(try matterctl(["00", "--at", "yesterday"]).status == 64)
    }
}
