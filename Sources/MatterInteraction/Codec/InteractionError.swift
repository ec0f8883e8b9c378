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

/// Why an exchange failed below the Interaction Model: a kind to act on (a timeout is not a
/// closed session), the lower layer's words, and its own error (MatterMessaging's
/// `MessagingError` for exchanges over UDP; `messagingError` in MatterInteractionMessaging).
public struct ExchangeFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No reply within the time allowed (the peer acknowledged, or may have, but did not answer).
        public static let timeout = Kind(rawValue: "timeout")
        /// The peer acknowledged nothing: it is off, gone from the network, or its address is stale.
        public static let unreachable = Kind(rawValue: "unreachable")
        /// The peer ended the secure session (CloseSession).
        public static let closedByPeer = Kind(rawValue: "closed-by-peer")
        /// The exchange or its session was closed on this side.
        public static let closed = Kind(rawValue: "closed")
        /// The network refused the message (no route, port unreachable...).
        public static let network = Kind(rawValue: "network")
        /// The wait was cancelled.
        public static let cancelled = Kind(rawValue: "cancelled")
        /// The peer answered on another protocol, or the lower layer failed otherwise.
        public static let other = Kind(rawValue: "other")
    }

    public var kind: Kind
    public var detail: String
    public var underlying: (any Error & Sendable)?

    public init(_ kind: Kind, _ detail: String, underlying: (any Error & Sendable)? = nil) {
        self.kind = kind
        self.detail = detail
        self.underlying = underlying
    }

    public var description: String { detail }

    public static func == (a: Self, b: Self) -> Bool { a.kind == b.kind && a.detail == b.detail }
    public func hash(into h: inout Hasher) {
        h.combine(kind)
        h.combine(detail)
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
    case exchangeFailed(ExchangeFailure)

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
