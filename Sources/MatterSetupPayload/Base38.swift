/// Matter's base-38 text encoding of QR code payloads (Matter Core 5.1.3.1).
///
/// Bytes go in little-endian chunks of 3 (5 characters), a final 2 (4 characters) or 1
/// (2 characters); each chunk's value is written least-significant digit first.
public enum Base38 {
    static let alphabet: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-.".utf8)

    private static let digitValue: [Int8] = {
        var t = [Int8](repeating: -1, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = Int8(i) }
        return t
    }()

    /// Characters produced per chunk of 1, 2 or 3 bytes.
    private static func characters(forBytes n: Int) -> Int { [0, 2, 4, 5][n] }

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var value: UInt32 = 0
            for k in 0..<n { value |= UInt32(bytes[i + k]) << (8 * k) }
            for _ in 0..<characters(forBytes: n) {
                out.append(alphabet[Int(value % 38)])
                value /= 38
            }
            i += n
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: String) throws(SetupPayloadError) -> [UInt8] {
        let chars = Array(text.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < chars.count {
            let n = min(5, chars.count - i)
            let byteCount: Int
            switch n {
            case 5: byteCount = 3
            case 4: byteCount = 2
            case 2: byteCount = 1
            default: throw .invalidLength("a base-38 chunk of \(n) characters cannot occur")
            }
            var value: UInt32 = 0
            for k in stride(from: n - 1, through: 0, by: -1) {
                let d = digitValue[Int(chars[i + k])]
                guard d >= 0 else { throw .invalidCharacter(chars[i + k]) }
                value = value * 38 + UInt32(d)
            }
            guard value < (1 << (8 * byteCount)) else {
                throw .invalidBase38Value("the characters at \(i)..<\(i + n) encode a value too large for \(byteCount) bytes")
            }
            for k in 0..<byteCount { out.append(UInt8(truncatingIfNeeded: value >> (8 * k))) }
            i += n
        }
        return out
    }
}
