import MatterCrypto
import MatterTLV

/// The fabric identity a valid chain establishes.
public struct OperationalIdentity: Hashable, Sendable {
    public let fabricID: FabricID
    public let nodeID: NodeID
    public let caseAuthenticatedTags: [CASEAuthenticatedTag]
    /// The root's 65-byte public key (input to the compressed fabric ID).
    public let rootPublicKey: [UInt8]
}

/// Validates Matter operational certificate chains, RCAC -> (ICAC) -> NOC (Matter Core 6.5.x
/// and 6.6), with every check named by a typed error. Time is injected: pass the current Matter
/// epoch time, or nil to skip validity-period checks (e.g. when no time source is available).
public enum MatterCertificateValidator {
    /// Checks a trusted root: RCAC type, self-issued (subject == issuer, SKID == AKID), CA with
    /// a path length of at most 1, keyCertSign, and a signature made by its own key.
    /// Validity is not checked: a root is valid by installation (as in the SDK).
    public static func validateRoot(_ rcac: MatterCertificate) throws(CertificateError) {
        try requireRole(rcac, .root)
        guard rcac.subject == rcac.issuer else { throw .wrongCertificateRole(expected: "self-issued RCAC", found: "subject != issuer") }
        try commonChecks(rcac, "RCAC")
        guard rcac.subjectKeyIdentifier == rcac.authorityKeyIdentifier else {
            throw .authorityKeyIDMismatch("RCAC authority key ID differs from its own subject key ID")
        }
        try requireCA(rcac, "RCAC")
        if let p = rcac.basicConstraints?.pathLengthConstraint, p > 1 {
            throw .usageNotAllowed("RCAC", "path length constraint \(p) exceeds 1")
        }
        try verifySignature(of: rcac, issuerKey: rcac.publicKey, "RCAC")
    }

    /// Decodes (either encoding) and validates a root; see `validateRoot(_:)`.
    public static func validateRoot(encoded bytes: [UInt8]) throws(CertificateError) -> MatterCertificate {
        let cert = try MatterCertificate(anyEncoding: bytes)
        try validateRoot(cert)
        return cert
    }

    /// Validates ICAC <- RCAC: the root as in `validateRoot`, the ICAC's role and profile, that
    /// it is a CA with keyCertSign, issued by the root (names, key identifiers, signature), the
    /// root's path length allows it, fabric IDs agree, and, when `now` is given, both validities.
    public static func validateIntermediate(_ icac: MatterCertificate, rcac: MatterCertificate,
                                            now: MatterEpochTime?) throws(CertificateError) {
        try validateRoot(rcac)
        try requireRole(icac, .intermediate)
        try commonChecks(icac, "ICAC")
        try requireCA(icac, "ICAC")
        try checkIssued(icac, by: rcac, "ICAC", "RCAC")
        if let p = rcac.basicConstraints?.pathLengthConstraint, p < 1 {
            throw .pathLengthExceeded("RCAC path length \(p) allows no ICAC")
        }
        if let a = icac.subject.fabricID, let b = rcac.subject.fabricID, a != b {
            throw .fabricIDMismatch("ICAC fabric \(a) differs from RCAC fabric \(b)")
        }
        if let now {
            try checkValidity(icac, now: now, "ICAC")
            try checkValidity(rcac, now: now, "RCAC")
        }
    }

    /// Validates NOC <- ICAC? <- RCAC and returns the identity the NOC proves.
    ///
    /// Checks, in order: each certificate's role (node, ICA, root) and profile (SKID and AKID
    /// present, no critical unknown extension); the root as in `validateRoot`; for each issued
    /// certificate, issuer DN == parent subject DN, AKID == parent SKID, the parent is a CA with
    /// keyCertSign and a path length that allows it, and the signature verifies with the parent
    /// key; the NOC is an end entity with digitalSignature and both clientAuth and serverAuth;
    /// fabric IDs agree; and, when `now` is given, every certificate is within its validity.
    public static func validateChain(noc: MatterCertificate, icac: MatterCertificate?, rcac: MatterCertificate,
                                     now: MatterEpochTime?) throws(CertificateError) -> OperationalIdentity {
        try validateRoot(rcac)
        try requireRole(noc, .node)
        try commonChecks(noc, "NOC")

        var issuer = rcac
        if let icac {
            try requireRole(icac, .intermediate)
            try commonChecks(icac, "ICAC")
            try requireCA(icac, "ICAC")
            try checkIssued(icac, by: rcac, "ICAC", "RCAC")
            issuer = icac
        }
        try checkIssued(noc, by: issuer, "NOC", icac == nil ? "RCAC" : "ICAC")
        // Path length (RFC 5280 4.2.1.9): the RCAC's constraint counts the ICAC below it.
        if icac != nil, let p = rcac.basicConstraints?.pathLengthConstraint, p < 1 {
            throw .pathLengthExceeded("RCAC path length \(p) allows no ICAC")
        }

        // End-entity usage (Matter Core 6.5.11).
        guard noc.basicConstraints?.isCA == false else { throw .usageNotAllowed("NOC", "must not be a CA") }
        guard noc.keyUsage?.contains(.digitalSignature) == true else {
            throw .usageNotAllowed("NOC", "key usage must include digitalSignature")
        }
        guard noc.keyUsage?.contains(.keyCertSign) != true, noc.keyUsage?.contains(.cRLSign) != true else {
            throw .usageNotAllowed("NOC", "key usage must not include keyCertSign or cRLSign")
        }
        let eku = noc.extendedKeyUsage ?? []
        guard eku.contains(.clientAuth), eku.contains(.serverAuth) else {
            throw .usageNotAllowed("NOC", "extended key usage must include clientAuth and serverAuth")
        }

        // Fabric ID: the NOC's is authoritative; a CA that states one must agree.
        guard let fabricID = noc.subject.fabricID else { throw .invalidCertificateType("NOC without matter-fabric-id") }
        for (name, cert) in [("ICAC", icac), ("RCAC", rcac)] {
            if let other = cert?.subject.fabricID, other != fabricID {
                throw .fabricIDMismatch("\(name) fabric \(other) differs from NOC fabric \(fabricID)")
            }
        }

        if let now {
            for (name, cert) in [("NOC", noc), ("ICAC", icac), ("RCAC", rcac)] {
                guard let cert else { continue }
                try checkValidity(cert, now: now, name)
            }
        }

        guard let nodeID = noc.subject.nodeID else { throw .invalidCertificateType("NOC without matter-node-id") }
        return OperationalIdentity(fabricID: fabricID, nodeID: nodeID,
                                   caseAuthenticatedTags: noc.subject.caseAuthenticatedTags, rootPublicKey: rcac.publicKey)
    }

