/// Builds DER elements (X.690 section 10). Each function returns the complete encoding of one
/// element; constructed elements take the encodings of their members.
public enum DERWriter {
    /// One element with the given tag and contents octets; the length takes the shortest form.
    public static func element(_ tag: DERTag, _ contents: [UInt8]) -> [UInt8] {
        var out = identifier(tag)
        let n = contents.count
        if n < 0x80 {
            out.append(UInt8(n))
        } else {
            var lengthBytes: [UInt8] = []
            var v = n
            while v > 0 {
                lengthBytes.insert(UInt8(v & 0xFF), at: 0)
                v >>= 8
            }
            out.append(0x80 | UInt8(lengthBytes.count))
            out += lengthBytes
        }
        return out + contents
    }

    private static func identifier(_ tag: DERTag) -> [UInt8] {
        let lead = tag.tagClass.rawValue << 6 | (tag.isConstructed ? 0x20 : 0)
        if tag.number < 31 { return [lead | UInt8(tag.number)] }
        var chunk: [UInt8] = [UInt8(tag.number & 0x7F)]
        var v = tag.number >> 7
        while v > 0 {
            chunk.insert(UInt8(v & 0x7F) | 0x80, at: 0)
            v >>= 7
        }
        return [lead | 0x1F] + chunk
    }

    public static func sequence(_ members: [[UInt8]]) -> [UInt8] {
        element(.sequence, Array(members.joined()))
    }

    public static func set(_ members: [[UInt8]]) -> [UInt8] {
        element(.set, Array(members.joined()))
    }

    /// `[n] EXPLICIT`: a constructed context-specific wrapper around complete elements.
    public static func explicit(_ n: UInt32, _ members: [[UInt8]]) -> [UInt8] {
        element(.context(n, constructed: true), Array(members.joined()))
    }

    public static func boolean(_ v: Bool) -> [UInt8] {
        element(.boolean, [v ? 0xFF : 0x00])
    }

    /// An INTEGER from a signed value, in the fewest two's-complement octets.
    public static func integer(_ v: Int64) -> [UInt8] {
        var bytes: [UInt8] = (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * (7 - $0))) }
        while bytes.count > 1 && ((bytes[0] == 0 && bytes[1] & 0x80 == 0) || (bytes[0] == 0xFF && bytes[1] & 0x80 != 0)) {
            bytes.removeFirst()
        }
        return element(.integer, bytes)
    }

    /// A non-negative INTEGER from big-endian magnitude bytes: leading zeros are dropped and one
    /// is added back when the top bit is set, as DER requires (used for ECDSA r and s).
    public static func unsignedInteger(_ magnitude: some Collection<UInt8>) -> [UInt8] {
        var bytes = Array(magnitude.drop { $0 == 0 })
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return element(.integer, bytes)
    }

    /// An INTEGER whose contents octets are given as-is (e.g. a certificate serial number kept
    /// exactly as issued).
    public static func integer(contents: [UInt8]) -> [UInt8] {
        element(.integer, contents)
    }

    public static func octetString(_ v: [UInt8]) -> [UInt8] {
        element(.octetString, v)
    }

    /// A BIT STRING of whole octets (no unused bits), e.g. a public key or a signature.
    public static func bitString(_ v: [UInt8]) -> [UInt8] {
        element(.bitString, [0] + v)
    }

    /// A named-bit BIT STRING (X.690 11.2.2): bit 0 is the most significant bit of the first
    /// octet and trailing zero bits are removed. `bits` holds bit i at value `1 << i`.
    public static func namedBitString(_ bits: UInt32) -> [UInt8] {
        guard bits != 0 else { return element(.bitString, [0]) }
        let highest = 31 - bits.leadingZeroBitCount        // highest named bit set
        let octets = highest / 8 + 1
        var bytes = [UInt8](repeating: 0, count: octets)
        for i in 0...highest where bits & (1 << UInt32(i)) != 0 {
            bytes[i / 8] |= 0x80 >> UInt8(i % 8)
        }
        let unused = UInt8(octets * 8 - 1 - highest)
        return element(.bitString, [unused] + bytes)
    }

    public static func null() -> [UInt8] { element(.null, []) }

    public static func objectIdentifier(_ oid: ASN1ObjectIdentifier) -> [UInt8] {
        element(.objectIdentifier, oid.contentBytes)
    }

    public static func utf8String(_ s: String) -> [UInt8] { element(.utf8String, Array(s.utf8)) }
    public static func printableString(_ s: String) -> [UInt8] { element(.printableString, Array(s.utf8)) }
    public static func ia5String(_ s: String) -> [UInt8] { element(.ia5String, Array(s.utf8)) }
}
