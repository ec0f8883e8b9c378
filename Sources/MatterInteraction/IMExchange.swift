import MatterClusters

/// One Interaction Model message as it travels on an exchange.
public struct IMFrame: Hashable, Sendable {
    public var opcode: IMOpcode
    public var payload: [UInt8]
    public init(_ opcode: IMOpcode, _ payload: [UInt8]) {
        self.opcode = opcode
        self.payload = payload
    }
    public init<M: IMMessage>(_ message: M) {
        self.init(M.opcode, message.payload)
    }
}

/// The boundary to the messaging layer: one exchange on a secure session, protocol 0x0001.
///
/// MatterMessaging implements it over MRP and UDP; tests implement it in-process against an
/// `InteractionServer`. The IM code never sees sockets, retransmissions or timers.
public protocol IMExchange: Sendable {
    /// Sends a message and waits for the peer's next IM message on this exchange.
    func request(_ opcode: IMOpcode, _ payload: [UInt8]) async throws(InteractionError) -> IMFrame
    /// Sends the last message of the interaction; no IM reply is expected (the exchange still
    /// waits for its acknowledgement).
    func send(_ opcode: IMOpcode, _ payload: [UInt8]) async throws(InteractionError)
}

/// The session facts the server's device needs to decide access and fabric scoping.
public struct IMSessionContext: Hashable, Sendable {
    /// The accessing fabric (nil on a PASE session before AddNOC).
    public var fabricIndex: UInt8?
    /// The peer's operational node ID (CASE) or nil.
    public var peerNodeID: UInt64?
    /// PASE or CASE.
    public var authMode: Clusters.AccessControl.AuthMode
    /// The peer's CASE Authenticated Tags (CASE only), for ACL subjects.
    public var caseAuthenticatedTags: [UInt32]
    /// Our local ID of the secure session, so a device can find session facts the IM does not
    /// carry (the attestation challenge, a PASE session bound to a fabric by AddNOC).
    public var sessionID: UInt16?

    public init(fabricIndex: UInt8? = nil, peerNodeID: UInt64? = nil, authMode: Clusters.AccessControl.AuthMode = .pase,
                caseAuthenticatedTags: [UInt32] = [], sessionID: UInt16? = nil) {
        self.fabricIndex = fabricIndex
        self.peerNodeID = peerNodeID
        self.authMode = authMode
        self.caseAuthenticatedTags = caseAuthenticatedTags
        self.sessionID = sessionID
    }
}
