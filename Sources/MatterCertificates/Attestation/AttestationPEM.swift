/// Reading the file forms attestation material comes in: DER as is, or PEM
/// (`-----BEGIN CERTIFICATE-----`, base64, `-----END CERTIFICATE-----`), as chip-tool's
/// `--paa-trust-store-path` folders hold them.
public enum AttestationPEM {
    /// The DER bytes of every `label` block in PEM text (CERTIFICATE by default), in order.
    public static func blocks(in text: [UInt8], label: String = "CERTIFICATE") -> [[UInt8]] {
        let begin = Array("-----BEGIN \(label)-----".utf8)
        let end = Array("-----END \(label)-----".utf8)
        var out: [[UInt8]] = []
        var i = 0
        while let b = find(begin, in: text, from: i) {
            let bodyStart = b + begin.count
            guard let e = find(end, in: text, from: bodyStart) else { break }
            if let der = base64Decode(text[bodyStart..<e]) { out.append(der) }
            i = e + end.count
        }
        return out
    }

    /// Whether the bytes look like PEM text rather than DER.
    public static func isPEM(_ bytes: [UInt8]) -> Bool {
        find(Array("-----BEGIN ".utf8), in: bytes, from: 0) != nil
    }

    /// Certificates from a file's contents: every CERTIFICATE block of PEM, or the bytes as DER.
    public static func certificates(fromFileContents bytes: [UInt8]) -> [[UInt8]] {
        isPEM(bytes) ? blocks(in: bytes) : [bytes]
    }

    private static func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, hay.count >= needle.count, from <= hay.count - needle.count else { return nil }
        var i = from
        while i <= hay.count - needle.count {
            if hay[i] == needle[0] && hay[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// Standard base64 (RFC 4648 section 4); whitespace is skipped, padding optional. Nil when
    /// a character outside the alphabet appears or the length is impossible.
    public static func base64Decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var acc: UInt32 = 0
        var bits = 0
        var padding = 0
        for c in text {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a") + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0") + 52)
            case UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "/"): v = 63
            case UInt8(ascii: "="): padding += 1; continue
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): continue
            default: return nil
            }
            guard padding == 0 else { return nil }  // data after '='
            acc = acc << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
                acc &= (1 << UInt32(bits)) - 1
            }
        }
        guard bits < 6, padding <= 2 else { return nil }
        return out
    }
}
