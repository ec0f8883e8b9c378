import MatterCertificates
import MatterCrypto
import Testing
import TestSupport

/// Certification declarations: the CMS envelope, the TLV content and the signature.
@Suite struct CertificationDeclarationTests {
    static let vectors = TestVectors.vectors("attestation/certification_declarations.json")

    @Test(arguments: vectors)
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        if let path = v.string("file") {
            #expect(try AttestationFixtures.file(path) == v.hex("cms"), "file and vector disagree")
        }
        if let cmsBytes = v.hex("cms") {
            let cd = try CertificationDeclaration(cms: cmsBytes)
            if let econtent = v.hex("econtent") { #expect(cd.content == econtent) }
            if let skid = v.hex("signer_key_id") { #expect(cd.signerKeyIdentifier == skid) }
            if let sig = v.hex("signature_der") { #expect(cd.signatureDER == sig) }
            if let keyBytes = v.hex("signer_public_key") {
                #expect(cd.isSignatureValid(publicKey: try P256PublicKey(x962Representation: keyBytes)))
            }
            let trusted = CDSigningKeyStore.csa.key(forSubjectKeyIdentifier: cd.signerKeyIdentifier)
            if v.valid {
                let key = try #require(trusted, "a valid CD is signed by a CSA key")
                #expect(cd.isSignatureValid(publicKey: key.publicKey))
                let elements = try cd.elements()
                try check(elements, against: v.object("expected_elements"))
            } else if v.string("expected_error") == "untrusted_cd_signer" {
                #expect(trusted == nil)
            } else {
                #expect(throws: CertificateError.self) { try cd.elements() }
            }
        } else {
            let content = try #require(v.hex("econtent"))
            if v.valid {
                _ = try CertificationElements(tlv: content)
            } else {
                #expect(throws: CertificateError.self) { try CertificationElements(tlv: content) }
            }
        }
    }

    private func check(_ e: CertificationElements, against expected: [String: Any]?) throws {
        guard let x = expected else { return }
        func int(_ k: String) -> Int? { x[k] as? Int }
        #expect(Int(e.formatVersion) == int("format_version"))
        #expect(Int(e.vendorID) == int("vendor_id"))
        #expect(e.productIDs.map(Int.init) == (x["product_ids"] as? [Int]))
        #expect(Int(e.deviceTypeID) == int("device_type_id"))
        #expect(e.certificateID == x["certificate_id"] as? String)
        #expect(Int(e.securityLevel) == int("security_level"))
        #expect(Int(e.securityInformation) == int("security_information"))
        #expect(Int(e.versionNumber) == int("version_number"))
        #expect(Int(e.certificationType) == int("certification_type"))
        #expect((e.dacOriginVendorID != nil) == (x["dac_origin_vid_pid_present"] as? Bool))
        #expect(e.dacOriginVendorID.map(Int.init) == int("dac_origin_vendor_id"))
        #expect(e.dacOriginProductID.map(Int.init) == int("dac_origin_product_id"))
        #expect(try CertificationElements(tlv: e.tlvEncoded) == e)
    }

    /// The embedded CSA signing certificates are the files in cd-certs/, and the production
    /// keys are issued by the CSA root.
    @Test func embeddedCSACertificatesMatchTheFiles() throws {
        let store = CDSigningKeyStore.csa
        #expect(store.keys.count == 6)
        #expect(store.keys.filter(\.isTestKey).count == 1)
        var fromFiles = CDSigningKeyStore()
        for i in 1...5 {
            try fromFiles.addCSAIssued(certificateDER: try AttestationFixtures.file("attestation/cd-certs/CSA_Matter_CD_Signing_Key_00\(i).cert.der"))
        }
        try fromFiles.add(certificateDER: try AttestationFixtures.file("attestation/cd-certs/Chip-Test-CD-Cert.der"), isTestKey: true)
        #expect(fromFiles.keys == store.keys)
        let root = try #require(CDSigningKeyStore.csaRootCertificate)
        #expect(root.derBytes == (try AttestationFixtures.file("attestation/cd-certs/CSA_Matter_Certificate_and_Testing_Root.cert.der")))
        // The test signer is self-signed, not issued by the CSA root.
        #expect(throws: CertificateError.self) {
            try fromFiles.addCSAIssued(certificateDER: try AttestationFixtures.file("attestation/cd-certs/Chip-Test-CD-Cert.der"))
        }
    }

    @Test func flippedSignatureByteFailsVerification() throws {
        let v = try #require(Self.vectors.first { $0.valid && $0.hex("cms") != nil })
        var bytes = try #require(v.hex("cms"))
        bytes[bytes.count - 3] ^= 0x01
        let cd = try CertificationDeclaration(cms: bytes)
        let key = try #require(CDSigningKeyStore.csa.key(forSubjectKeyIdentifier: cd.signerKeyIdentifier))
        #expect(!cd.isSignatureValid(publicKey: key.publicKey))
    }

    @Test(arguments: [
        ("0201", "not a sequence"),
        ("3000", "empty ContentInfo"),
        ("300b06092a864886f70d010701", "data, not signedData"),
        ("3010" + "06092a864886f70d010702" + "a003" + "020103", "SignedData is not a sequence"),
    ])
    func malformedEnvelope(_ hex: String, _ why: String) throws {
        let bytes = try #require(Hex.decode(hex))
        #expect(throws: CertificateError.self, "\(why)") { try CertificationDeclaration(cms: bytes) }
    }

    @Test func oversizedEnvelope() {
        #expect(throws: CertificateError.self) { try CertificationDeclaration(cms: [UInt8](repeating: 0x30, count: 901)) }
    }

    @Test func emptyAuthorizedPAAListIsKeptEmpty() throws {
        let e = CertificationElements(vendorID: 0xFFF1, productIDs: [0x8000], deviceTypeID: 0x16,
                                      certificateID: "ZIG20141ZB330001-24", versionNumber: 1,
                                      certificationType: 0, authorizedPAAs: [])
        let decoded = try CertificationElements(tlv: e.tlvEncoded)
        #expect(decoded.authorizedPAAs == [])
    }

    /// The largest CD the SDK allows (100 PIDs, DAC origin, 10 authorized PAAs), signed with the
    /// CSA test key, fits an attestation response and verifies.
    @Test func signLargestCDWithTheTestKey() throws {
        let pem = String(decoding: try AttestationFixtures.file("attestation/certification-declaration/Chip-Test-CD-Signing-Key.pem"), as: UTF8.self)
        let key = try P256PrivateKey(pemRepresentation: pem)
        let csaTestKey = CDSigningKeyStore.csa.keys.first { $0.isTestKey }
        let testKey = try #require(csaTestKey)
        #expect(key.publicKey == testKey.publicKey)
        let content = CertificationElements(vendorID: 0xFFF1, productIDs: (0..<100).map { 0x8000 + UInt16($0) },
                                            deviceTypeID: 0x0016, certificateID: "ZIG20141ZB330001-24",
                                            versionNumber: 0x2694, certificationType: 0,
                                            dacOriginVendorID: 0xFFF1, dacOriginProductID: 0x8000,
                                            authorizedPAAs: (0..<10).map { [UInt8](repeating: UInt8($0), count: 20) })
        let cd = try CertificationDeclaration(signing: content, signerKeyIdentifier: testKey.subjectKeyIdentifier, privateKey: key)
        #expect(cd.cmsBytes.count <= CertificationDeclaration.maxLength)
        let parsed = try CertificationDeclaration(cms: cd.cmsBytes)
        #expect(parsed.isSignatureValid(publicKey: testKey.publicKey))
        #expect(try parsed.elements() == content)
        let elements = AttestationElements(certificationDeclaration: cd.cmsBytes,
                                           attestationNonce: [UInt8](repeating: 1, count: 32), timestamp: 0)
        #expect(elements.tlvEncoded.count <= AttestationElements.maxLength)
    }

    /// Mutated CMS and content decode or throw; they never trap.
    @Test func seededMutations() throws {
        let v = try #require(Self.vectors.first { $0.valid && $0.hex("cms") != nil })
        let cms = try #require(v.hex("cms"))
        let content = try #require(v.hex("econtent"))
        var rng = SeededRandom(seed: 0xCD)
        for _ in 0..<2000 {
            if let cd = try? CertificationDeclaration(cms: Mutation.mutate(cms, using: &rng)) { _ = try? cd.elements() }
            _ = try? CertificationElements(tlv: Mutation.mutate(content, using: &rng))
        }
    }
}
