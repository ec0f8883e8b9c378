/// An ECDSA P-256 signature. Its fixed form is 64 bytes `r || s` (Matter's wire form); the
/// DER `Ecdsa-Sig-Value` form is what X.509 carries.
public struct P256Signature: Sendable, Hashable {
    /// `r || s`, 32 bytes each, big-endian.
    public let rawRepresentation: [UInt8]

    /// A signature from 64 bytes `r || s`.
    /// - Throws: `CryptoError.invalidSignature` for any other length.
    public init(rawRepresentation: [UInt8]) throws(CryptoError) {
        guard rawRepresentation.count == 64 else {
            throw CryptoError(.invalidSignature, "raw P-256 signature is \(rawRepresentation.count) bytes; expected 64")
        }
        self.rawRepresentation = rawRepresentation
    }

    /// A signature from strict DER `SEQUENCE { INTEGER r, INTEGER s }`.
    /// - Throws: `CryptoError.invalidSignature` for malformed or non-minimal DER, or integers
    ///   longer than 32 bytes.
    public init(derRepresentation: [UInt8]) throws(CryptoError) {
        rawRepresentation = try ECDSASignatureDER.decode(derRepresentation, coordinateLength: 32)
    }

    /// The DER `Ecdsa-Sig-Value`.
    public var derRepresentation: [UInt8] {
        // 64 bytes always split into two 32-byte integers, so this cannot fail.
        (try? ECDSASignatureDER.encode(raw: rawRepresentation, coordinateLength: 32)) ?? []
    }
}

/// Conversion between raw `r || s` and DER for any coordinate length (the SDK's vectors also
/// use 64-byte coordinates).
package enum ECDSASignatureDER {
    /// DER of `SEQUENCE { INTEGER r, INTEGER s }` from `raw` = r || s of `coordinateLength` each.
    package static func encode(raw: [UInt8], coordinateLength: Int) throws(CryptoError) -> [UInt8] {
        guard coordinateLength > 0, raw.count == 2 * coordinateLength else {
            throw CryptoError(.invalidSignature, "raw signature is \(raw.count) bytes; expected \(2 * coordinateLength)")
        }
        let body = ASN1Integer.encode(unsigned: Array(raw.prefix(coordinateLength)))
            + ASN1Integer.encode(unsigned: Array(raw.suffix(coordinateLength)))
        return [0x30] + DERLength.encode(body.count) + body
    }

    /// Raw r || s from strict DER.
    package static func decode(_ der: [UInt8], coordinateLength: Int) throws(CryptoError) -> [UInt8] {
        var reader = DERReader(der)
        let sequence = try reader.element(tag: 0x30)
        guard reader.isAtEnd else { throw CryptoError(.invalidSignature, "trailing bytes after DER signature") }
        var inner = DERReader(sequence)
        let r = try ASN1Integer.decodeUnsigned(inner.element(tag: 0x02), width: coordinateLength)
        let s = try ASN1Integer.decodeUnsigned(inner.element(tag: 0x02), width: coordinateLength)
        guard inner.isAtEnd else { throw CryptoError(.invalidSignature, "extra elements in DER signature") }
        return r + s
    }
}

/// Minimal DER INTEGER handling for non-negative big-endian integers.
package enum ASN1Integer {
    /// The INTEGER content octets: leading zeros stripped, a 0x00 added when the top bit is set.
    package static func content(unsigned bytes: [UInt8]) -> [UInt8] {
        var trimmed = Array(bytes.drop { $0 == 0 })
        if trimmed.isEmpty { return [0] }
        if trimmed[0] & 0x80 != 0 { trimmed.insert(0, at: 0) }
        return trimmed
    }

    /// Tag, length and content of a non-negative INTEGER.
    package static func encode(unsigned bytes: [UInt8]) -> [UInt8] {
        let body = content(unsigned: bytes)
        return [0x02] + DERLength.encode(body.count) + body
    }

    /// The value of a minimally encoded non-negative INTEGER, left-padded to `width` bytes.
    package static func decodeUnsigned(_ content: [UInt8], width: Int) throws(CryptoError) -> [UInt8] {
        guard let first = content.first else { throw CryptoError(.invalidSignature, "empty DER INTEGER") }
        guard first & 0x80 == 0 else { throw CryptoError(.invalidSignature, "negative DER INTEGER") }
        if content.count > 1, first == 0, content[1] & 0x80 == 0 {
            throw CryptoError(.invalidSignature, "non-minimal DER INTEGER")
        }
        let value = Array(content.drop { $0 == 0 })
        guard value.count <= width else { throw CryptoError(.invalidSignature, "DER INTEGER longer than \(width) bytes") }
        return [UInt8](repeating: 0, count: width - value.count) + value
    }
}

enum DERLength {
    static func encode(_ length: Int) -> [UInt8] {
        if length < 0x80 { return [UInt8(length)] }
        var bytes: [UInt8] = []
        var value = length
        while value > 0 {
            bytes.insert(UInt8(value & 0xFF), at: 0)
            value >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}

/// Reads definite-length DER TLVs with minimal length encoding.
struct DERReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func element(tag: UInt8) throws(CryptoError) -> [UInt8] {
        guard offset + 2 <= bytes.count, bytes[offset] == tag else {
            throw CryptoError(.invalidSignature, "expected DER tag 0x\(String(tag, radix: 16))")
        }
        var length = Int(bytes[offset + 1])
        offset += 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...2).contains(count), offset + count <= bytes.count else {
                throw CryptoError(.invalidSignature, "unsupported DER length")
            }
            length = bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
            offset += count
            guard length >= 0x80, count == 1 || length > 0xFF else {
                throw CryptoError(.invalidSignature, "non-minimal DER length")
            }
        }
        guard length <= bytes.count - offset else { throw CryptoError(.invalidSignature, "truncated DER element") }
        defer { offset += length }
        return Array(bytes[offset..<offset + length])
    }
}
