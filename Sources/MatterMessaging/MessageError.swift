/// Why a message could not be decoded, decrypted or accepted. Peer input never traps: every
/// defect ends here.
public enum MessageError: Error, Hashable, Sendable {
    case truncated(offset: Int)
    /// The message format version in the message flags is not 0.
    case unsupportedVersion(UInt8)
    /// DSIZ = 3 is reserved.
    case reservedDestinationSize
    /// Session type 2 and 3 are reserved.
    case reservedSessionType(UInt8)
    /// The message integrity check failed: wrong key, or the frame was altered.
    case authenticationFailed
    /// The counter was seen before, or lies behind the reception window.
    case duplicate(counter: UInt32)
    /// No session with this ID.
    case unknownSession(UInt16)
    /// Larger than the transport's maximum message size.
    case tooLarge(Int)
    /// A header field combination that the spec forbids for this session kind.
    case invalidHeader(String)
}

extension MessageError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .truncated(let o): return "message ends too early (at byte \(o))"
        case .unsupportedVersion(let v): return "message format version \(v) is not supported"
        case .reservedDestinationSize: return "message uses the reserved destination size 3"
        case .reservedSessionType(let t): return "message uses the reserved session type \(t)"
        case .authenticationFailed: return "message failed its integrity check (wrong key or altered frame)"
        case .duplicate(let c): return "message counter \(c) was already received"
        case .unknownSession(let s): return "no session with ID \(s)"
        case .tooLarge(let n): return "message of \(n) bytes exceeds the maximum message size"
        case .invalidHeader(let why): return "invalid message header: \(why)"
        }
    }
}
