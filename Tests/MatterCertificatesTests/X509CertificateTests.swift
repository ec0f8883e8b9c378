import Foundation
import Testing
import TestSupport
@testable import MatterCertificates

/// Parses the DER form of every valid Matter certificate vector and compares with the
/// independently produced `x509_summary`.
@Suite("X509Certificate")
struct X509CertificateTests {
    static let valid = TestVectors.vectors("matter_certs.json") { $0.valid }

    static let attributeNames: [String: ASN1ObjectIdentifier] = [
        "matter-node-id": .matterDN(1), "matter-firmware-signing-id": .matterDN(2), "matter-icac-id": .matterDN(3),
        "matter-rcac-id": .matterDN(4), "matter-fabric-id": .matterDN(5), "matter-noc-cat": .matterDN(6),
        "CN": ASN1ObjectIdentifier([2, 5, 4, 3]),
    ]

    @Test(arguments: valid)
    func parsesValidCertificate(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let der = try #require(v.hex("der"))
        let cert = try X509Certificate(derEncoded: der)
        let summary = try #require(v.object("x509_summary"))
        // serial_hex is the integer's value: compare without leading zero digits.
        let serial = String(hexString(cert.serialNumber).drop { $0 == "0" })
        #expect(serial == summary["serial_hex"] as? String)
        #expect(cert.notBefore.iso8601 == summary["not_before"] as? String)
        #expect(cert.notAfter.iso8601 == summary["not_after"] as? String)
        #expect(try hexString(cert.subjectPublicKeyInfo.p256PublicKey()) == v.string("public_key"))
        #expect(cert.signatureAlgorithm.algorithm.dotted == summary["signature_algorithm_oid"] as? String)
        #expect((cert.subjectKeyIdentifier.map(hexString) ?? "") == (v.string("subject_key_id") ?? ""))
        #expect((cert.authorityKeyIdentifier?.keyIdentifier.map(hexString) ?? "") == (v.string("authority_key_id") ?? ""))
        #expect(hexString(try ECDSASignatureEncoding.rawFromDER(cert.signature)) == v.string("signature_raw"))
        #expect(try ECDSASignatureEncoding.derFromRaw(ECDSASignatureEncoding.rawFromDER(cert.signature)) == cert.signature)
        for (name, list) in [("subject", cert.subject), ("issuer", cert.issuer)] {
            let expected = try #require(summary[name] as? [[String]])
            let got = list.attributes.map { attr in
                [Self.attributeNames.first { $0.value == attr.type }?.key ?? attr.type.dotted, attr.stringValue ?? "?"]
            }
            #expect(got == expected, "\(name)")
        }
        // tbsCertificate is the first element of the certificate, byte for byte.
        #expect(Array(der[4..<(4 + cert.tbsBytes.count)]) == cert.tbsBytes)
        let ext = try #require(summary["extensions"] as? [String: Any])
        if let bc = ext["basic_constraints"] as? [String: Any] {
            #expect(cert.basicConstraints?.isCA == bc["ca"] as? Bool)
            #expect(cert.basicConstraints?.pathLengthConstraint == bc["path_len"] as? Int)
            #expect(cert.extension(.basicConstraints)?.isCritical == bc["critical"] as? Bool)
        }
    }

    @Test func rejectsVersion1AndMismatchedAlgorithms() throws {
        let der = try #require(Self.valid.first?.hex("der"))
        // Replace the outer signatureAlgorithm with ecdsa-with-SHA1 (1.2.840.10045.4.1).
        let cert = try X509Certificate(derEncoded: der)
        let sha1 = DERWriter.sequence([DERWriter.objectIdentifier(ASN1ObjectIdentifier([1, 2, 840, 10045, 4, 1]))])
        let forged = DERWriter.sequence([cert.tbsBytes, sha1, DERWriter.bitString(cert.signature)])
        #expect(throws: CertificateError.self) { try X509Certificate(derEncoded: forged) }
    }
}

/// The X.509 parser against the 310 published attestation certificates (PAA, PAI, DAC, CD
/// signers) and the independent parse in attestation_certs.json.
@Suite("X509Certificate on attestation certificates")
struct X509AttestationCertificateTests {
    static let vectors = TestVectors.vectors("attestation/attestation_certs.json")

    static let names: [String: ASN1ObjectIdentifier] = [
        "CN": ASN1ObjectIdentifier([2, 5, 4, 3]), "O": ASN1ObjectIdentifier([2, 5, 4, 10]),
        "C": ASN1ObjectIdentifier([2, 5, 4, 6]), "serialNumber": ASN1ObjectIdentifier([2, 5, 4, 5]),
        "matter-vid": .matterAttestationDN(1), "matter-pid": .matterAttestationDN(2),
    ]

    @Test func hasVectors() { #expect(Self.vectors.count >= 300) }

    @Test(arguments: vectors)
    func parses(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let path = try #require(v.string("file"))
        let der = Array(try Data(contentsOf: TestVectors.directory.appendingPathComponent(path)))
        let summary = try #require(v.object("x509_summary"))
        let extensions = try #require(summary["extensions"] as? [String: Any])
        if extensions["parse_error"] != nil {
            // The reference library refused the extensions (e.g. a repeated extension, which
            // RFC 5280 4.2 forbids); so do we.
            #expect(throws: CertificateError.self) { try X509Certificate(derEncoded: der) }
            return
        }
        let cert = try X509Certificate(derEncoded: der)
        #expect(cert.derBytes == der)
        #expect(String(hexString(cert.serialNumber).drop { $0 == "0" }) == (summary["serial_hex"] as? String).map { String($0.drop { $0 == "0" }) })
        #expect(cert.notBefore.iso8601 == summary["not_before"] as? String)
        #expect(cert.notAfter.iso8601 == summary["not_after"] as? String)
        #expect(hexString(cert.subjectPublicKeyInfo.publicKey) == summary["public_key"] as? String)
        #expect(cert.signatureAlgorithm.algorithm.dotted == summary["signature_algorithm_oid"] as? String)
        for (field, name) in [("subject", cert.subject), ("issuer", cert.issuer)] {
            let expected = try #require(summary[field] as? [[String]])
            let got = name.attributes.map { a in [Self.names.first { $0.value == a.type }?.key ?? a.type.dotted, a.stringValue ?? "?"] }
            #expect(got == expected, "\(field)")
        }
        if let bc = extensions["basic_constraints"] as? [String: Any] {
            #expect(cert.basicConstraints?.isCA == bc["ca"] as? Bool)
            #expect(cert.basicConstraints?.pathLengthConstraint == bc["path_len"] as? Int)
            #expect(cert.extension(.basicConstraints)?.isCritical == bc["critical"] as? Bool)
        } else {
            #expect(cert.basicConstraints == nil)
        }
        if let ku = extensions["key_usage"] as? [String: Any] {
            let flags = (ku["flags"] as? [String] ?? []).map { $0.replacingOccurrences(of: "_", with: "") }.sorted()
            #expect(cert.keyUsage?.names.map { $0.lowercased() }.sorted() == flags)
        }
        #expect(cert.subjectKeyIdentifier.map(hexString) == extensions["subject_key_id"] as? String)
        #expect(cert.authorityKeyIdentifier?.keyIdentifier.map(hexString) == extensions["authority_key_id"] as? String)
        // The tbsCertificate bytes are a slice of the input, and the whole is three elements.
        #expect(der.indices.contains { der[$0...].starts(with: cert.tbsBytes) })
    }
}
