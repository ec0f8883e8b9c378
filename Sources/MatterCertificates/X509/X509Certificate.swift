/// An AlgorithmIdentifier: an OID and optional parameters (RFC 5280 4.1.1.2).
public struct AlgorithmIdentifier: Hashable, Sendable {
    public let algorithm: ASN1ObjectIdentifier
    /// The parameters element, when present (a curve OID for id-ecPublicKey, NULL for RSA).
    public let parameters: DERNode?

    init(derNode node: DERNode) throws(CertificateError) {
        let parts = try node.sequence("AlgorithmIdentifier")
        guard parts.count == 1 || parts.count == 2 else {
            throw .derUnexpectedElement(expected: "AlgorithmIdentifier with 1 or 2 fields", found: "\(parts.count) fields")
        }
        algorithm = try parts[0].objectIdentifier()
        parameters = parts.count == 2 ? parts[1] : nil
    }
}

/// The subject's public key (RFC 5280 4.1.2.7).
public struct SubjectPublicKeyInfo: Hashable, Sendable {
    public let algorithm: AlgorithmIdentifier
    /// The subjectPublicKey bits: for EC keys, the X9.62 point (65 bytes uncompressed for P-256).
    public let publicKey: [UInt8]
    /// The SubjectPublicKeyInfo element as received.
    public let encoded: [UInt8]

    init(derNode node: DERNode) throws(CertificateError) {
        let parts = try node.sequence("SubjectPublicKeyInfo")
        guard parts.count == 2 else { throw .derUnexpectedElement(expected: "SubjectPublicKeyInfo", found: "\(parts.count) fields") }
        algorithm = try AlgorithmIdentifier(derNode: parts[0])
        publicKey = try parts[1].octetAlignedBitString()
        encoded = node.encoded
    }

    /// The named curve when the key is an EC key with namedCurve parameters.
    public var namedCurve: ASN1ObjectIdentifier? {
        guard let p = algorithm.parameters, p.tag == .objectIdentifier else { return nil }
        return try? p.objectIdentifier()
    }

    /// Checks that this is an uncompressed P-256 public key and returns its 65 bytes.
    public func p256PublicKey() throws(CertificateError) -> [UInt8] {
        guard algorithm.algorithm == .ecPublicKey else {
            throw .unsupportedPublicKeyAlgorithm(algorithm.algorithm.description)
        }
        guard let curve = namedCurve else { throw .unsupportedCurve("(no named curve)") }
        guard curve == .prime256v1 else { throw .unsupportedCurve(curve.description) }
        guard publicKey.count == 65, publicKey[0] == 0x04 else { throw .invalidPublicKey }
        return publicKey
    }
}

/// An X.509 v3 certificate parsed from DER (RFC 5280 4.1), with every part kept as received.
///
/// The parser checks DER and X.509 structure, not policy: Matter's profile (P-256 keys,
/// ECDSA-SHA256, critical flags, DN attributes) is enforced by `MatterCertificate(x509:)`, and
/// device attestation applies its own rules on top. Signatures must be verified over `tbsBytes`.
public struct X509Certificate: Hashable, Sendable {
    /// The whole certificate as received.
    public let derBytes: [UInt8]
    /// The tbsCertificate element exactly as received: the signed bytes.
    public let tbsBytes: [UInt8]
    /// The version field as encoded (2 means v3; only v3 is accepted).
    public let version: Int
    /// The serial number's INTEGER contents octets as received.
    public let serialNumber: [UInt8]
    /// The `signature` field inside tbsCertificate.
    public let signatureAlgorithm: AlgorithmIdentifier
    public let issuer: X509Name
    public let notBefore: ASN1Time
    public let notAfter: ASN1Time
    public let subject: X509Name
    public let subjectPublicKeyInfo: SubjectPublicKeyInfo
    /// Extensions in the order received.
    public let extensions: [X509Extension]
    /// The signatureValue bits: for ECDSA, the DER Ecdsa-Sig-Value.
    public let signature: [UInt8]

    // Decoded values of the well-known extensions, when present.
    public let basicConstraints: BasicConstraints?
    public let keyUsage: KeyUsage?
    public let extendedKeyUsage: [ASN1ObjectIdentifier]?
    public let subjectKeyIdentifier: [UInt8]?
    public let authorityKeyIdentifier: AuthorityKeyIdentifier?