    /// Checks `now` against not-before and (unless 0) not-after.
    public static func checkValidity(_ cert: MatterCertificate, now: MatterEpochTime, _ name: String = "certificate") throws(CertificateError) {
        guard now >= cert.notBefore else { throw .notYetValid("\(name) is valid from \(cert.notBefore)") }
        if cert.notAfter.rawValue != 0 && now > cert.notAfter {
            throw .expired("\(name) expired at \(cert.notAfter)")
        }
    }

    /// Verifies the ECDSA-SHA256 signature over the DER tbsCertificate with `issuerKey`.
    public static func verifySignature(of cert: MatterCertificate, issuerKey: [UInt8], _ name: String = "certificate") throws(CertificateError) {
        let tbs = try cert.tbsDER()
        let key: P256PublicKey
        let signature: P256Signature
        do {
            guard issuerKey.count == 65 else { throw CertificateError.invalidPublicKey }
            key = try P256PublicKey(x962Representation: issuerKey)
            signature = try P256Signature(rawRepresentation: cert.signature)
        } catch {
            throw .signatureInvalid("\(name): issuer key or signature unusable")
        }
        guard key.isValidSignature(signature, for: tbs) else {
            throw .signatureInvalid("\(name) is not signed by the issuer's key")
        }
    }

    // MARK: - Pieces

    static func requireRole(_ cert: MatterCertificate, _ role: MatterCertificateType) throws(CertificateError) {
        let found = try cert.certificateType()
        guard found == role else { throw .wrongCertificateRole(expected: role.description, found: found.description) }
    }

    /// A valid P-256 public key; SKID, AKID, basic constraints and key usage present; no
    /// critical extension Matter does not know.
    static func commonChecks(_ cert: MatterCertificate, _ name: String) throws(CertificateError) {
        guard (try? P256PublicKey(x962Representation: cert.publicKey)) != nil else { throw .invalidPublicKey }
        guard cert.subjectKeyIdentifier != nil else { throw .usageNotAllowed(name, "subject key identifier is missing") }
        guard cert.authorityKeyIdentifier != nil else { throw .usageNotAllowed(name, "authority key identifier is missing") }
        guard cert.basicConstraints != nil else { throw .usageNotAllowed(name, "basic constraints are missing") }
        guard cert.keyUsage != nil else { throw .usageNotAllowed(name, "key usage is missing") }
        for der in cert.futureExtensions {
            if let e = try? X509Extension(derNode: DER.parse(der)), e.isCritical {
                throw .unsupportedCriticalExtension("\(e.oid) in \(name)")
            }
        }
    }

    static func requireCA(_ cert: MatterCertificate, _ name: String) throws(CertificateError) {
        guard cert.basicConstraints?.isCA == true else { throw .usageNotAllowed(name, "basic constraints must mark it a CA") }
        guard cert.keyUsage?.contains(.keyCertSign) == true else {
            throw .usageNotAllowed(name, "key usage must include keyCertSign")
        }
    }

    static func checkIssued(_ cert: MatterCertificate, by parent: MatterCertificate, _ name: String,
                            _ parentName: String) throws(CertificateError) {
        guard cert.issuer == parent.subject else { throw .issuerMismatch("\(name) issuer is not the \(parentName) subject") }
        guard cert.authorityKeyIdentifier == parent.subjectKeyIdentifier else {
            throw .authorityKeyIDMismatch("\(name) authority key ID is not the \(parentName) subject key ID")
        }
        try verifySignature(of: cert, issuerKey: parent.publicKey, name)
    }
}

extension MatterCertificate {
    /// Decodes either encoding: DER when the bytes start with a SEQUENCE (0x30), TLV otherwise.
    public init(anyEncoding bytes: [UInt8]) throws(CertificateError) {
        if bytes.first == 0x30 {
            try self.init(derEncoded: bytes)
        } else {
            try self.init(tlvEncoded: bytes)
        }
    }
}
