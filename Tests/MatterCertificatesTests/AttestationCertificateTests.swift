import MatterCertificates
import MatterCrypto
import Testing
import TestSupport

/// The SDK's PAA/PAI/DAC/CD-signer files: what attestation reads from each certificate.
@Suite struct AttestationCertificateTests {
    static let vectors = TestVectors.vectors("attestation/attestation_certs.json")

    @Test(arguments: vectors)
    func certificate(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let path = try #require(v.string("file"))
        let der = try AttestationFixtures.file(path)
        #expect(Hex.encode(SHA256.hash(der)) == v.string("sha256"))
        let summary = try #require(v.object("x509_summary"))
        let extensions = summary["extensions"] as? [String: Any] ?? [:]

        if let parseError = extensions["parse_error"] as? String {
            // Deliberately malformed files (e.g. a repeated extension) must be refused.
            #expect(throws: CertificateError.self, "\(parseError)") { try X509Certificate(derEncoded: der) }
            return
        }
        let cert = try X509Certificate(derEncoded: der)

        #expect(Hex.encode(cert.serialNumber).hasSuffix(summary["serial_hex"] as? String ?? "?"))
        #expect(cert.notBefore.iso8601 == summary["not_before"] as? String)
        #expect(cert.notAfter.iso8601 == summary["not_after"] as? String)
        #expect(Hex.encode(cert.subjectPublicKeyInfo.publicKey) == summary["public_key"] as? String)
        #expect(cert.signatureAlgorithm.algorithm.dotted == summary["signature_algorithm_oid"] as? String)
        #expect(cert.subjectKeyIdentifier.map(Hex.encode) == extensions["subject_key_id"] as? String)
        #expect(cert.authorityKeyIdentifier?.keyIdentifier.map(Hex.encode) == extensions["authority_key_id"] as? String)
        if let bc = extensions["basic_constraints"] as? [String: Any] {
            #expect(cert.basicConstraints?.isCA == bc["ca"] as? Bool)
            #expect(cert.basicConstraints?.pathLengthConstraint == bc["path_len"] as? Int)
            #expect(cert.extension(.basicConstraints)?.isCritical == bc["critical"] as? Bool)
        }
        if let ku = extensions["key_usage"] as? [String: Any] {
            let names: [String: KeyUsage] = ["digital_signature": .digitalSignature, "key_cert_sign": .keyCertSign,
                                             "crl_sign": .cRLSign, "key_agreement": .keyAgreement,
                                             "key_encipherment": .keyEncipherment, "content_commitment": .nonRepudiation,
                                             "data_encipherment": .dataEncipherment]
            let expected = KeyUsage((ku["flags"] as? [String] ?? []).compactMap { names[$0] })
            #expect(cert.keyUsage == expected)
        }

        // VID/PID as the Matter attributes give them.
        let subject = summary["subject"] as? [[String]] ?? []
        let vid = subject.first { $0.first == "matter-vid" }.flatMap { UInt16($0[1], radix: 16) }
        let pid = subject.first { $0.first == "matter-pid" }.flatMap { UInt16($0[1], radix: 16) }
        if vid != nil || pid != nil {
            let ids = try AttestationVendorProduct(subjectAttributes: cert.subject.attributes.map { ($0.type, $0.value) })
            #expect(ids.vendorID == vid)
            #expect(ids.productID == pid)
        }

        // Issuer signatures over the received tbsCertificate.
        let issuers = (v["verified_issuer_files"] as? [String]) ?? []
        for issuerPath in issuers {
            let issuer = try X509Certificate(derEncoded: try AttestationFixtures.file(issuerPath))
            let key = try P256PublicKey(x962Representation: try issuer.subjectPublicKeyInfo.p256PublicKey())
            #expect(key.isValidSignature(try P256Signature(derRepresentation: cert.signature), for: cert.tbsBytes),
                    "\(issuerPath) signed it")
        }
        if v.bool("self_signed") == true {
            let key = try P256PublicKey(x962Representation: try cert.subjectPublicKeyInfo.p256PublicKey())
            #expect(key.isValidSignature(try P256Signature(derRepresentation: cert.signature), for: cert.tbsBytes))
        }

