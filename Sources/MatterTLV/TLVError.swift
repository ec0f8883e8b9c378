/// Why TLV bytes could not be decoded, or an element tree did not have the expected shape.
public enum TLVError: Error, Hashable, Sendable {
    /// The input ended inside an element (at the given offset).
    case underrun(offset: Int)
    /// The element type in a control byte is reserved (Matter Core A.7.1).
    case invalidElementType(UInt8, offset: Int)
    /// An end-of-container marker carried a tag, or appeared outside any container.
    case unexpectedEndOfContainer(offset: Int)
    /// A container was not closed before the input ended.
    case unterminatedContainer(offset: Int)
    /// Containers nest deeper than the decoder's limit.
    case depthLimitExceeded(limit: Int)
    /// Bytes remain after the top-level element.
    case trailingBytes(offset: Int)
    /// A UTF-8 string element holds bytes that are not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// A string length does not fit in memory or in the input.
    case lengthTooLarge(offset: Int)
    /// An array member had a tag, or a structure member had none.
    case invalidTagInContainer(TLVTag, offset: Int)
    /// An element's type is not what the schema expects.
    case wrongType(tag: TLVTag, expected: String, found: String)
    /// A required field is absent.
    case missingField(TLVTag)
    /// A number does not fit the field it is read into.
    case outOfRange(tag: TLVTag)
}

extension TLVError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .underrun(let o): return "TLV data ends too early (at byte \(o))"
        case .invalidElementType(let t, let o): return "reserved TLV element type 0x\(String(t, radix: 16)) at byte \(o)"
        case .unexpectedEndOfContainer(let o): return "unexpected end-of-container at byte \(o)"
        case .unterminatedContainer(let o): return "TLV container opened at byte \(o) is never closed"
        case .depthLimitExceeded(let l): return "TLV containers nest deeper than \(l) levels"
        case .trailingBytes(let o): return "unexpected bytes after the TLV element, from byte \(o)"
        case .invalidUTF8(let o): return "invalid UTF-8 in the string at byte \(o)"
        case .lengthTooLarge(let o): return "TLV length at byte \(o) exceeds the data"
        case .invalidTagInContainer(let t, let o): return "tag \(t) not allowed in this container (byte \(o))"
        case .wrongType(let tag, let e, let f): return "field \(tag): expected \(e), found \(f)"
        case .missingField(let t): return "required field \(t) is missing"
        case .outOfRange(let t): return "field \(t): value out of range"
        }
    }
}
