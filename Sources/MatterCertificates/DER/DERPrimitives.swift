/// Typed reads of primitive DER elements, each enforcing the DER form of its type.
extension DERNode {
    /// BOOLEAN: one octet, 0x00 or 0xFF (X.690 11.1).
    public func boolean() throws(CertificateError) -> Bool {
        _ = try expect(.boolean)
        guard value.count == 1, value.first == 0x00 || value.first == 0xFF else {
            throw .derInvalidValue("BOOLEAN must be one octet 0x00 or 0xFF")
        }
        return value.first == 0xFF
    }

    /// INTEGER contents octets, checked to be minimal (X.690 8.3.2).
    public func integerBytes() throws(CertificateError) -> [UInt8] {
        _ = try expect(.integer)
        let v = Array(value)
        guard !v.isEmpty else { throw .derInvalidValue("empty INTEGER") }
        if v.count > 1 && ((v[0] == 0 && v[1] & 0x80 == 0) || (v[0] == 0xFF && v[1] & 0x80 != 0)) {
            throw .derInvalidValue("INTEGER not in its shortest form")
        }
        return v
    }

    /// A small INTEGER as a signed 64-bit value.
    public func integer() throws(CertificateError) -> Int64 {
        let v = try integerBytes()
        guard v.count <= 8 else { throw .derInvalidValue("INTEGER too large") }
        var r: Int64 = v[0] & 0x80 != 0 ? -1 : 0
        for b in v { r = r << 8 | Int64(b) }
        return r
    }

    /// The magnitude of a non-negative INTEGER, without the sign octet.
    public func unsignedIntegerMagnitude() throws(CertificateError) -> [UInt8] {
        let v = try integerBytes()
        guard v[0] & 0x80 == 0 else { throw .derInvalidValue("negative INTEGER") }
        return v[0] == 0 && v.count > 1 ? Array(v.dropFirst()) : v
    }

    /// BIT STRING contents: the unused-bit count and the octets. Unused bits must be zero (DER).
    public func bitString() throws(CertificateError) -> (unusedBits: Int, bytes: [UInt8]) {
        _ = try expect(.bitString)
        guard let unused = value.first, unused <= 7 else { throw .derInvalidValue("BIT STRING unused-bit count") }
        let bytes = Array(value.dropFirst())
        if bytes.isEmpty && unused != 0 { throw .derInvalidValue("empty BIT STRING with unused bits") }
        if let last = bytes.last, last & UInt8((1 << Int(unused)) - 1) != 0 {
            throw .derInvalidValue("BIT STRING unused bits are not zero")
        }
        return (Int(unused), bytes)
    }

    /// A BIT STRING of whole octets (a public key or a signature).
    public func octetAlignedBitString() throws(CertificateError) -> [UInt8] {
        let (unused, bytes) = try bitString()
        guard unused == 0 else { throw .derInvalidValue("BIT STRING is not octet-aligned") }
        return bytes
    }

    /// A named-bit BIT STRING as bits (bit i at value `1 << i`); trailing zero bits must have
    /// been removed, as DER requires (X.690 11.2.2).
    public func namedBits() throws(CertificateError) -> UInt32 {
        let (unused, bytes) = try bitString()
        guard bytes.count <= 4 else { throw .derInvalidValue("named-bit BIT STRING too long") }
        if let last = bytes.last, last & UInt8(1 << unused) == 0 {
            throw .derInvalidValue("named-bit BIT STRING has trailing zero bits")
        }
        var bits: UInt32 = 0
        for (i, byte) in bytes.enumerated() {
            for j in 0..<8 where byte & (0x80 >> UInt8(j)) != 0 { bits |= 1 << UInt32(i * 8 + j) }
        }
        return bits
    }

    public func octetString() throws(CertificateError) -> [UInt8] {
        _ = try expect(.octetString)
        return Array(value)
    }

    public func objectIdentifier() throws(CertificateError) -> ASN1ObjectIdentifier {
        _ = try expect(.objectIdentifier)
        return try ASN1ObjectIdentifier(contentBytes: value)
    }

    public func null() throws(CertificateError) {
        _ = try expect(.null)
        guard value.isEmpty else { throw .derInvalidValue("NULL with contents") }
    }

    /// The text of a UTF8String, PrintableString or IA5String, validated for its character set.
    public func string() throws(CertificateError) -> String {
        let bytes = Array(value)
        switch tag {
        case .utf8String:
            guard let s = String(validating: bytes, as: UTF8.self) else { throw .derInvalidValue("invalid UTF-8 in UTF8String") }
            return s
        case .printableString:
            guard bytes.allSatisfy(Self.isPrintableStringCharacter) else {
                throw .derInvalidValue("character not allowed in PrintableString")
            }
            return String(decoding: bytes, as: UTF8.self)
        case .ia5String:
            guard bytes.allSatisfy({ $0 < 0x80 }) else { throw .derInvalidValue("non-ASCII IA5String") }
            return String(decoding: bytes, as: UTF8.self)
        default:
            throw .derUnexpectedElement(expected: "a string", found: tag.description)
        }
    }

    /// PrintableString's repertoire (X.680 41.4): letters, digits, space and ' ( ) + , - . / : = ?
    static func isPrintableStringCharacter(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array(" '()+,-./:=?".utf8).contains(c)
        }
    }

    /// Parses the contents of this OCTET STRING or BIT STRING (octet-aligned) as one DER element.
    public func encapsulated() throws(CertificateError) -> DERNode {
        switch tag {
        case .octetString: return try DER.parse(Array(value))
        case .bitString: return try DER.parse(try octetAlignedBitString())
        default: throw .derUnexpectedElement(expected: "OCTET STRING or BIT STRING", found: tag.description)
        }
    }
}
