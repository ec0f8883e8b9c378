import MatterCertificates

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
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: separator)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8.filter { $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: " ") })
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < digits.count {
            guard let h = nibble(digits[i]), let l = nibble(digits[i + 1]) else { return nil }
            out.append(h << 4 | l)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