        // The private key published next to the certificate belongs to it.
        if let privateKey = v.hex("private_key"), v.bool("key_matches_cert") == true {
            let key = try P256PrivateKey(rawRepresentation: privateKey)
            #expect(key.publicKey.x962Representation == cert.subjectPublicKeyInfo.publicKey)
        }

        // The SDK's own PAAs are recognised as test PAAs, by key identifier or test VID.
        if v.string("role_by_name") == "PAA", v.bool("self_signed") == true,
           path.contains("/test-attestation/") || path.contains("/development-attestation/") {
            #expect(AttestationTestCredentials.isTestPAA(cert, vendorID: vid))
        }
    }

    /// A trust store built from the file forms chip-tool reads: DER and PEM; other names ignored.
    @Test func trustStoreFromFiles() throws {
        let dir = "attestation/test-attestation/"
        let files: [(name: String, contents: [UInt8])] = [
            ("Chip-Test-PAA-FFF1-Cert.pem", try AttestationFixtures.file(dir + "Chip-Test-PAA-FFF1-Cert.pem")),
            ("Chip-Test-PAA-NoVID-Cert.der", try AttestationFixtures.file(dir + "Chip-Test-PAA-NoVID-Cert.der")),
            ("README.txt", Array("not a certificate".utf8)),
            ("broken.der", [0x30, 0x03, 0x02, 0x01]),
            ("empty.pem", Array("nothing here".utf8)),
        ]
        let store = PAATrustStore(files: files)
        #expect(store.count == 2)
        #expect(Set(store.skipped.map(\.file)) == ["broken.der", "empty.pem"])
        let fff1 = try #require(Hex.decode("6afd22771f511fecbf1641976710dcdc31a1717e"))
        #expect(store.certificate(forSubjectKeyIdentifier: fff1) != nil)
        #expect(store.certificate(forSubjectKeyIdentifier: [UInt8](repeating: 0, count: 20)) == nil)
        // PEM and DER of the same certificate are one certificate.
        let pem = try AttestationFixtures.file(dir + "Chip-Test-PAA-NoVID-Cert.pem")
        #expect(AttestationPEM.certificates(fromFileContents: pem) == [try AttestationFixtures.file(dir + "Chip-Test-PAA-NoVID-Cert.der")])
    }

    @Test(arguments: [
        ("TWFu", "Man"), ("TWE=", "Ma"), ("TQ==", "M"), ("", ""), ("T W\nF u", "Man"),
    ])
    func base64(_ text: String, _ expected: String) {
        #expect(AttestationPEM.base64Decode(Array(text.utf8)) == Array(expected.utf8))
    }

    @Test(arguments: ["TQ=a", "T*==", "TQ===", "T"])
    func base64Rejects(_ text: String) {
        #expect(AttestationPEM.base64Decode(Array(text.utf8)) == nil)
    }
}

/// VID/PID in subjects: Matter attributes and the common-name fallback (Matter Core 6.2.2.2).
@Suite struct AttestationVendorProductTests {
    private func ids(cn: String? = nil, vid: String? = nil, pid: String? = nil) throws -> AttestationVendorProduct {
        var attrs: [(type: ASN1ObjectIdentifier, value: [UInt8])] = []
        if let cn { attrs.append((AttestationVendorProduct.commonNameAttribute, Array(cn.utf8))) }
        if let vid { attrs.append((AttestationVendorProduct.vendorIDAttribute, Array(vid.utf8))) }
        if let pid { attrs.append((AttestationVendorProduct.productIDAttribute, Array(pid.utf8))) }
        return try AttestationVendorProduct(subjectAttributes: attrs)
    }

