/// Why a JSON text was refused. `offset` is the byte offset in the input where it went wrong.
public enum JSONError: Error, Hashable, Sendable, CustomStringConvertible {
    case unexpectedEnd(offset: Int)
    case unexpectedByte(UInt8, offset: Int)
    /// Bytes after the top-level value (other than whitespace).
    case trailingBytes(offset: Int)
    /// Containers nested deeper than the parser's limit.
    case tooDeep(limit: Int, offset: Int)
    case invalidUTF8(offset: Int)
    case invalidEscape(offset: Int)
    /// A raw control character (below U+0020) inside a string.
    case controlCharacter(offset: Int)
    case invalidNumber(offset: Int)
    /// An integer outside -2^63 ... 2^64-1 (integers are never rounded through a Double).
    case integerOutOfRange(offset: Int)
    case duplicateKey(String, offset: Int)

    public var description: String {
        switch self {
        case .unexpectedEnd(let o): return "JSON ends early at byte \(o)"
        case .unexpectedByte(let b, let o): return "unexpected byte 0x\(String(b, radix: 16)) at byte \(o) of the JSON text"
        case .trailingBytes(let o): return "extra data after the JSON value at byte \(o)"
        case .tooDeep(let l, let o): return "JSON nested deeper than \(l) levels at byte \(o)"
        case .invalidUTF8(let o): return "invalid UTF-8 in a JSON string at byte \(o)"
        case .invalidEscape(let o): return "invalid escape sequence in a JSON string at byte \(o)"
        case .controlCharacter(let o): return "unescaped control character in a JSON string at byte \(o)"
        case .invalidNumber(let o): return "malformed number at byte \(o) of the JSON text"
        case .integerOutOfRange(let o): return "integer at byte \(o) does not fit 64 bits"
        case .duplicateKey(let k, let o): return "duplicate object key \"\(k)\" at byte \(o)"
        }
    }
}
