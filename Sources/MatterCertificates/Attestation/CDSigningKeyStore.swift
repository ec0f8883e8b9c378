import MatterCrypto

/// The keys trusted to sign certification declarations, found by subject key identifier
/// (Matter Core 6.3.3). `.csa` holds the CSA's production signing keys and the CSA test key;
/// CDs signed with the test key are development/test CDs.
public struct CDSigningKeyStore: Sendable {
    /// One trusted signing key.
    public struct Key: Sendable, Hashable {
        public let subjectKeyIdentifier: [UInt8]
        public let publicKey: P256PublicKey
        /// The subject of the signing certificate, for messages.
        public let name: String
        /// True for the CSA test signing key.
        public let isTestKey: Bool
    }

    public private(set) var keys: [Key]

    public init(keys: [Key] = []) {
        self.keys = keys
    }

    /// The CSA production keys (Signing Key 001...005) and the CSA test key.
    public static let csa: CDSigningKeyStore = {
        var store = CDSigningKeyStore()
        for (_, b64) in CSACertificationDeclarationCertificates.production {
            try? store.add(certificateDER: AttestationPEM.base64Decode(Array(b64.utf8)) ?? [], isTestKey: false)
        }
        try? store.add(certificateDER: AttestationPEM.base64Decode(Array(CSACertificationDeclarationCertificates.test.base64.utf8)) ?? [],
                       isTestKey: true)
        return store
    }()

    /// The CSA's CD signing certificates built in (production keys, then the test key), for listing.
    public static var csaSigningCertificates: [(certificate: X509Certificate, isTestKey: Bool)] {
        let all = CSACertificationDeclarationCertificates.production.map { ($0.base64, false) }
            + [(CSACertificationDeclarationCertificates.test.base64, true)]
        return all.compactMap { b64, isTest in
            AttestationPEM.base64Decode(Array(b64.utf8)).flatMap { try? X509Certificate(derEncoded: $0) }.map { ($0, isTest) }
        }
    }

    /// The CSA "Matter Certification and Testing CA" certificate.
    public static var csaRootCertificate: X509Certificate? {
        AttestationPEM.base64Decode(Array(CSACertificationDeclarationCertificates.root.utf8))
            .flatMap { try? X509Certificate(derEncoded: $0) }
    }

    /// Adds the key of a CD signing certificate, found later by its subject key identifier.
    public mutating func add(certificateDER: [UInt8], isTestKey: Bool) throws(CertificateError) {
        let cert = try X509Certificate(derEncoded: certificateDER)
        guard let skid = cert.subjectKeyIdentifier, !skid.isEmpty else {
            throw .invalidExtension("subjectKeyIdentifier", "a CD signing certificate needs one")
        }
        let key: P256PublicKey
        do { key = try P256PublicKey(x962Representation: try cert.subjectPublicKeyInfo.p256PublicKey()) } catch {
            throw .invalidPublicKey
        }
        let name = cert.subject.first(AttestationVendorProduct.commonNameAttribute)?.stringValue ?? "(no common name)"
        keys.append(Key(subjectKeyIdentifier: skid, publicKey: key, name: name, isTestKey: isTestKey))
    }

    /// Adds a production CD signing certificate after checking that the CSA root issued it.
    public mutating func addCSAIssued(certificateDER: [UInt8]) throws(CertificateError) {
        let cert = try X509Certificate(derEncoded: certificateDER)
        guard let root = Self.csaRootCertificate else { throw .invalidArgument("embedded CSA root does not parse") }
        guard cert.issuer.encoded == root.subject.encoded else { throw .issuerMismatch("CD signing certificate") }
        guard AttestationSignatures.verify(cert, signedBy: root) else {
            throw .signatureInvalid("CD signing certificate is not signed by the CSA root")
        }
        try add(certificateDER: certificateDER, isTestKey: false)
    }

    /// The key with this subject key identifier.
    public func key(forSubjectKeyIdentifier id: [UInt8]) -> Key? {
        keys.first { $0.subjectKeyIdentifier == id }
    }
}
