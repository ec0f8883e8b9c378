import MatterCertificates
import MatterTLV

/// One PAA of the trust store, with where it came from.
public struct TrustedPAA: Sendable, Hashable {
    public let certificate: X509Certificate
    /// `bundled` (compiled in), `trust-store/<file>` (a file in the state directory's folder),
    /// or what added it: `dcl <url>`, `file <path>`, `dir <path>`.
    public let origin: String
    /// The file name it was read from (bundled roots keep the SDK mirror's name).
    public let file: String?

    public init(certificate: X509Certificate, origin: String, file: String?) {
        self.certificate = certificate
        self.origin = origin
        self.file = file
    }

    public var subjectKeyIdentifier: [UInt8] { certificate.subjectKeyIdentifier ?? [] }
    /// Uppercase hex without separators (the form `remove` takes; colons are accepted too).
    public var subjectKeyIdentifierHex: String { TrustStoreHex.encode(subjectKeyIdentifier) }
    public var commonName: String? { certificate.subject.first(AttestationVendorProduct.commonNameAttribute)?.stringValue }
    /// The Matter vendor ID in the subject, when the PAA is VID-scoped.
    public var vendorID: UInt16? {
        (try? AttestationVendorProduct(subjectAttributes: certificate.subject.attributes.map { ($0.type, $0.value) }))?.vendorID
    }
    public var notAfter: ASN1Time { certificate.notAfter }
    /// True for the SDK's published test PAAs and test vendor IDs (refused unless test devices are allowed).
    public var isTestPAA: Bool { AttestationTestCredentials.isTestPAA(certificate, vendorID: vendorID) }
}

/// Hex forms of key identifiers: uppercase without separators out, with or without colons in.
public enum TrustStoreHex {
    public static func encode(_ bytes: [UInt8], separator: String = "") -> String {
        Base16.encode(bytes, uppercase: true, separator: separator)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        let digits = String(text.filter { $0 != ":" && $0 != " " })
        guard !digits.isEmpty else { return nil }
        return Base16.decode(digits)
    }
}
