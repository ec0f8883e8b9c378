/// A message received on an exchange.
public struct ReceivedMessage: Sendable {
    public var header: MessageHeader
    public var protocolHeader: ProtocolHeader
    public var payload: [UInt8]
    public var from: PeerAddress
    public var session: SessionHandle

    public var protocolID: ProtocolID { protocolHeader.protocolID }
    public var opcode: UInt8 { protocolHeader.opcode }

    /// Whether this is a Secure Channel StatusReport.
    public var isStatusReport: Bool {
        protocolID == .secureChannel && opcode == SecureChannelOpcode.statusReport.rawValue
    }
}

/// One exchange: a request and its responses between two nodes (Matter Core 4.10).
public final class Exchange: Sendable {
    public let session: SessionHandle
    public let id: UInt16
    /// Whether we started the exchange (our messages carry the I flag).
    public let isInitiator: Bool
    let mailbox: Mailbox
    private let manager: ExchangeManager

    init(manager: ExchangeManager, session: SessionHandle, id: UInt16, isInitiator: Bool) {
        self.manager = manager
        self.mailbox = Mailbox(clock: manager.clock)
        self.session = session
        self.id = id
        self.isInitiator = isInitiator
    }

    /// Sends a message; with `reliable`, MRP retransmits it until the peer acknowledges.
    public func send(_ protocolID: ProtocolID, opcode: UInt8, payload: [UInt8],
                     reliable: Bool = true) async throws(MessagingError) {
        try await manager.send(on: self, protocolID: protocolID, opcode: opcode, payload: payload, reliable: reliable)
    }

    /// Waits for the next message on this exchange, at most `timeout` on the manager's clock;
    /// a cancelled task stops waiting at once (`cancelled`).
    public func receive(timeout: Duration = .seconds(30)) async throws(MessagingError) -> ReceivedMessage {
        let ms = Int64(clamping: Milliseconds(duration: timeout))
        return try await mailbox.receive(timeout: timeout) { MessagingError.timeout(waitedMilliseconds: ms) }
    }

    /// Sends a request and waits for the reply.
    public func request(_ protocolID: ProtocolID, opcode: UInt8, payload: [UInt8],
                        timeout: Duration = .seconds(30)) async throws(MessagingError) -> ReceivedMessage {
        try await send(protocolID, opcode: opcode, payload: payload)
        return try await receive(timeout: timeout)
    }

    /// Sends a Secure Channel StatusReport.
    public func sendStatusReport(_ report: StatusReport, reliable: Bool = true) async throws(MessagingError) {
        try await send(.secureChannel, opcode: SecureChannelOpcode.statusReport.rawValue, payload: report.encoded(),
                       reliable: reliable)
    }

    /// Closes the exchange, sending any acknowledgement still owed.
    public func close() async {
        await manager.close(self)
    }

    /// The peer's current address on this exchange's session.
    public func peerAddress() async -> PeerAddress? {
        manager.peerAddress(of: session)
    }
}
