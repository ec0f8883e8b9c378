import MatterCrypto

/// A certification declaration as a device sends it (Matter Core 6.3.2): a CMS SignedData
/// (RFC 5652) in the restricted form Matter allows: version 3, one SHA-256 digest algorithm,
/// pkcs7-data content holding the TLV `CertificationElements`, no certificates, and one
/// SignerInfo that names its signer by subject key identifier and signs the content directly
/// (no signed attributes) with ECDSA P-256 SHA-256.
public struct CertificationDeclaration: Sendable, Hashable {
    public static let signedDataOID = ASN1ObjectIdentifier([1, 2, 840, 113549, 1, 7, 2])
    public static let dataOID = ASN1ObjectIdentifier([1, 2, 840, 113549, 1, 7, 1])
    public static let sha256OID = ASN1ObjectIdentifier([2, 16, 840, 1, 101, 3, 4, 2, 1])

    /// A bound on the CMS: it travels inside attestation_elements, which are at most 900 bytes
    /// (RESP_MAX); the SDK's own bound (183 bytes of envelope plus the largest content, with 100
    /// product IDs and 10 authorized PAAs) is below that.
    public static let maxLength = AttestationElements.maxLength

    /// The whole CMS as received.
    public let cmsBytes: [UInt8]
    /// The eContent: TLV-encoded `CertificationElements`, exactly the signed bytes.
    public let content: [UInt8]
    /// The SignerInfo's subjectKeyIdentifier: which CSA key signed.
    public let signerKeyIdentifier: [UInt8]
    /// The signature as DER Ecdsa-Sig-Value.
    public let signatureDER: [UInt8]

    /// Parses the CMS envelope, checking every fixed field Matter prescribes.
    public init(cms bytes: [UInt8]) throws(CertificateError) {
        guard !bytes.isEmpty, bytes.count <= Self.maxLength else {
            throw .invalidArgument("a certification declaration is 1...\(Self.maxLength) bytes, got \(bytes.count)")
        }
        let contentInfo = try DER.parse(bytes).sequence("ContentInfo")
        guard contentInfo.count == 2 else { throw Self.malformed("ContentInfo needs contentType and content") }
        guard try contentInfo[0].objectIdentifier() == Self.signedDataOID else {
            throw Self.malformed("contentType is not id-signedData")
        }
        let explicit = try contentInfo[1].expect(.context(0, constructed: true), "[0] content")
        guard explicit.children.count == 1 else { throw Self.malformed("[0] content must hold one SignedData") }
        let signedData = try explicit.children[0].sequence("SignedData")
        // version, digestAlgorithms, encapContentInfo, signerInfos: no certificates or CRLs.
        guard signedData.count == 4 else { throw Self.malformed("SignedData must have exactly 4 fields") }
        guard try signedData[0].integer() == 3 else { throw Self.malformed("SignedData version is not 3") }

        let digests = try signedData[1].expect(.set, "digestAlgorithms SET").children
        guard digests.count == 1, try Self.algorithm(digests[0]) == Self.sha256OID else {
            throw Self.malformed("digestAlgorithms must be exactly SHA-256")
        }

        let encap = try signedData[2].sequence("EncapsulatedContentInfo")
        guard encap.count == 2, try encap[0].objectIdentifier() == Self.dataOID else {
            throw Self.malformed("eContentType is not pkcs7-data")
        }
        let eContent = try encap[1].expect(.context(0, constructed: true), "[0] eContent")
        guard eContent.children.count == 1 else { throw Self.malformed("eContent must hold one OCTET STRING") }
        content = try eContent.children[0].octetString()

        let signerInfos = try signedData[3].expect(.set, "signerInfos SET").children
        guard signerInfos.count == 1 else { throw Self.malformed("exactly one SignerInfo is allowed") }
        let signer = try signerInfos[0].sequence("SignerInfo")
        // version, sid [0] SubjectKeyIdentifier, digestAlgorithm, signatureAlgorithm, signature.
        guard signer.count == 5 else { throw Self.malformed("SignerInfo must have exactly 5 fields (no signed attributes)") }
        guard try signer[0].integer() == 3 else { throw Self.malformed("SignerInfo version is not 3") }
        _ = try signer[1].expect(.context(0, constructed: false), "[0] subjectKeyIdentifier")
        signerKeyIdentifier = Array(signer[1].value)
        guard !signerKeyIdentifier.isEmpty else { throw Self.malformed("empty subjectKeyIdentifier") }
        guard try Self.algorithm(signer[2]) == Self.sha256OID else {
            throw Self.malformed("SignerInfo digestAlgorithm is not SHA-256")
        }
        guard try Self.algorithm(signer[3]) == .ecdsaWithSHA256 else {
            throw Self.malformed("SignerInfo signatureAlgorithm is not ecdsa-with-SHA256")
        }
        signatureDER = try signer[4].octetString()
        cmsBytes = bytes
    }

    /// The decoded content (not yet trusted: check the signature first).
    public func elements() throws(CertificateError) -> CertificationElements {
        try CertificationElements(tlv: content)
    }

    /// Whether the signature over the content verifies with the given public key.
    public func isSignatureValid(publicKey: P256PublicKey) -> Bool {
        guard let signature = try? P256Signature(derRepresentation: signatureDER) else { return false }
        return publicKey.isValidSignature(signature, for: content)
    }

    /// An AlgorithmIdentifier's OID; absent or NULL parameters only.
    private static func algorithm(_ node: DERNode) throws(CertificateError) -> ASN1ObjectIdentifier {
        let parts = try node.sequence("AlgorithmIdentifier")
        guard parts.count == 1 || (parts.count == 2 && parts[1].tag == .null) else {
            throw malformed("unexpected AlgorithmIdentifier parameters")
        }
        return try parts[0].objectIdentifier()
    }

    private static func malformed(_ reason: String) -> CertificateError {
        .malformedField("certification_declaration", reason)
    }
}

extension CertificationDeclaration {
    /// Signs CD content into the CMS form Matter prescribes (what the CSA does for a product,
    /// and what a test or virtual device needs with the CSA test key).
    public init(signing content: CertificationElements, signerKeyIdentifier: [UInt8],
                privateKey: P256PrivateKey) throws(CertificateError) {
        let tlv = content.tlvEncoded
        let signature: [UInt8]
        do { signature = try privateKey.signature(for: tlv).derRepresentation } catch {
            throw .crypto("signing the certification declaration failed")
        }
        let sha256 = DERWriter.sequence([DERWriter.objectIdentifier(Self.sha256OID)])
        let signerInfo = DERWriter.sequence([
            DERWriter.integer(3),
            DERWriter.element(.context(0, constructed: false), signerKeyIdentifier),
            sha256,
            DERWriter.sequence([DERWriter.objectIdentifier(.ecdsaWithSHA256)]),
            DERWriter.octetString(signature),
        ])
        let signedData = DERWriter.sequence([
            DERWriter.integer(3),
            DERWriter.set([sha256]),
            DERWriter.sequence([DERWriter.objectIdentifier(Self.dataOID), DERWriter.explicit(0, [DERWriter.octetString(tlv)])]),
            DERWriter.set([signerInfo]),
        ])
        try self.init(cms: DERWriter.sequence([DERWriter.objectIdentifier(Self.signedDataOID),
                                               DERWriter.explicit(0, [signedData])]))
    }
}
