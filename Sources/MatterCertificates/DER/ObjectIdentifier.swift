/// An ASN.1 OBJECT IDENTIFIER, kept as its arcs (`1.2.840.10045.2.1`).
public struct ASN1ObjectIdentifier: Hashable, Sendable {
    public let arcs: [UInt64]

    /// From arcs; the first must be 0, 1 or 2 and, below 2, the second below 40 (otherwise the
    /// encoding is not meaningful, though it never traps).
    public init(_ arcs: [UInt64]) {
        self.arcs = arcs
    }

    /// From dotted text such as "2.5.4.3"; nil when it is not an OID.
    public init?(dotted: String) {
        var arcs: [UInt64] = []
        for part in dotted.split(separator: ".", omittingEmptySubsequences: false) {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }), let v = UInt64(part) else { return nil }
            arcs.append(v)
        }
        guard arcs.count >= 2, arcs[0] <= 2, arcs[0] == 2 || arcs[1] < 40, arcs[1] <= UInt64.max - 80 else { return nil }
        self.arcs = arcs
    }

    /// The contents octets of the DER encoding (X.690 8.19).
    public var contentBytes: [UInt8] {
        guard arcs.count >= 2 else { return [] }
        var out: [UInt8] = []
        let first = [arcs[0] &* 40 &+ arcs[1]] + arcs.dropFirst(2)
        for arc in first {
            var chunk: [UInt8] = [UInt8(arc & 0x7F)]
            var v = arc >> 7
            while v > 0 {
                chunk.insert(UInt8(v & 0x7F) | 0x80, at: 0)
                v >>= 7
            }
            out += chunk
        }
        return out
    }

    /// Decodes contents octets, rejecting empty input, non-minimal arcs (a leading 0x80),
    /// a truncated last arc and arcs above 2^63.
    public init(contentBytes bytes: ArraySlice<UInt8>) throws(CertificateError) {
        guard !bytes.isEmpty else { throw .derInvalidValue("empty OBJECT IDENTIFIER") }
        var values: [UInt64] = []
        var current: UInt64 = 0
        var inArc = false
        for byte in bytes {
            if !inArc && byte == 0x80 { throw .derInvalidValue("non-minimal OBJECT IDENTIFIER arc") }
            guard current >> 57 == 0 else { throw .derInvalidValue("OBJECT IDENTIFIER arc too large") }
            current = current << 7 | UInt64(byte & 0x7F)
            inArc = byte & 0x80 != 0
            if !inArc {
                values.append(current)
                current = 0
            }
        }
        guard !inArc else { throw .derInvalidValue("truncated OBJECT IDENTIFIER") }
        let head = values[0]
        let firstArcs: [UInt64] = head < 40 ? [0, head] : head < 80 ? [1, head - 40] : [2, head - 80]
        self.arcs = firstArcs + values.dropFirst()
    }
}

extension ASN1ObjectIdentifier: CustomStringConvertible {
    public var description: String {
        let dotted = arcs.map(String.init).joined(separator: ".")
        if let name = Self.names[self] { return "\(name) (\(dotted))" }
        return dotted
    }

    /// The dotted form only.
    public var dotted: String { arcs.map(String.init).joined(separator: ".") }
}

// MARK: - The object identifiers Matter certificates use

extension ASN1ObjectIdentifier {
    // Algorithms
    public static let ecPublicKey = ASN1ObjectIdentifier([1, 2, 840, 10045, 2, 1])
    public static let prime256v1 = ASN1ObjectIdentifier([1, 2, 840, 10045, 3, 1, 7])
    public static let ecdsaWithSHA256 = ASN1ObjectIdentifier([1, 2, 840, 10045, 4, 3, 2])

    // Certificate extensions (RFC 5280 4.2.1)
    public static let basicConstraints = ASN1ObjectIdentifier([2, 5, 29, 19])
    public static let keyUsage = ASN1ObjectIdentifier([2, 5, 29, 15])
    public static let extendedKeyUsage = ASN1ObjectIdentifier([2, 5, 29, 37])
    public static let subjectKeyIdentifier = ASN1ObjectIdentifier([2, 5, 29, 14])
    public static let authorityKeyIdentifier = ASN1ObjectIdentifier([2, 5, 29, 35])

    // Key purposes (RFC 5280 4.2.1.12)
    public static let serverAuth = ASN1ObjectIdentifier([1, 3, 6, 1, 5, 5, 7, 3, 1])
    public static let clientAuth = ASN1ObjectIdentifier([1, 3, 6, 1, 5, 5, 7, 3, 2])
    public static let codeSigning = ASN1ObjectIdentifier([1, 3, 6, 1, 5, 5, 7, 3, 3])
    public static let emailProtection = ASN1ObjectIdentifier([1, 3, 6, 1, 5, 5, 7, 3, 4])
    public static let timeStamping = ASN1ObjectIdentifier([1, 3, 6, 1, 5, 5, 7, 3, 8])
    public static let ocspSigning = ASN1ObjectIdentifier([1, 3, 6, 1, 5, 5, 7, 3, 9])

    // PKCS#9 extensionRequest, as carried in CSR attributes
    public static let extensionRequest = ASN1ObjectIdentifier([1, 2, 840, 113549, 1, 9, 14])

    /// Matter DN attribute `1.3.6.1.4.1.37244.1.<n>`.
    public static func matterDN(_ n: UInt64) -> ASN1ObjectIdentifier {
        ASN1ObjectIdentifier([1, 3, 6, 1, 4, 1, 37244, 1, n])
    }

    /// Matter device attestation DN attribute `1.3.6.1.4.1.37244.2.<n>` (1 = vendor ID, 2 = product ID).
    public static func matterAttestationDN(_ n: UInt64) -> ASN1ObjectIdentifier {
        ASN1ObjectIdentifier([1, 3, 6, 1, 4, 1, 37244, 2, n])
    }

    static let names: [ASN1ObjectIdentifier: String] = [
        .ecPublicKey: "id-ecPublicKey", .prime256v1: "prime256v1", .ecdsaWithSHA256: "ecdsa-with-SHA256",
        .basicConstraints: "basicConstraints", .keyUsage: "keyUsage", .extendedKeyUsage: "extKeyUsage",
        .subjectKeyIdentifier: "subjectKeyIdentifier", .authorityKeyIdentifier: "authorityKeyIdentifier",
        .serverAuth: "serverAuth", .clientAuth: "clientAuth", .codeSigning: "codeSigning",
        .emailProtection: "emailProtection", .timeStamping: "timeStamping", .ocspSigning: "OCSPSigning",
    ]
}
