import MatterCrypto

/// Which session a message travels on, from our side.
public enum SessionHandle: Hashable, Sendable, CustomStringConvertible {
    /// The unsecured session with a peer, identified by the ephemeral node ID of the side that
    /// started it (PASE and CASE handshakes run here).
    case unsecured(peer: PeerAddress, ephemeralNodeID: UInt64, initiatedLocally: Bool)
    /// A secure session, by the session ID we allocated (the one peers put in their headers).
    case secure(localSessionID: UInt16)

    public var description: String {
        switch self {
        case .unsecured(let peer, _, _): return "unsecured session with \(peer)"
        case .secure(let id): return "secure session \(id)"
        }
    }
}

/// What established a secure session, and who the peer is.
public enum SessionPeer: Hashable, Sendable {
    /// PASE: the peer proved knowledge of the passcode; it has no operational identity yet.
    case pase
    /// CASE: the peer's operational identity on a fabric (fabric index local to this node).
    case operational(fabricIndex: UInt8, nodeID: UInt64, caseAuthenticatedTags: [UInt32])
}

/// Everything needed to run a secure session once PASE or CASE derived its keys.
public struct SecureSessionParameters: Sendable {
    public var localSessionID: UInt16
    public var peerSessionID: UInt16
    /// Key for messages we send (I2R for the initiator, R2I for the responder).
    public var encryptKey: SecretBytes
    /// Key for messages we receive.
    public var decryptKey: SecretBytes
    public var attestationChallenge: SecretBytes
    /// Node IDs for the AES-CCM nonces: ours on what we send, the peer's on what we receive
    /// (both 0 for PASE).
    public var localNodeID: UInt64
    public var peerNodeID: UInt64
    public var peerAddress: PeerAddress
    public var peerMRP: MRPParameters
    public var peer: SessionPeer
    public var isInitiator: Bool

    public init(localSessionID: UInt16, peerSessionID: UInt16, encryptKey: SecretBytes, decryptKey: SecretBytes,
                attestationChallenge: SecretBytes, localNodeID: UInt64 = 0, peerNodeID: UInt64 = 0,
                peerAddress: PeerAddress, peerMRP: MRPParameters = .default, peer: SessionPeer, isInitiator: Bool) {
        self.localSessionID = localSessionID
        self.peerSessionID = peerSessionID
        self.encryptKey = encryptKey
        self.decryptKey = decryptKey
        self.attestationChallenge = attestationChallenge
        self.localNodeID = localNodeID
        self.peerNodeID = peerNodeID
        self.peerAddress = peerAddress
        self.peerMRP = peerMRP
        self.peer = peer
        self.isInitiator = isInitiator
    }
}

/// The state the exchange manager keeps per session.
struct SessionState {
    var peerAddress: PeerAddress
    var mrp: ReliableMessageState
    var reception: MessageReceptionState
    var sendCounter: MessageCounter
    var secure: SecureSessionParameters?
}
