import MatterPlatform
#if canImport(Glibc)
import Glibc
#endif

/// The one error type of MatterMessaging: why a message could not be decoded, decrypted, sent or
/// received. Peer input never traps: every defect ends here.
public enum MessagingError: Error, Hashable, Sendable {
    // Decoding and accepting a message.
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
    /// Larger than the transport's maximum message size.
    case tooLarge(Int)
    /// A header field combination that the spec forbids for this session kind.
    case invalidHeader(String)

    // Exchanges.
    /// No reply within the time allowed.
    case timeout(waitedMilliseconds: Int64)
    /// MRP sent a message the maximum number of times without an acknowledgement.
    case noAcknowledgement(transmissions: Int)
    /// The exchange or its session was closed.
    case closed
    /// The peer ended the secure session (a CloseSession status report, Matter Core 4.11.1.4).
    case closedByPeer
    /// The exchange's session no longer exists.
    case unknownSession
    /// The task waiting for a message was cancelled.
    case cancelled

    // The transport.
    /// A socket call failed: what was attempted and the OS error number.
    case transport(operation: String, errno: Int32)
}

extension MessagingError {
    /// A send the OS refused for now rather than for good: no buffer space, a socket that would
    /// block, or a netfilter rule that dropped the datagram (EPERM). A reliable message that
    /// meets one is left to MRP's retransmissions, as a lost datagram is.
    public var isTransientSendFailure: Bool {
        guard case .transport(_, let code) = self else { return false }
        return [ENOBUFS, EAGAIN, EWOULDBLOCK, ENOMEM, EPERM].contains(code)
    }
}

extension MessagingError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .truncated(let o): return "message ends too early (at byte \(o))"
        case .unsupportedVersion(let v): return "message format version \(v) is not supported"
        case .reservedDestinationSize: return "message uses the reserved destination size 3"
        case .reservedSessionType(let t): return "message uses the reserved session type \(t)"
        case .authenticationFailed: return "message failed its integrity check (wrong key or altered frame)"
        case .duplicate(let c): return "message counter \(c) was already received"
        case .tooLarge(let n): return "message of \(n) bytes exceeds the maximum message size"
        case .invalidHeader(let why): return "invalid message header: \(why)"
        case .timeout(let ms): return "no response from the peer within \(ms) ms"
        case .noAcknowledgement(let n): return "the peer did not acknowledge a message sent \(n) times"
        case .closed: return "the exchange was closed"
        case .closedByPeer: return "the peer closed the session (CloseSession)"
        case .unknownSession: return "the session no longer exists"
        case .cancelled: return "the wait for the peer was cancelled"
        case .transport(let operation, let errno):
            return "UDP \(operation) failed: \(errnoText(errno)) (errno \(errno))"
        }
    }
}
