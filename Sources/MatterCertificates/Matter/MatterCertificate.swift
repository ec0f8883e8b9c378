import MatterTLV

/// A key purpose of the extended key usage extension, by its Matter TLV number
/// (Matter Core 6.5.11.3).
public struct KeyPurpose: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let serverAuth = KeyPurpose(rawValue: 1)
    public static let clientAuth = KeyPurpose(rawValue: 2)
    public static let codeSigning = KeyPurpose(rawValue: 3)
    public static let emailProtection = KeyPurpose(rawValue: 4)
    public static let timeStamping = KeyPurpose(rawValue: 5)
    public static let ocspSigning = KeyPurpose(rawValue: 6)

    static let oids: [UInt8: ASN1ObjectIdentifier] = [
        1: .serverAuth, 2: .clientAuth, 3: .codeSigning, 4: .emailProtection, 5: .timeStamping, 6: .ocspSigning,
    ]

    public var oid: ASN1ObjectIdentifier? { Self.oids[rawValue] }
    public init?(oid: ASN1ObjectIdentifier) {
        guard let entry = Self.oids.first(where: { $0.value == oid }) else { return nil }
        rawValue = entry.key
    }

    public var description: String {
        let names = [1: "serverAuth", 2: "clientAuth", 3: "codeSigning", 4: "emailProtection", 5: "timeStamping", 6: "OCSPSigning"]
        return names[Int(rawValue)] ?? "purpose-\(rawValue)"
    }
}

/// One extension of a Matter TLV certificate (Matter Core 6.5.11).
public enum MatterCertificateExtension: Hashable, Sendable {
    /// Always critical in X.509.
    case basicConstraints(BasicConstraints)
    /// Always critical in X.509.
    case keyUsage(KeyUsage)
    /// Always critical in X.509.
    case extendedKeyUsage([KeyPurpose])
    /// 20 bytes, non-critical.
    case subjectKeyIdentifier([UInt8])
    /// 20 bytes, non-critical.
    case authorityKeyIdentifier([UInt8])
    /// Any other extension: its whole DER `Extension` SEQUENCE, carried verbatim.
    case futureExtension([UInt8])

    /// The TLV context tag of this extension in the extensions list.
    public var tag: UInt8 {
        switch self {
        case .basicConstraints: return MatterCertificate.Tag.basicConstraints
        case .keyUsage: return MatterCertificate.Tag.keyUsage
        case .extendedKeyUsage: return MatterCertificate.Tag.extendedKeyUsage
        case .subjectKeyIdentifier: return MatterCertificate.Tag.subjectKeyIdentifier
        case .authorityKeyIdentifier: return MatterCertificate.Tag.authorityKeyIdentifier
        case .futureExtension: return MatterCertificate.Tag.futureExtension
        }
    }
}

/// A Matter operational certificate in its TLV form (Matter Core 6.5.2, `matter-certificate`):
/// RCAC, ICAC, NOC or firmware signing certificate. P-256 / ECDSA-SHA256 is the only suite, so
/// the algorithm fields are implied.
///
/// Decode with `MatterCertificate(tlvEncoded:)` or from X.509 with `MatterCertificate(derEncoded:)`;
/// `tlvEncoded` and `derEncoded()` give the two forms back. Both decoders reject every field that
/// does not fit the Matter profile, so that the TLV -> X.509 conversion (over which the signature
/// is checked) is always defined.
public struct MatterCertificate: Hashable, Sendable {
    /// The TLV context tags of the certificate structure and its extension list.
    public enum Tag {
        public static let serialNumber: UInt8 = 1
        public static let signatureAlgorithm: UInt8 = 2
        public static let issuer: UInt8 = 3
        public static let notBefore: UInt8 = 4
        public static let notAfter: UInt8 = 5
        public static let subject: UInt8 = 6
        public static let publicKeyAlgorithm: UInt8 = 7
        public static let ellipticCurve: UInt8 = 8
        public static let publicKey: UInt8 = 9
        public static let extensions: UInt8 = 10
        public static let signature: UInt8 = 11

        public static let basicConstraints: UInt8 = 1
        public static let keyUsage: UInt8 = 2
        public static let extendedKeyUsage: UInt8 = 3
        public static let subjectKeyIdentifier: UInt8 = 4
        public static let authorityKeyIdentifier: UInt8 = 5
        public static let futureExtension: UInt8 = 6

        public static let isCA: UInt8 = 1
        public static let pathLengthConstraint: UInt8 = 2
    }

    /// The TLV values of the only algorithms Matter defines.
    public static let ecdsaWithSHA256ID: UInt64 = 1
    public static let ecPublicKeyID: UInt64 = 1
    public static let prime256v1ID: UInt64 = 1

    /// Size limits: a TLV certificate fits 400 bytes (the NOC/ICAC/RCAC fields of the
    /// Operational Credentials cluster) and its X.509 form 600 bytes.
    public static let maxTLVLength = 400
    public static let maxDERLength = 600

    /// The serial number: the contents octets of a positive DER INTEGER, 1 to 20 bytes.
    public var serialNumber: [UInt8]
    public var issuer: MatterDistinguishedName
    public var notBefore: MatterEpochTime
    /// 0 means no well-defined expiration.
    public var notAfter: MatterEpochTime
    public var subject: MatterDistinguishedName
    /// The 65-byte uncompressed P-256 public key.
    public var publicKey: [UInt8]
    /// In the order they are encoded.
    public var extensions: [MatterCertificateExtension]
    /// The ECDSA signature as 64 bytes r || s, over the X.509 DER tbsCertificate.
    public var signature: [UInt8]

    public init(serialNumber: [UInt8], issuer: MatterDistinguishedName, notBefore: MatterEpochTime,
                notAfter: MatterEpochTime, subject: MatterDistinguishedName, publicKey: [UInt8],
                extensions: [MatterCertificateExtension], signature: [UInt8]) {
        self.serialNumber = serialNumber
        self.issuer = issuer
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.subject = subject
        self.publicKey = publicKey
        self.extensions = extensions
        self.signature = signature
    }
}

// MARK: - Extension accessors

extension MatterCertificate {
    public var basicConstraints: BasicConstraints? {
        for e in extensions { if case .basicConstraints(let v) = e { return v } }
        return nil
    }
    public var keyUsage: KeyUsage? {
        for e in extensions { if case .keyUsage(let v) = e { return v } }
        return nil
    }
    public var extendedKeyUsage: [KeyPurpose]? {
        for e in extensions { if case .extendedKeyUsage(let v) = e { return v } }
        return nil
    }
    public var subjectKeyIdentifier: [UInt8]? {
        for e in extensions { if case .subjectKeyIdentifier(let v) = e { return v } }
        return nil
    }
    public var authorityKeyIdentifier: [UInt8]? {
        for e in extensions { if case .authorityKeyIdentifier(let v) = e { return v } }
        return nil
    }
    /// The DER Extension elements carried as future extensions.
    public var futureExtensions: [[UInt8]] {
        extensions.compactMap { if case .futureExtension(let v) = $0 { return v } else { return nil } }
    }

    /// The certificate's role, from its subject DN (`invalidCertificateType` when the DN does
    /// not identify one).
    public func certificateType() throws(CertificateError) -> MatterCertificateType {
        try subject.certificateType()
    }
}
