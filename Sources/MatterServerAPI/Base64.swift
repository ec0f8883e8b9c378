/// Standard base64 with padding (RFC 4648 section 4), the form the API uses for octet strings.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    /// The padded base64 text of `bytes`.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var it = bytes.makeIterator()
        while let a = it.next() {
            let b = it.next(), c = it.next()
            let n = UInt32(a) << 16 | UInt32(b ?? 0) << 8 | UInt32(c ?? 0)
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(b == nil ? UInt8(ascii: "=") : alphabet[Int(n >> 6 & 63)])
            out.append(c == nil ? UInt8(ascii: "=") : alphabet[Int(n & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of a padded, canonical base64 text; nil when the text is not one (wrong length,
    /// a character outside the alphabet, misplaced padding, or non-zero unused bits).
    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 4 * 3)
        var i = 0
        while i < chars.count {
            let last = i + 4 == chars.count
            let pad = (chars[i + 3] == UInt8(ascii: "=") ? 1 : 0) + (chars[i + 2] == UInt8(ascii: "=") ? 1 : 0)
            guard pad == 0 || last, !(pad == 1 && chars[i + 2] == UInt8(ascii: "=")) else { return nil }
            var n: UInt32 = 0
            for j in 0..<(4 - pad) {
                let v = reverse[Int(chars[i + j])]
                guard v != 0xFF else { return nil }
                n = n << 6 | UInt32(v)
            }
            n <<= UInt32(6 * pad)
            if pad == 2 { guard n & 0xFFFF == 0 else { return nil } }
            if pad == 1 { guard n & 0xFF == 0 else { return nil } }
            out.append(UInt8(n >> 16 & 0xFF))
            if pad < 2 { out.append(UInt8(n >> 8 & 0xFF)) }
            if pad < 1 { out.append(UInt8(n & 0xFF)) }
            i += 4
        }
        return out
    }
}
