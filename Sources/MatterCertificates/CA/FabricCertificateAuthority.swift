import MatterCrypto
import MatterTLV

/// A validity period for issued certificates, in Matter epoch seconds.
public struct CertificateValidity: Hashable, Sendable {
    public var notBefore: MatterEpochTime
    /// 0 means no well-defined expiration (X.509 99991231235959Z).
    public var notAfter: MatterEpochTime

    public init(notBefore: MatterEpochTime, notAfter: MatterEpochTime) {
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    /// From `start` for `days` days (clamped to the 32-bit Matter time range).
    public init(from start: MatterEpochTime, days: Int) {
        notBefore = start
        let end = UInt64(start.rawValue) + UInt64(max(days, 1)) * 86_400
        notAfter = MatterEpochTime(UInt32(min(end, UInt64(UInt32.max))))
    }

    /// From `start` with no expiration.
    public static func noExpiry(from start: MatterEpochTime) -> CertificateValidity {
        CertificateValidity(notBefore: start, notAfter: MatterEpochTime(0))
    }
}

/// A certificate the authority issued, in both encodings. `der` is what was signed and
/// `tlv` converts back to exactly `der`.
public struct IssuedCertificate: Hashable, Sendable {
    public let certificate: MatterCertificate
    public let tlv: [UInt8]
    public let der: [UInt8]
}

/// The hub's certificate authority for one fabric (Matter Core 6.5 and 11.18.6): a self-signed
/// root (RCAC), optionally an intermediate (ICAC), and node operational certificates (NOCs)
/// issued for the public keys of verified CSRs.
///
/// Certificates are built as X.509 tbsCertificates with the DER writer, signed with
/// ECDSA-SHA256, then converted to the Matter TLV form; issuance fails unless that TLV
/// converts back to the very bytes that were signed.
public struct FabricCertificateAuthority: Sendable {
    public let fabricID: FabricID
    public let rootKey: P256PrivateKey
    public let root: IssuedCertificate
    public let intermediateKey: P256PrivateKey?
    public let intermediate: IssuedCertificate?

    /// The key and certificate that sign NOCs: the ICAC when there is one, else the RCAC.
    public var issuerKey: P256PrivateKey { intermediateKey ?? rootKey }
    public var issuer: IssuedCertificate { intermediate ?? root }

    /// Creates a new fabric: fresh root key and RCAC (subject `rcac-id, fabric-id`) and, when
    /// `icacID` is given, a fresh ICAC (subject `icac-id, fabric-id`).
    public static func create(fabricID: FabricID, rcacID: UInt64, icacID: UInt64? = nil,
                              validity: CertificateValidity,
                              random: some RandomSource = SystemRandomSource()) throws(CertificateError) -> FabricCertificateAuthority {
        guard fabricID.isValid else { throw .invalidFabricID }
        var random = random
        let rootKey = P256PrivateKey()
        let rootSubject = MatterDistinguishedName([try .rcacID(rcacID), try .fabricID(fabricID)])
        let rootSKID = keyIdentifier(rootKey.publicKey.x962Representation)
        let root = try sign(subject: rootSubject, issuer: rootSubject, publicKey: rootKey.publicKey.x962Representation,
                            extensions: caExtensions(skid: rootSKID, akid: rootSKID), validity: validity,
                            signer: rootKey, random: &random)
        var icacKey: P256PrivateKey?
        var icac: IssuedCertificate?
        if let icacID {
            let key = P256PrivateKey()
            let subject = MatterDistinguishedName([try .icacID(icacID), try .fabricID(fabricID)])
            icac = try sign(subject: subject, issuer: rootSubject, publicKey: key.publicKey.x962Representation,
                            extensions: caExtensions(skid: keyIdentifier(key.publicKey.x962Representation), akid: rootSKID),
                            validity: validity, signer: rootKey, random: &random)
            icacKey = key
        }
        return try FabricCertificateAuthority(fabricID: fabricID, rootKey: rootKey, rootCertificate: root.tlv,
                                              intermediateKey: icacKey, intermediateCertificate: icac?.tlv)
    }

    /// Restores an authority from stored keys and certificates (either encoding), checking that
    /// the root is a valid RCAC for `fabricID`, the ICAC chains to it, and each key matches its
    /// certificate.
    public init(fabricID: FabricID, rootKey: P256PrivateKey, rootCertificate: [UInt8],
                intermediateKey: P256PrivateKey? = nil, intermediateCertificate: [UInt8]? = nil) throws(CertificateError) {
        let rcac = try MatterCertificate(anyEncoding: rootCertificate)
        try MatterCertificateValidator.validateRoot(rcac)
        guard rcac.publicKey == rootKey.publicKey.x962Representation else {
            throw .invalidArgument("root key does not match the RCAC")
        }
        if let f = rcac.subject.fabricID, f != fabricID { throw .fabricIDMismatch("RCAC fabric \(f), authority fabric \(fabricID)") }
        self.fabricID = fabricID
        self.rootKey = rootKey
        self.root = try Self.issued(rcac)
        switch (intermediateKey, intermediateCertificate) {
        case (nil, nil):
            self.intermediateKey = nil
            self.intermediate = nil
        case (let key?, let bytes?):
            let icac = try MatterCertificate(anyEncoding: bytes)
            try MatterCertificateValidator.requireRole(icac, .intermediate)
            try MatterCertificateValidator.commonChecks(icac, "ICAC")
            try MatterCertificateValidator.requireCA(icac, "ICAC")
            try MatterCertificateValidator.checkIssued(icac, by: rcac, "ICAC", "RCAC")
            guard icac.publicKey == key.publicKey.x962Representation else {
                throw .invalidArgument("intermediate key does not match the ICAC")
            }
            if let f = icac.subject.fabricID, f != fabricID { throw .fabricIDMismatch("ICAC fabric \(f), authority fabric \(fabricID)") }
            self.intermediateKey = key
            self.intermediate = try Self.issued(icac)
        default:
            throw .invalidArgument("an intermediate needs both its key and its certificate")
        }
    }