    /// Parses and structurally checks a DER certificate.
    public init(derEncoded bytes: [UInt8]) throws(CertificateError) {
        let root = try DER.parse(bytes)
        let top = try root.sequence("Certificate")
        guard top.count == 3 else { throw .derUnexpectedElement(expected: "Certificate with 3 fields", found: "\(top.count) fields") }
        let tbsNode = try top[0].expect(.sequence, "tbsCertificate")
        let outerAlgorithm = try AlgorithmIdentifier(derNode: top[1])
        signature = try top[2].octetAlignedBitString()

        let tbs = tbsNode.children
        var i = 0
        func next(_ what: String) throws(CertificateError) -> DERNode {
            guard i < tbs.count else { throw .derUnexpectedElement(expected: what, found: "end of tbsCertificate") }
            defer { i += 1 }
            return tbs[i]
        }

        // version [0] EXPLICIT Version DEFAULT v1: only v3 is supported, so it must be present.
        let versionNode = try next("version")
        guard versionNode.tag == .context(0, constructed: true), versionNode.children.count == 1 else {
            throw .unsupportedVersion(0)
        }
        let v = try versionNode.children[0].integer()
        guard v == 2 else { throw .unsupportedVersion(Int(v)) }
        version = 2

        serialNumber = try next("serialNumber").integerBytes()
        signatureAlgorithm = try AlgorithmIdentifier(derNode: try next("signature"))
        // Compare the encodings: DERNode equality includes the offset, which differs between
        // the two fields (NXP's production PAAs carry NULL parameters in both).
        guard signatureAlgorithm.algorithm == outerAlgorithm.algorithm,
              signatureAlgorithm.parameters?.encoded == outerAlgorithm.parameters?.encoded else {
            throw .unsupportedSignatureAlgorithm("signatureAlgorithm differs from the tbsCertificate signature field")
        }
        issuer = try X509Name(derNode: try next("issuer"))

        let validity = try next("validity").sequence("Validity")
        guard validity.count == 2 else { throw .invalidValidity("Validity needs notBefore and notAfter") }
        notBefore = try ASN1Time(derNode: validity[0])
        notAfter = try ASN1Time(derNode: validity[1])

        subject = try X509Name(derNode: try next("subject"))
        subjectPublicKeyInfo = try SubjectPublicKeyInfo(derNode: try next("subjectPublicKeyInfo"))

        // issuerUniqueID [1] and subjectUniqueID [2] are not used by Matter; reject them so that
        // nothing signed goes unexamined.
        var exts: [X509Extension] = []
        if i < tbs.count, tbs[i].tag.tagClass == .contextSpecific, tbs[i].tag.number == 1 || tbs[i].tag.number == 2 {
            throw .derUnexpectedElement(expected: "extensions", found: "unique identifier \(tbs[i].tag)")
        }
        if i < tbs.count {
            let extNode = try next("extensions")
            guard extNode.tag == .context(3, constructed: true), extNode.children.count == 1 else {
                throw .derUnexpectedElement(expected: "[3] extensions", found: extNode.tag.description)
            }
            let list = try extNode.children[0].sequence("Extensions")
            guard !list.isEmpty else { throw .invalidExtension("extensions", "empty extension list") }
            for e in list {
                let ext = try X509Extension(derNode: e)
                if exts.contains(where: { $0.oid == ext.oid }) { throw .duplicateExtension(ext.oid.description) }
                exts.append(ext)
            }
        }
        guard i == tbs.count else { throw .derUnexpectedElement(expected: "end of tbsCertificate", found: tbs[i].tag.description) }
        extensions = exts

        func value(_ oid: ASN1ObjectIdentifier) -> [UInt8]? { exts.first { $0.oid == oid }?.value }
        basicConstraints = try value(.basicConstraints).map { v throws(CertificateError) in try BasicConstraints(extensionValue: v) }
        keyUsage = try value(.keyUsage).map { v throws(CertificateError) in try KeyUsage(extensionValue: v) }
        extendedKeyUsage = try value(.extendedKeyUsage).map { v throws(CertificateError) in try X509ExtensionValue.extendedKeyUsage(v) }
        subjectKeyIdentifier = try value(.subjectKeyIdentifier).map { v throws(CertificateError) in try X509ExtensionValue.subjectKeyIdentifier(v) }
        authorityKeyIdentifier = try value(.authorityKeyIdentifier).map { v throws(CertificateError) in try AuthorityKeyIdentifier(extensionValue: v) }

        derBytes = bytes
        tbsBytes = tbsNode.encoded
    }

    /// The extension with the given OID, if present.
    public func `extension`(_ oid: ASN1ObjectIdentifier) -> X509Extension? {
        extensions.first { $0.oid == oid }
    }
}

// MARK: - ECDSA signature forms

/// Conversions between ECDSA signature forms: DER Ecdsa-Sig-Value (RFC 3279 2.2.3) and raw
/// r||s, 32 bytes each for P-256.
public enum ECDSASignatureEncoding {
    /// DER SEQUENCE { r INTEGER, s INTEGER } to 64 raw bytes; rejects non-minimal integers and
    /// values longer than 32 bytes.
    public static func rawFromDER(_ der: [UInt8]) throws(CertificateError) -> [UInt8] {
        let parts = try DER.parse(der).sequence("Ecdsa-Sig-Value")
        guard parts.count == 2 else { throw .derInvalidValue("Ecdsa-Sig-Value needs r and s") }
        var out: [UInt8] = []
        for p in parts {
            let m = try p.unsignedIntegerMagnitude()
            guard m.count <= 32 else { throw .derInvalidValue("ECDSA integer longer than 32 bytes") }
            out += [UInt8](repeating: 0, count: 32 - m.count) + m
        }
        return out
    }

    /// 64 raw bytes r||s to the DER Ecdsa-Sig-Value.
    public static func derFromRaw(_ raw: [UInt8]) throws(CertificateError) -> [UInt8] {
        guard raw.count == 64 else { throw .invalidArgument("raw ECDSA P-256 signature must be 64 bytes") }
        return DERWriter.sequence([DERWriter.unsignedInteger(raw[0..<32]), DERWriter.unsignedInteger(raw[32..<64])])
    }
}
