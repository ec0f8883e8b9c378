/// Hexadecimal (base 16) text of bytes, both ways: one helper for every layer (certificates, datasets,
/// the CLI, the API).
public enum Base16 {
    /// Two digits a byte, lowercase unless `uppercase` (DNS-SD names and TXT values are uppercase),
    /// with `separator` between bytes (":" for key identifiers as certificate tools show them).
    public static func encode(_ bytes: some Sequence<UInt8>, uppercase: Bool = false, separator: String = "") -> String {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var out: [UInt8] = []
        for b in bytes {
            if !out.isEmpty { out.append(contentsOf: separator.utf8) }
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of an even number of hex digits (either case), or nil for anything else.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        decode(utf8: text.utf8)
    }

    /// The bytes of an even number of hex digits given as UTF-8 (a TXT value, a DNS label), or nil.
    public static func decode(utf8 text: some Collection<UInt8>) -> [UInt8]? {
        let chars = Array(text)
        guard chars.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
}
