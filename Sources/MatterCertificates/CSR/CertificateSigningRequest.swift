import MatterCrypto

/// A PKCS#10 certification request (RFC 2986) as a Matter node sends it in CSRResponse
/// (Matter Core 11.18.6.6): P-256 key, ECDSA-SHA256, self-signed. The subject and attributes
/// are kept but not interpreted: the commissioner takes only the public key.
public struct CertificateSigningRequest: Hashable, Sendable {
    /// Matter's size limit for a CSR (the SDK's kMAX_CSR_Buffer_Size).
    public static let maxLength = 255

    public let derBytes: [UInt8]
    /// certificationRequestInfo exactly as received: the signed bytes.
    public let infoBytes: [UInt8]
    public let subject: X509Name
    /// The 65-byte uncompressed P-256 public key.
    public let publicKey: [UInt8]
    /// The DER Ecdsa-Sig-Value.
    public let signature: [UInt8]

    /// Parses and checks the format: one DER element, version 0, a P-256 key, the [0]
    /// attributes, and ecdsa-with-SHA256 (absent or NULL parameters). Does not verify the
    /// signature; use `verify()` or `init(verifying:)`.
    public init(derEncoded bytes: [UInt8]) throws(CertificateError) {
        guard bytes.count <= Self.maxLength else { throw .csrTooLarge(size: bytes.count, limit: Self.maxLength) }
        let top: [DERNode]
        do {
            top = try DER.parse(bytes).sequence("CertificationRequest")
        } catch {
            throw .malformedCSR("not a DER CertificationRequest (\(error))")
        }
        guard top.count == 3 else { throw .malformedCSR("CertificationRequest needs 3 fields") }
        do {
            let info = try top[0].sequence("certificationRequestInfo")
            guard info.count == 4 else { throw CertificateError.malformedCSR("certificationRequestInfo needs 4 fields") }
            guard try info[0].integer() == 0 else { throw CertificateError.malformedCSR("version must be 0") }
            subject = try X509Name(derNode: info[1])
            let spki = try SubjectPublicKeyInfo(derNode: info[2])
            publicKey = try spki.p256PublicKey()
            guard info[3].tag == .context(0, constructed: true) else {
                throw CertificateError.malformedCSR("attributes [0] are missing")
            }
            let algorithm = try AlgorithmIdentifier(derNode: top[1])
            guard algorithm.algorithm == .ecdsaWithSHA256 else {
                throw CertificateError.unsupportedSignatureAlgorithm(algorithm.algorithm.description)
            }
            if let p = algorithm.parameters { try p.null() }
            signature = try top[2].octetAlignedBitString()
        } catch let e as CertificateError {
            if case .malformedCSR = e { throw e }
            throw .malformedCSR(e.description)
        } catch {
            throw .malformedCSR("\(error)")
        }
        derBytes = bytes
        infoBytes = top[0].encoded
    }

    /// Parses and verifies the self-signature.
    public init(verifying bytes: [UInt8]) throws(CertificateError) {
        try self.init(derEncoded: bytes)
        try verify()
    }

    /// Checks that the request is signed by the key it carries (proof of possession).
    public func verify() throws(CertificateError) {
        let key: P256PublicKey
        let sig: P256Signature
        do {
            key = try P256PublicKey(x962Representation: publicKey)
            sig = try P256Signature(derRepresentation: signature)
        } catch {
            throw .signatureInvalid("CSR key or signature is malformed")
        }
        guard key.isValidSignature(sig, for: infoBytes) else {
            throw .signatureInvalid("CSR is not signed by its own key")
        }
    }

    /// Builds and signs a CSR for `privateKey` with a subject of `O=<organization>` (what a
    /// Matter node sends; used by tests and the virtual device).
    public static func create(privateKey: P256PrivateKey, organization: String = "CSR") throws(CertificateError) -> CertificateSigningRequest {
        let subject = DERWriter.sequence([DERWriter.set([DERWriter.sequence([
            DERWriter.objectIdentifier(ASN1ObjectIdentifier([2, 5, 4, 10])), DERWriter.utf8String(organization),
        ])])])
        let spki = DERWriter.sequence([
            DERWriter.sequence([DERWriter.objectIdentifier(.ecPublicKey), DERWriter.objectIdentifier(.prime256v1)]),
            DERWriter.bitString(privateKey.publicKey.x962Representation),
        ])
        let info = DERWriter.sequence([DERWriter.integer(0), subject, spki, DERWriter.element(.context(0, constructed: true), [])])
        let signature: P256Signature
        do { signature = try privateKey.signature(for: info) } catch { throw .crypto("signing the CSR failed") }
        let der = DERWriter.sequence([
            info, DERWriter.sequence([DERWriter.objectIdentifier(.ecdsaWithSHA256)]), DERWriter.bitString(signature.derRepresentation),
        ])
        return try CertificateSigningRequest(derEncoded: der)
    }
}