    @Test func matterAttributes() throws {
        #expect(try ids(cn: "x", vid: "FFF1", pid: "8000") == AttestationVendorProduct(vendorID: 0xFFF1, productID: 0x8000))
        #expect(try ids(vid: "FFF1") == AttestationVendorProduct(vendorID: 0xFFF1))
    }

    @Test func matterAttributesWinOverTheCommonName() throws {
        #expect(try ids(cn: "DAC Mvid:FFF2 Mpid:8001", vid: "FFF1") == AttestationVendorProduct(vendorID: 0xFFF1))
    }

    @Test(arguments: [
        ("ACME Matter Devel DAC 5CDA9899 Mvid:FFF1 Mpid:00B1", 0xFFF1, 0x00B1),
        ("Mpid:00B1,ACME Matter Devel DAC 5CDA9899,Mvid:FFF1", 0xFFF1, 0x00B1),
        ("ACME Matter Devel DAC 5CDA9899 Mvid:FFF1Mpid:00B1", 0xFFF1, 0x00B1),
        ("Mvid:FFF1 Mvid:ffff Mpid:00B1", 0xFFF1, 0x00B1),
        ("Mvid:fff1 Mvid:FFF1 Mpid:00B1", 0xFFF1, 0x00B1),
    ])
    func fallbackInTheCommonName(_ cn: String, _ vid: Int, _ pid: Int) throws {
        #expect(try ids(cn: cn) == AttestationVendorProduct(vendorID: UInt16(vid), productID: UInt16(pid)))
    }

    @Test(arguments: [
        "ACME Matter Devel DAC Mvid:fff1 Mpid:00B1",  // lowercase hex
        "ACME Mvid:FFF Mpid:00B1",                     // three digits
        "Mvid:FFF1 Mpid:0xB1",                         // not hex
        "Mvid:",                                       // prefix at the end
    ])
    func fallbackErrors(_ cn: String) {
        #expect(throws: CertificateError.self) { try ids(cn: cn) }
    }

    @Test(arguments: [("fff1", nil), ("FFF", nil), ("0xF1", nil), (nil, "80001")] as [(String?, String?)])
    func attributeErrors(_ vid: String?, _ pid: String?) {
        #expect(throws: CertificateError.self) { try ids(vid: vid, pid: pid) }
    }

    @Test func repeatedAttribute() {
        let attrs: [(type: ASN1ObjectIdentifier, value: [UInt8])] = [
            (AttestationVendorProduct.vendorIDAttribute, Array("FFF1".utf8)),
            (AttestationVendorProduct.vendorIDAttribute, Array("FFF1".utf8)),
        ]
        #expect(throws: CertificateError.self) { try AttestationVendorProduct(subjectAttributes: attrs) }
    }

    @Test func noIDs() throws {
        #expect(try ids(cn: "Matter Test PAA") == AttestationVendorProduct())
    }
}

/// PAAs that share a key under different names.
@Suite struct PAATrustStoreTests {
    @Test func sameKeyDifferentNamesPrefersTheIssuerName() throws {
        let dir = "attestation/test-attestation/"
        let noVID = try X509Certificate(derEncoded: try AttestationFixtures.file(dir + "Chip-Test-PAA-NoVID-Cert.der"))
        let resign = try X509Certificate(derEncoded: try AttestationFixtures.file(dir + "Chip-Test-PAA-NoVID-ToResignPAIs-Cert.der"))
        #expect(noVID.subjectKeyIdentifier == resign.subjectKeyIdentifier)
        let store = PAATrustStore(certificates: [noVID, resign])
        let skid = try #require(noVID.subjectKeyIdentifier)
        #expect(store.certificate(forSubjectKeyIdentifier: skid, issuerName: resign.subject.encoded) == resign)
        #expect(store.certificate(forSubjectKeyIdentifier: skid, issuerName: noVID.subject.encoded) == noVID)
        #expect(store.certificate(forSubjectKeyIdentifier: skid) == noVID)
    }
}
