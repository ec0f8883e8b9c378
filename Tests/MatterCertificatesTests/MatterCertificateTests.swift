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
        // Certificates without key identifiers (network identities) list them as "" or null.
        #expect((fromTLV.subjectKeyIdentifier.map(hexString) ?? "") == (v.string("subject_key_id") ?? ""))
        #expect((fromTLV.authorityKeyIdentifier.map(hexString) ?? "") == (v.string("authority_key_id") ?? ""))
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
        if subject == [["CN", "*"]] {
            #expect(type == .networkIdentity)
            try MatterCertificateValidator.validateNetworkIdentity(cert)
        }
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

    @Test func sizeLimitsApplyToBothForms() throws {
        // Short extra attributes grow the DER form faster than the TLV form: a certificate can
        // fit 400 TLV bytes but not 600 DER bytes, and then has no verifiable form.
        let base = try MatterCertificate(tlvEncoded: try #require(Self.byName("Node02_01")?.hex("chip_tlv")))
        var big = base
        big.subject = MatterDistinguishedName(base.subject.attributes + (0..<8).map { _ in try! .commonName("a") })
        #expect(big.tlvEncoded.count <= MatterCertificate.maxTLVLength)
        #expect(throws: CertificateError.self) { try big.derEncoded() }
        #expect(throws: CertificateError.self) { try MatterCertificate(tlvEncoded: big.tlvEncoded) }
        #expect(throws: CertificateError.certificateTooLarge(size: 401, limit: 400)) {
            try MatterCertificate(tlvEncoded: [UInt8](repeating: 0x15, count: 401))
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

/// Network client identities (PDC, Matter Core 11.24) and their compact TLV form.
@Suite("Network identity")
struct NetworkIdentityTests {
    /// sTestCert_PDCID01_ChipCompact, project-chip/connectedhomeip
    /// src/credentials/tests/CHIPCert_test_vectors.cpp (as quoted in src/tools/chip-cert/tests).
    static let pdcid01Compact = Hex.decode(
        "153009410439ccd4ac7e5968bdf1b080111d92536494fc51624c70aa6d7308daedf3a15e3869"
            + "177b1bf3d09047ebf06be8dd17be23f2fb3d6390c6cf82802f62d05362c008300b40384c1bd0"
            + "8fe4caa0460791660d82145dfbfe97d314d15e000d75c073af5d7c7ecc1a01852126184ad9"
            + "ebec809b4c78fff381fe324baf881cc8249e169259bd5a18")!

    @Test func compactVectorExpandsAndItsSelfSignatureVerifies() throws {
        let cert = try MatterCertificate(tlvEncoded: Self.pdcid01Compact)
        #expect(try cert.certificateType() == .networkIdentity)
        #expect(cert.hasNetworkIdentityProfile)
        // The signature covers the DER we rebuild from the fixed fields: it verifies only if that
        // reconstruction is byte-exact.
        try MatterCertificateValidator.validateNetworkIdentity(cert)
        #expect(cert.compactNetworkIdentityTLV == Self.pdcid01Compact)
        let der = try cert.derEncoded()
        let back = try MatterCertificate(derEncoded: der)
        #expect(back == cert)
        #expect(back.compactNetworkIdentityTLV == Self.pdcid01Compact)
        #expect(try MatterCertificate(tlvEncoded: cert.tlvEncoded) == cert)  // the full TLV form too
        let text = try OpenSSL.run(["x509", "-inform", "DER", "-noout", "-subject", "-dates"], input: der)
        #expect(text.output.contains("CN = *"))
        #expect(text.output.contains("notAfter=Dec 31 23:59:59 9999 GMT"))
    }

    @Test func tamperedOrMalformedIdentitiesFail() throws {
        var tampered = Self.pdcid01Compact
        tampered[tampered.count - 5] ^= 0xFF
        #expect(throws: CertificateError.self) {
            try MatterCertificateValidator.validateNetworkIdentity(MatterCertificate(tlvEncoded: tampered))
        }
        // Extra field after the signature; signature before the key; short key.
        var extra = Array(Self.pdcid01Compact.dropLast())
        extra += [0x24, 0x0C, 0x01, 0x18]
        #expect(throws: CertificateError.self) { try MatterCertificate(tlvEncoded: extra) }
        #expect(throws: CertificateError.self) { try MatterCertificate(tlvEncoded: [0x15, 0x30, 0x09, 0x01, 0x04, 0x18]) }
        // A CN=* certificate with other fields is not an identity.
        var ca = try MatterCertificate(tlvEncoded: Self.pdcid01Compact)
        ca.extensions = [.basicConstraints(BasicConstraints(isCA: true)), .keyUsage(.keyCertSign)]
        #expect(ca.compactNetworkIdentityTLV == nil)
        #expect(throws: CertificateError.self) { try MatterCertificateValidator.validateNetworkIdentity(ca) }
    }
}
