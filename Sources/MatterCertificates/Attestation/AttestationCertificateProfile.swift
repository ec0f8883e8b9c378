/// The Matter profile of device attestation certificates (Matter Core 6.2.2), as the SDK's
/// `VerifyAttestationCertificateFormat` enforces it: X.509 v3, ecdsa-with-SHA256, a P-256 key,
/// critical basic constraints and key usage fitting the role, and non-critical 20-byte key
/// identifiers.
public enum AttestationCertificateRole: String, Sendable, Hashable {
    case paa = "PAA"
    case pai = "PAI"
    case dac = "DAC"

    /// Fails with the first rule the certificate breaks.
    public func checkProfile(_ cert: X509Certificate) throws(CertificateError) {
        let name = rawValue
        guard cert.version == 2 else { throw .unsupportedVersion(cert.version) }
        guard !cert.serialNumber.isEmpty else { throw .derInvalidValue("\(name) has an empty serial number") }
        // Parameters must be absent (RFC 5758), but a NULL is tolerated as OpenSSL and the SDK
        // do: production PAAs in the DCL carry one.
        guard cert.signatureAlgorithm.algorithm == .ecdsaWithSHA256,
              cert.signatureAlgorithm.parameters == nil || cert.signatureAlgorithm.parameters?.tag == .null else {
            throw .unsupportedSignatureAlgorithm("\(name) is not signed with ecdsa-with-SHA256")
        }
        _ = try cert.subjectPublicKeyInfo.p256PublicKey()
        guard cert.notBefore <= cert.notAfter else { throw .invalidValidity("\(name) notBefore is after notAfter") }

        // Each extension Matter names must have the right criticality; an unknown critical
        // extension cannot be honoured, so it is refused (as X.509 path validation does).
        let known: Set<ASN1ObjectIdentifier> = [.basicConstraints, .keyUsage, .subjectKeyIdentifier,
                                                .authorityKeyIdentifier, .extendedKeyUsage]
        for ext in cert.extensions where ext.isCritical && !known.contains(ext.oid) {
            throw .unsupportedCriticalExtension("\(name): \(ext.oid)")
        }

        guard let bcExt = cert.extension(.basicConstraints), let bc = cert.basicConstraints else {
            throw .invalidExtension("basicConstraints", "\(name) must have basic constraints")
        }
        guard bcExt.isCritical else { throw .invalidExtension("basicConstraints", "\(name) basic constraints must be critical") }
        switch self {
        case .dac:
            guard !bc.isCA, bc.pathLengthConstraint == nil else {
                throw .invalidExtension("basicConstraints", "a DAC must not be a CA and has no path length")
            }
        case .pai:
            guard bc.isCA, bc.pathLengthConstraint == 0 else {
                throw .invalidExtension("basicConstraints", "a PAI must be a CA with path length 0")
            }
        case .paa:
            guard bc.isCA, bc.pathLengthConstraint == nil || bc.pathLengthConstraint == 1 else {
                throw .invalidExtension("basicConstraints", "a PAA must be a CA with path length 1 or none")
            }
        }

        guard let kuExt = cert.extension(.keyUsage), let ku = cert.keyUsage else {
            throw .invalidExtension("keyUsage", "\(name) must have key usage")
        }
        guard kuExt.isCritical else { throw .invalidExtension("keyUsage", "\(name) key usage must be critical") }
        switch self {
        case .dac:
            guard ku == .digitalSignature else {
                throw .invalidExtension("keyUsage", "a DAC's key usage must be digitalSignature only")
            }
        case .pai, .paa:
            guard ku.contains(.keyCertSign), ku.contains(.cRLSign),
                  ku.subtracting([.keyCertSign, .cRLSign, .digitalSignature]).isEmpty else {
                throw .invalidExtension("keyUsage", "a \(name)'s key usage must be keyCertSign and cRLSign (and optionally digitalSignature)")
            }
        }

        guard let skidExt = cert.extension(.subjectKeyIdentifier), let skid = cert.subjectKeyIdentifier else {
            throw .invalidExtension("subjectKeyIdentifier", "\(name) must have a subject key identifier")
        }
        guard !skidExt.isCritical, skid.count == 20 else {
            throw .invalidExtension("subjectKeyIdentifier", "\(name) subject key identifier must be non-critical and 20 bytes")
        }

        if let akidExt = cert.extension(.authorityKeyIdentifier) {
            guard !akidExt.isCritical, cert.authorityKeyIdentifier?.keyIdentifier?.count == 20 else {
                throw .invalidExtension("authorityKeyIdentifier", "\(name) authority key identifier must be non-critical with a 20-byte key identifier")
            }
        } else if self != .paa {
            throw .invalidExtension("authorityKeyIdentifier", "\(name) must have an authority key identifier")
        }
    }
}
