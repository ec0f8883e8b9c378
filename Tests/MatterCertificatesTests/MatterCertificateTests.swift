import Foundation
import MatterTLV
import Testing
import TestSupport
@testable import MatterCertificates

/// matter_certs.json: the valid certificates convert byte-exactly in both directions and their
/// signatures verify; every malformed certificate fails each operation its `must_fail` lists.
@Suite("MatterCertificate")
struct MatterCertificateTests {
    static let all = TestVectors.vectors("matter_certs.json")
    static let valid = all.filter { $0.valid }
    static let invalid = all.filter { !$0.valid }

    static func byName(_ name: String) -> Vector? { valid.first { $0.string("name") == name } }

    @Test func vectorFileLoaded() {
        #expect(Self.all.count >= 100)
        #expect(Self.all.allSatisfy { $0.loadError == nil })
    }

    @Test(arguments: valid)
    func convertsBothWays(_ v: Vector) throws {
        let der = try #require(v.hex("der"))
        let tlv = try #require(v.hex("chip_tlv"))
        let fromTLV = try MatterCertificate(tlvEncoded: tlv)
        let fromDER = try MatterCertificate(derEncoded: der)
        #expect(fromTLV == fromDER)
        #expect(fromTLV.tlvEncoded == tlv)
        #expect(try fromTLV.derEncoded() == der)
        #expect(fromDER.tlvEncoded == tlv)
        #expect(hexString(fromTLV.publicKey) == v.string("public_key"))
        #expect(hexString(fromTLV.signature) == v.string("signature_raw"))
        #expect(fromTLV.subjectKeyIdentifier.map(hexString) == v.string("subject_key_id"))
        #expect(fromTLV.authorityKeyIdentifier.map(hexString) == v.string("authority_key_id"))
        #expect(try MatterCertificate(anyEncoding: der) == fromTLV)
    }

    @Test(arguments: valid)
    func signatureVerifiesWithIssuer(_ v: Vector) throws {
        let cert = try MatterCertificate(tlvEncoded: try #require(v.hex("chip_tlv")))
        let issuerName = try #require(v.string("issuer_cert"))
        // Some issuers (e.g. ICA01) are not in the file; their children cannot be checked here.
        guard let issuer = Self.byName(issuerName) else { return }
        let issuerKey = try #require(issuer.hex("public_key"))
        if v.bool("signature_verifies_with_issuer_key") == true {
            try MatterCertificateValidator.verifySignature(of: cert, issuerKey: issuerKey)
        }
        // A flipped signature bit must not verify.
        var bad = cert
        bad.signature[10] ^= 0x01
        #expect(throws: CertificateError.self) { try MatterCertificateValidator.verifySignature(of: bad, issuerKey: issuerKey) }
    }

    @Test(arguments: valid)
    func certificateTypeIsDerivable(_ v: Vector) throws {
        let cert = try MatterCertificate(tlvEncoded: try #require(v.hex("chip_tlv")))
        let type = try cert.certificateType()
        let subject = try #require(v.object("x509_summary")?["subject"] as? [[String]])
        let kinds = subject.map { $0[0] }
        if kinds.contains("matter-rcac-id") { #expect(type == .root) }
        if kinds.contains("matter-icac-id") { #expect(type == .intermediate) }
        if kinds.contains("matter-node-id") { #expect(type == .node) }
        if kinds.contains("matter-firmware-signing-id") { #expect(type == .firmwareSigning) }
        if type == .root { try MatterCertificateValidator.validateRoot(cert) }
    }

    /// Each operation named in `must_fail` has to fail; GetCertType-only vectors must still load.
    @Test(arguments: invalid)
    func malformedCertificateIsRejected(_ v: Vector) throws {
        let bytes = try #require(v.hex("bytes"))
        let ops = (v["must_fail"] as? [[String: Any]] ?? []).compactMap { $0["op"] as? String }
        #expect(!ops.isEmpty, "vector lists no operation that must fail")
        for op in ops {
            switch op {
            case "X509ToChip":
                #expect(throws: CertificateError.self, "X509ToChip") { try MatterCertificate(derEncoded: bytes) }
            case "ChipToX509":
                #expect(throws: CertificateError.self, "ChipToX509") { try MatterCertificate(tlvEncoded: bytes).derEncoded() }
            case "ChipCertLoad":
                #expect(throws: CertificateError.self, "ChipCertLoad") { try MatterCertificate(tlvEncoded: bytes) }
            case "ValidateChipRCAC":
                #expect(throws: CertificateError.self, "ValidateChipRCAC") { try MatterCertificateValidator.validateRoot(encoded: bytes) }
            case "GetCertType":
                if !ops.contains("ChipCertLoad") && v.string("encoding") == "chip_tlv" {
                    let cert = try MatterCertificate(tlvEncoded: bytes)  // the certificate loads...
                    #expect(throws: CertificateError.self, "GetCertType") { try cert.certificateType() }  // ...but has no usable type
                } else {
                    #expect(throws: CertificateError.self, "GetCertType") { try MatterCertificate(anyEncoding: bytes).certificateType() }
                }
            default:
                Issue.record("unknown must_fail operation \(op)")
            }
        }
    }

    @Test func operationalCertificateFilesMatch() throws {
        // Chip-Test-*-Cert.chip-b64 (TLV, base64) and .pem (X.509) are the same certificate.
        for name in ["Chip-Test-Root01-Cert", "Chip-Test-ICA02-Cert"] {
            let dir = TestVectors.directory.appendingPathComponent("attestation/operational-certificates")
            let b64 = try String(contentsOf: dir.appendingPathComponent(name + ".chip-b64"), encoding: .utf8)
            let tlv = try #require(Data(base64Encoded: b64.trimmingCharacters(in: .whitespacesAndNewlines)))
            let pem = try String(contentsOf: dir.appendingPathComponent(name + ".pem"), encoding: .utf8)
            let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            let der = try #require(Data(base64Encoded: body))
            let cert = try MatterCertificate(tlvEncoded: Array(tlv))
            #expect(try cert.derEncoded() == Array(der))
            #expect(try MatterCertificate(derEncoded: Array(der)).tlvEncoded == Array(tlv))
        }
    }

    @Test func seededMutationNeverTraps() throws {
        let seeds = Self.valid.compactMap { $0.hex("chip_tlv") } + Self.invalid.filter { $0.string("encoding") == "chip_tlv" }.compactMap { $0.hex("bytes") }
        var rng = SeededRandom(seed: 0x7C1)
        var decoded = 0
        for i in 0..<20_000 {
            let input = Mutation.mutate(seeds[i % seeds.count], using: &rng)
            if let cert = try? MatterCertificate(tlvEncoded: input) {
                decoded += 1
                // Whatever decodes must convert to DER and back to itself.
                let der = try cert.derEncoded()
                #expect(try MatterCertificate(derEncoded: der) == cert)
            }
        }
        #expect(decoded > 0)
    }

    @Test func derMutationNeverTraps() throws {
        let seeds = Self.valid.compactMap { $0.hex("der") }
        var rng = SeededRandom(seed: 0xD3C)
        for i in 0..<10_000 {
            let input = Mutation.mutate(seeds[i % seeds.count], using: &rng)
            if let cert = try? MatterCertificate(derEncoded: input) {
                #expect(try cert.derEncoded() == input)
            }
        }
    }
}
