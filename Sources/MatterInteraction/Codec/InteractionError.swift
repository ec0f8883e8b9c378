import MatterTLV

/// Where an Interaction Model failure happened: an attribute, command or event path.
public enum IMPath: Hashable, Sendable, CustomStringConvertible {
    case attribute(AttributePathIB)
    case command(CommandPathIB)
    case event(EventPathIB)

    public var description: String {
        switch self {
        case .attribute(let p): return p.description
        case .command(let p): return p.description
        case .event(let p): return p.description
        }
    }
}

/// The one error type of MatterInteraction: a malformed message, a protocol violation by the
/// peer, or an Interaction Model status that reports a failure (with its path when known).
public enum InteractionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Bytes that are not valid TLV, or TLV that does not have the shape of `what`.
    case malformed(what: String, TLVError)
    /// A field is present and well-typed but its value is not allowed (e.g. an empty path list).
    case invalidValue(what: String, reason: String)
    /// The peer answered with a message this interaction does not expect at this point.
    case unexpectedMessage(expected: String, received: IMOpcode)
    /// The peer reported a non-success status (StatusResponse, AttributeStatusIB or CommandStatusIB).
    case status(IMStatus, clusterStatus: UInt8?, path: IMPath?)
    /// The exchange ended or failed below the Interaction Model.
    case exchangeFailed(String)

    /// The IM status this error carries, if any.
    public var imStatus: IMStatus? {
        if case .status(let s, _, _) = self { return s }
        return nil
    }

    /// A stable machine-readable code.
    public var code: String {
        switch self {
        case .malformed: return "malformed"
        case .invalidValue: return "invalid_value"
        case .unexpectedMessage: return "unexpected_message"
        case .status: return "status"
        case .exchangeFailed: return "exchange_failed"
        }
    }

    public var description: String {
        switch self {
        case .malformed(let what, let e): return "malformed \(what): \(e)"
        case .invalidValue(let what, let reason): return "invalid \(what): \(reason)"
        case .unexpectedMessage(let expected, let got): return "expected \(expected), received \(got)"
        case .status(let s, let cs, let path):
            var text = "\(path.map { "\($0)" } ?? "request") failed with \(s): \(s.message)"
            if let cs { text += " (cluster status \(cs))" }
            return text
        case .exchangeFailed(let why): return "exchange failed: \(why)"
        }
    }
}