    /// Issues a NOC for a verified CSR's public key.
    public func issueNOC(csr: CertificateSigningRequest, nodeID: NodeID, caseAuthenticatedTags: [CASEAuthenticatedTag] = [],
                         validity: CertificateValidity,
                         random: some RandomSource = SystemRandomSource()) throws(CertificateError) -> IssuedCertificate {
        try csr.verify()
        return try issueNOC(publicKey: csr.publicKey, nodeID: nodeID, caseAuthenticatedTags: caseAuthenticatedTags,
                            validity: validity, random: random)
    }

    /// Issues a NOC (subject `node-id, fabric-id, CATs...`) for a 65-byte P-256 public key, and
    /// checks the result as a chain under this authority.
    public func issueNOC(publicKey: [UInt8], nodeID: NodeID, caseAuthenticatedTags: [CASEAuthenticatedTag] = [],
                         validity: CertificateValidity,
                         random: some RandomSource = SystemRandomSource()) throws(CertificateError) -> IssuedCertificate {
        guard publicKey.count == 65, publicKey[0] == 0x04, (try? P256PublicKey(x962Representation: publicKey)) != nil else {
            throw .invalidPublicKey
        }
        guard nodeID.isOperational else { throw .invalidNodeID(nodeID.rawValue) }
        var attributes = [try MatterDNAttribute.nodeID(nodeID), try .fabricID(fabricID)]
        for cat in caseAuthenticatedTags { attributes.append(try .caseAuthenticatedTag(cat)) }
        let subject = MatterDistinguishedName(attributes)
        _ = try subject.certificateType()  // CAT count and identifier rules

        var random = random
        let extensions: [MatterCertificateExtension] = [
            .basicConstraints(BasicConstraints(isCA: false)),
            .keyUsage(.digitalSignature),
            .extendedKeyUsage([.clientAuth, .serverAuth]),
            .subjectKeyIdentifier(Self.keyIdentifier(publicKey)),
            .authorityKeyIdentifier(issuer.certificate.subjectKeyIdentifier ?? []),
        ]
        let noc = try Self.sign(subject: subject, issuer: issuer.certificate.subject, publicKey: publicKey,
                                extensions: extensions, validity: validity, signer: issuerKey, random: &random)
        _ = try MatterCertificateValidator.validateChain(noc: noc.certificate, icac: intermediate?.certificate,
                                                         rcac: root.certificate, now: nil)
        return noc
    }

    // MARK: - Building and signing

    /// A 20-byte key identifier: the leftmost 160 bits of SHA-256 of the public key (RFC 7093
    /// section 2, method 1).
    public static func keyIdentifier(_ publicKey: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(publicKey).prefix(20))
    }

    static func caExtensions(skid: [UInt8], akid: [UInt8]) -> [MatterCertificateExtension] {
        [
            .basicConstraints(BasicConstraints(isCA: true)),
            .keyUsage([.keyCertSign, .cRLSign]),
            .subjectKeyIdentifier(skid),
            .authorityKeyIdentifier(akid),
        ]
    }

    /// A positive 8-byte serial number from the random source.
    static func serialNumber(_ random: inout some RandomSource) -> [UInt8] {
        var serial = random.bytes(8)
        serial[0] &= 0x7F
        if serial[0] == 0 { serial[0] = 0x01 }
        return serial
    }

    static func sign(subject: MatterDistinguishedName, issuer: MatterDistinguishedName, publicKey: [UInt8],
                     extensions: [MatterCertificateExtension], validity: CertificateValidity, signer: P256PrivateKey,
                     random: inout some RandomSource) throws(CertificateError) -> IssuedCertificate {
        var cert = MatterCertificate(serialNumber: serialNumber(&random), issuer: issuer, notBefore: validity.notBefore,
                                     notAfter: validity.notAfter, subject: subject, publicKey: publicKey,
                                     extensions: extensions, signature: [UInt8](repeating: 0, count: 64))
        let tbs = try cert.tbsDER()
        do {
            cert.signature = try signer.signature(for: tbs).rawRepresentation
        } catch {
            throw .crypto("signing the certificate failed")
        }
        let der = try cert.derEncoded()
        guard der.count <= MatterCertificate.maxDERLength else {
            throw .certificateTooLarge(size: der.count, limit: MatterCertificate.maxDERLength)
        }
        // DER -> TLV -> DER must give back the signed bytes (Matter Core 6.5.13).
        let converted = try MatterCertificate(derEncoded: der)
        guard try converted.derEncoded() == der, converted == cert else {
            throw .notMatterCompatible("issued certificate does not round-trip between DER and TLV")
        }
        return IssuedCertificate(certificate: converted, tlv: converted.tlvEncoded, der: der)
    }

    static func issued(_ cert: MatterCertificate) throws(CertificateError) -> IssuedCertificate {
        IssuedCertificate(certificate: cert, tlv: cert.tlvEncoded, der: try cert.derEncoded())
    }
}
