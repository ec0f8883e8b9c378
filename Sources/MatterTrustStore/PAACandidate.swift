import MatterCertificates

/// The checks a certificate passes before the trust store keeps it as a PAA, whatever its
/// source (the DCL, a file, a folder): it parses, is self-signed (subject = issuer and its
/// signature verifies with its own key), follows the Matter PAA profile (Matter Core 6.2.2.2:
/// a CA with keyCertSign and cRLSign, a 20-byte subject key identifier, no product ID) and is
/// valid now.
enum PAACandidate {
    /// The certificate, or why it is refused.
    static func check(der: [UInt8], at now: ASN1Time) -> Result<X509Certificate, Refusal> {
        let cert: X509Certificate
        do { cert = try X509Certificate(derEncoded: der) } catch { return .failure(Refusal("malformed certificate: \(error)")) }
        guard cert.issuer.encoded == cert.subject.encoded else {
            return .failure(Refusal("not self-signed: its issuer is not its subject (a PAA is a root)"))
        }
        guard AttestationSignatures.verify(cert, signedBy: cert) else {
            return .failure(Refusal("not self-signed: its signature does not verify with its own key"))
        }
        do { try AttestationCertificateRole.paa.checkProfile(cert) } catch {
            return .failure(Refusal("not a PAA (Matter PAA profile): \(error)"))
        }
        let ids: AttestationVendorProduct
        do { ids = try AttestationVendorProduct(subjectAttributes: cert.subject.attributes.map { ($0.type, $0.value) }) } catch {
            return .failure(Refusal("not a PAA: its subject's vendor ID is malformed: \(error)"))
        }
        guard ids.productID == nil else { return .failure(Refusal("not a PAA: its subject carries a product ID")) }
        guard now >= cert.notBefore else { return .failure(Refusal("not yet valid (from \(cert.notBefore.iso8601))")) }
        guard now <= cert.notAfter else { return .failure(Refusal("expired (\(cert.notAfter.iso8601))")) }
        return .success(cert)
    }

    /// Why a certificate was not kept.
    struct Refusal: Error, Sendable, Hashable {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The DER certificates in file contents (PEM blocks, else the bytes as DER).
    static func certificates(inFile bytes: [UInt8]) -> [[UInt8]] {
        AttestationPEM.certificates(fromFileContents: bytes).filter { !$0.isEmpty }
    }
}
