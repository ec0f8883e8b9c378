import MatterCrypto

/// A certificate revocation list published for a PAA or a PAI at a DCL revocation distribution
/// point (Matter Core 6.2.4), checked the way the SDK's revocation-set generator checks it:
///
/// 1. The CRL parses (OpenSSL) and is signed with ecdsa-with-SHA256.
/// 2. Its issuer is the CRL signer certificate's subject, and its signature verifies with the
///    signer's key.
/// 3. The signer chains to a trusted PAA: it is the PAA, or it (through its delegator, when it
///    has one) is signed by a PAA of the trust store.
/// 4. The certificates it revokes are those whose issuer and authority key identifier are the
///    revocation point's issuer: the delegator when there is one, else the signer.
public struct AttestationCRL: Sendable, Hashable {
    public let crl: CertificateRevocationList
    /// The certificate that signed the CRL.
    public let signer: X509Certificate
    /// The certificate that delegated CRL signing, when the signer is a delegate.
    public let delegator: X509Certificate?
    /// The DER Name that revoked certificates carry as their issuer.
    public let issuerName: [UInt8]
    /// The subject key identifier of that issuer (revoked certificates' authority key identifier).
    public let issuerSubjectKeyIdentifier: [UInt8]
    /// The revocation point's label, for messages (e.g. the DCL's `label` and vendor ID).
    public let label: String
    /// Where the CRL was fetched from, when known.
    public let url: String?

    /// Checks steps 1 to 4 against `trustStore`; `issuerSubjectKeyIdentifier`, when given (the
    /// DCL's `issuerSubjectKeyID`), must be the issuer's.
    public init(crlDER: [UInt8], signerCertificate: [UInt8], delegatorCertificate: [UInt8]? = nil,
                issuerSubjectKeyIdentifier expected: [UInt8]? = nil, label: String, url: String?,
                trustStore: PAATrustStore) throws(CertificateError) {
        do { crl = try CertificateRevocationList(derEncoded: crlDER) } catch { throw .crypto(error.description) }
        guard crl.isECDSAWithSHA256 else { throw .unsupportedSignatureAlgorithm("the CRL is not signed with ecdsa-with-SHA256") }
        signer = try X509Certificate(derEncoded: signerCertificate)
        delegator = try delegatorCertificate.map { der throws(CertificateError) in try X509Certificate(derEncoded: der) }
        self.label = label
        self.url = url

        guard crl.issuerName == signer.subject.encoded else {
            throw .issuerMismatch("the CRL's issuer is not its signer certificate's subject")
        }
        guard let key = try? P256PublicKey(x962Representation: signer.subjectPublicKeyInfo.p256PublicKey()),
              crl.isSignatureValid(publicKey: key) else {
            throw .signatureInvalid("the CRL's signature does not verify with its signer certificate's key")
        }
        if let delegator, !AttestationSignatures.verify(signer, signedBy: delegator) {
            throw .signatureInvalid("the CRL signer certificate is not signed by its delegator")
        }
        let authority = delegator ?? signer
        guard let skid = authority.subjectKeyIdentifier else {
            throw .invalidExtension("subjectKeyIdentifier", "the CRL issuer certificate has none")
        }
        if let expected, expected != skid {
            throw .authorityKeyIDMismatch("the revocation point's issuer key ID is not the CRL issuer certificate's")
        }
        issuerName = authority.subject.encoded
        issuerSubjectKeyIdentifier = skid
        guard Self.chainsToTrustedPAA(authority, trustStore) else {
            throw .issuerMismatch("the CRL issuer certificate is not a trusted PAA nor issued by one")
        }
    }

    private static func chainsToTrustedPAA(_ cert: X509Certificate, _ store: PAATrustStore) -> Bool {
        if store.certificates.contains(where: { $0.derBytes == cert.derBytes }) { return true }
        guard let akid = cert.authorityKeyIdentifier?.keyIdentifier,
              let paa = store.certificate(forSubjectKeyIdentifier: akid, issuerName: cert.issuer.encoded),
              paa.subject.encoded == cert.issuer.encoded else { return false }
        return AttestationSignatures.verify(cert, signedBy: paa)
    }

    /// Whether the CRL revokes `certificate`: same issuer and authority key identifier, and
    /// its serial number is listed.
    public func revokes(_ certificate: X509Certificate) -> Bool {
        certificate.issuer.encoded == issuerName
            && certificate.authorityKeyIdentifier?.keyIdentifier == issuerSubjectKeyIdentifier
            && crl.lists(serialNumber: certificate.serialNumber)
    }

    /// Whether the CRL covers certificates issued by `issuer` (a PAA or PAI).
    public func covers(issuer: X509Certificate) -> Bool {
        issuer.subject.encoded == issuerName && issuer.subjectKeyIdentifier == issuerSubjectKeyIdentifier
    }

    /// Seconds past nextUpdate at `now` (Unix seconds); 0 when not past it or without one.
    public func secondsPastNextUpdate(at now: Int64) -> Int64 {
        guard let next = crl.nextUpdate else { return 0 }
        return max(0, now - next)
    }

    /// How the CRL is named in messages: its label and, when known, its URL.
    public var name: String { url.map { "'\(label)' (\($0))" } ?? "'\(label)'" }
}
