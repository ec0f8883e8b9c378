import MatterCrypto

/// Owns the sessions and exchanges of one node over one transport: encrypts, decrypts and
/// de-duplicates messages, runs MRP (acks and retransmissions), and routes each message to its
/// exchange or, for a new exchange started by the peer, to the handler of its protocol.
public actor ExchangeManager {
    /// Called with a new exchange started by a peer and its first message.
    public typealias UnsolicitedHandler = @Sendable (Exchange, ReceivedMessage) async -> Void

    struct ExchangeKey: Hashable {
        var session: SessionHandle
        var id: UInt16
        var localIsInitiator: Bool
    }

    let transport: any MessageTransport
    /// The time MRP, receive timeouts and the timer run on.
    public nonisolated let clock: any MatterClock
    private var sessions: [SessionHandle: SessionState] = [:]
    private var exchanges: [ExchangeKey: Exchange] = [:]
    private var handlers: [ProtocolID: UnsolicitedHandler] = [:]
    private var globalCounter = MessageCounter(wraps: true)
    private var nextExchangeID = UInt16.random(in: 0...UInt16.max)
    private var tasks: [Task<Void, Never>] = []
    /// The MRP timer: one clock timer for the earliest deadline of any session.
    private var timer: (id: UInt64, deadline: Milliseconds, handle: ClockTimer)?
    private var timerIDs: UInt64 = 0
    /// Session IDs held by handshakes in progress, with when they were handed out.
    private var reservedSessionIDs: [UInt16: Milliseconds] = [:]
    private var started = false
    private var closed = false
    private let random: @Sendable () -> Double
    /// Counters of what happened, for tests and diagnostics.
    public private(set) var statistics = Statistics()

    public struct Statistics: Sendable {
        public var received = 0, sent = 0, retransmitted = 0, duplicatesDropped = 0, undecryptable = 0, malformed = 0
        /// Reliable messages the transport could not send at once (retransmitted by MRP).
        public var sendFailures = 0
    }

    /// What the manager holds right now: in a long-running process these must stay bounded (a
    /// session or exchange nobody closes is a leak), so the hub reports them.
    public struct Occupancy: Sendable, Hashable {
        public var secureSessions = 0, unsecuredSessions = 0, exchanges = 0, reservedSessionIDs = 0, unacknowledged = 0
    }

    public var occupancy: Occupancy {
        var o = Occupancy()
        for (handle, state) in sessions {
            if case .secure = handle { o.secureSessions += 1 } else { o.unsecuredSessions += 1 }
            o.unacknowledged += state.mrp.pendingCount
        }
        o.exchanges = exchanges.count
        o.reservedSessionIDs = reservedSessionIDs.count
        return o
    }

    public init(transport: any MessageTransport, clock: any MatterClock = SystemClock(),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.transport = transport
        self.clock = clock
        self.random = random
    }

    /// Starts receiving and the MRP timer. Call once.
    public func start() {
        guard !started else { return }
        started = true
        let stream = transport.incoming
        tasks.append(Task { [weak self] in
            for await datagram in stream {
                guard let self else { return }
                await self.handle(datagram)
            }
        })
        scheduleTimer()
    }

    /// Stops everything: pending receives fail with `closed`, the transport is closed.
    public func shutdown() {
        closed = true
        for t in tasks { t.cancel() }
        timer?.handle.cancel()
        timer = nil
        for e in exchanges.values { e.mailbox.fail(MessagingError.closed) }
        exchanges.removeAll()
        transport.close()
    }

    public var localPort: UInt16 { transport.localPort }

    func now() -> Milliseconds { clock.now() }

    // MARK: - Sessions

    /// Registers the handler for exchanges that peers start with `protocolID`.
    public func setHandler(for protocolID: ProtocolID, _ handler: @escaping UnsolicitedHandler) {
        handlers[protocolID] = handler
    }

    /// A new unsecured session to `peer` for a handshake we start.
    public func newUnsecuredSession(to peer: PeerAddress, peerMRP: MRPParameters = .default) -> SessionHandle {
        let handle = SessionHandle.unsecured(peer: peer, ephemeralNodeID: UInt64.random(in: 1...UInt64.max),
                                             initiatedLocally: true)
        sessions[handle] = SessionState(peerAddress: peer, mrp: ReliableMessageState(peer: peerMRP, random: random),
                                        reception: MessageReceptionState(policy: .rollover),
                                        sendCounter: MessageCounter(wraps: true), secure: nil)
        return handle
    }

    /// A session ID that no session uses and no running handshake holds (never 0, which is the
    /// unsecured session). It stays reserved until its session is installed, it is released,
    /// or `sessionIDReservation` passes (a handshake that ended without saying so): two
    /// handshakes running at once once drew the same ID, and the second session overwrote the
    /// first (50 parallel commissionings lost one device in about twenty rounds).
    public func allocateSessionID() -> UInt16 {
        let t = now()
        func isFree(_ id: UInt16) -> Bool {
            guard sessions[.secure(localSessionID: id)] == nil else { return false }
            guard let at = reservedSessionIDs[id] else { return true }
            return t &- at >= Self.sessionIDReservation
        }
        var id = UInt16.random(in: 1...UInt16.max)
        var draws = 1
        while !isFree(id) && draws < 64 {
            id = UInt16.random(in: 1...UInt16.max)
            draws += 1
        }
        if !isFree(id) {
            // Nearly every ID is held: the first free one, else the oldest reservation's.
            id = (1...UInt16.max).first(where: isFree) ?? reservedSessionIDs.min { $0.value < $1.value }?.key ?? id
        }
        reservedSessionIDs[id] = t
        return id
    }

    /// Ends a handshake's hold on `id` (its session was not installed).
    public func releaseSessionID(_ id: UInt16) {
        reservedSessionIDs[id] = nil
    }

    /// Longer than any handshake's timeouts together.
    static let sessionIDReservation: Milliseconds = 120_000

    /// Installs a secure session that PASE or CASE established.
    @discardableResult
    public func addSecureSession(_ p: SecureSessionParameters) -> SessionHandle {
        let handle = SessionHandle.secure(localSessionID: p.localSessionID)
        reservedSessionIDs[p.localSessionID] = nil
        sessions[handle] = SessionState(peerAddress: p.peerAddress, mrp: ReliableMessageState(peer: p.peerMRP, random: random),
                                        reception: MessageReceptionState(policy: .strict),
                                        sendCounter: MessageCounter(wraps: false), secure: p)
        return handle
    }

    /// Removes a session; its exchanges fail with `closed`.
    public func removeSession(_ handle: SessionHandle) {
        sessions[handle] = nil
        for (key, e) in exchanges where key.session == handle {
            e.mailbox.fail(MessagingError.closed)
            exchanges[key] = nil
        }
    }

    public func secureSession(_ handle: SessionHandle) -> SecureSessionParameters? {
        sessions[handle]?.secure
    }

    public func secureSessions() -> [SecureSessionParameters] {
        sessions.values.compactMap(\.secure)
    }

    func peerAddress(of handle: SessionHandle) -> PeerAddress? {
        sessions[handle]?.peerAddress
    }

    // MARK: - Exchanges

    /// Starts an exchange on a session.
    public func newExchange(on session: SessionHandle) throws(MessagingError) -> Exchange {
        guard sessions[session] != nil else { throw MessagingError.unknownSession }
        nextExchangeID &+= 1
        let e = Exchange(manager: self, session: session, id: nextExchangeID, isInitiator: true)
        exchanges[ExchangeKey(session: session, id: e.id, localIsInitiator: true)] = e
        return e
    }

    func close(_ e: Exchange) async {
        let key = ExchangeKey(session: e.session, id: e.id, localIsInitiator: e.isInitiator)
        guard exchanges.removeValue(forKey: key) != nil else { return }
        e.mailbox.fail(MessagingError.closed)
        if let counter = sessions[e.session]?.mrp.takeAck(exchangeID: e.id) {
            try? await sendStandaloneAck(session: e.session, exchangeID: e.id, isInitiator: e.isInitiator, counter: counter)
        }
    }

    func send(on e: Exchange, protocolID: ProtocolID, opcode: UInt8, payload: [UInt8], reliable: Bool) async throws(MessagingError) {
        guard exchanges[ExchangeKey(session: e.session, id: e.id, localIsInitiator: e.isInitiator)] != nil else {
            throw MessagingError.closed
        }
        let ack = sessions[e.session]?.mrp.takeAck(exchangeID: e.id)
        let header = ProtocolHeader(isInitiator: e.isInitiator, needsAck: reliable, ackCounter: ack, opcode: opcode,
                                    exchangeID: e.id, protocolID: protocolID)
        try await sendFrame(session: e.session, protocolHeader: header, payload: payload, reliable: reliable)
    }

    private func sendStandaloneAck(session: SessionHandle, exchangeID: UInt16, isInitiator: Bool, counter: UInt32) async throws(MessagingError) {
        let header = ProtocolHeader(isInitiator: isInitiator, needsAck: false, ackCounter: counter,
                                    opcode: SecureChannelOpcode.standaloneAck.rawValue, exchangeID: exchangeID,
                                    protocolID: .secureChannel)
        try await sendFrame(session: session, protocolHeader: header, payload: [], reliable: false)
    }

    /// Builds, encrypts and sends one message; reliable ones enter the retransmission table.
    private func sendFrame(session: SessionHandle, protocolHeader: ProtocolHeader, payload: [UInt8], reliable: Bool) async throws(MessagingError) {
        guard var state = sessions[session] else { throw MessagingError.unknownSession }
        let frame: [UInt8]
        let counter: UInt32
        switch session {
        case .unsecured(_, let ephemeral, let initiatedLocally):
            counter = try globalCounter.next()
            let header = MessageHeader(sessionID: 0, messageCounter: counter,
                                       sourceNodeID: initiatedLocally ? ephemeral : nil,
                                       destination: initiatedLocally ? .none : .node(ephemeral))
            frame = header.encoded() + protocolHeader.encoded() + payload
        case .secure:
            guard let p = state.secure else { throw MessagingError.unknownSession }
            counter = try state.sendCounter.next()
            let header = MessageHeader(sessionID: p.peerSessionID, messageCounter: counter)
            frame = try MessageCrypto.seal(header: header, payload: protocolHeader.encoded() + payload,
                                           key: p.encryptKey, nonceNodeID: p.localNodeID)
        }
        guard frame.count <= maximumMessageSize else { throw MessagingError.tooLarge(frame.count) }
        if reliable { state.mrp.sent(counter: counter, frame: frame, exchangeID: protocolHeader.exchangeID, now: now()) }
        sessions[session] = state
        scheduleTimer()
        statistics.sent += 1
        do {
            try await transport.send(frame, to: state.peerAddress)
        } catch where reliable && error.isTransientSendFailure {
            // The datagram did not leave (a full socket buffer, a firewall dropping it): MRP sends
            // it again as it would a lost one. Failing here ended a device's subscription report
            // exchange at once and its subscription with it (the hub then saw it lapse).
            statistics.sendFailures += 1
        }
    }

    // MARK: - Receiving

    func handle(_ datagram: Datagram) async {
        guard !closed else { return }
        statistics.received += 1
        guard let (header, headerLength) = try? MessageHeader.decode(datagram.bytes) else {
            statistics.malformed += 1
            return
        }
        guard let (session, payload) = openMessage(datagram, header: header, headerLength: headerLength) else { return }
        guard let (ph, phLength) = try? ProtocolHeader.decode(payload), var state = sessions[session] else {
            statistics.malformed += 1
            return
        }
        let message = ReceivedMessage(header: header, protocolHeader: ph, payload: Array(payload[phLength...]),
                                      from: datagram.from, session: session)
        let t = now()
        do {
            try state.reception.accept(header.messageCounter)
        } catch {
            statistics.duplicatesDropped += 1
            let action = state.mrp.receivedDuplicate(counter: header.messageCounter, exchangeID: ph.exchangeID,
                                                     fromInitiator: ph.isInitiator, now: t)
            sessions[session] = state
            scheduleTimer()
            if ph.needsAck, case .sendStandaloneAck(let x, let i, let c) = action {
                try? await sendStandaloneAck(session: session, exchangeID: x, isInitiator: i, counter: c)
            }
            return
        }
        state.peerAddress = datagram.from
        state.mrp.received(counter: header.messageCounter, exchangeID: ph.exchangeID, fromInitiator: ph.isInitiator,
                           needsAck: ph.needsAck, ackCounter: ph.ackCounter, now: t)
        sessions[session] = state
        scheduleTimer()

        if ph.protocolID == .secureChannel && ph.opcode == SecureChannelOpcode.standaloneAck.rawValue { return }
        let key = ExchangeKey(session: session, id: ph.exchangeID, localIsInitiator: !ph.isInitiator)
        if let e = exchanges[key] {
            e.mailbox.deliver(message)
        } else if ph.isInitiator, let handler = handlers[ph.protocolID] {
            let e = Exchange(manager: self, session: session, id: ph.exchangeID, isInitiator: false)
            exchanges[key] = e
            Task { await handler(e, message) }
        }
        // Otherwise nobody waits for it; MRP still acknowledges it if asked.
    }

    /// Finds the session of a datagram and decrypts it; nil (and counted) if it has none or
    /// fails authentication.
    private func openMessage(_ datagram: Datagram, header: MessageHeader, headerLength: Int) -> (SessionHandle, [UInt8])? {
        if header.isUnsecured {
            let payload = Array(datagram.bytes[headerLength...])
            if case .node(let destination) = header.destination,
               let handle = sessions.keys.first(where: {
                   if case .unsecured(_, destination, true) = $0 { return true } else { return false }
               }) {
                return (handle, payload)
            }
            if let source = header.sourceNodeID {
                let handle = SessionHandle.unsecured(peer: datagram.from, ephemeralNodeID: source, initiatedLocally: false)
                if sessions[handle] == nil {
                    sessions[handle] = SessionState(peerAddress: datagram.from, mrp: ReliableMessageState(random: random),
                                                    reception: MessageReceptionState(policy: .rollover),
                                                    sendCounter: MessageCounter(wraps: true), secure: nil)
                }
                return (handle, payload)
            }
            // A reply without a destination node ID: match the handshake we started with that peer.
            if let handle = sessions.keys.first(where: {
                if case .unsecured(datagram.from, _, true) = $0 { return true } else { return false }
            }) {
                return (handle, payload)
            }
            statistics.malformed += 1
            return nil
        }
        guard header.sessionType == .unicast else { return nil }  // group messaging is not used here
        let handle = SessionHandle.secure(localSessionID: header.sessionID)
        guard let p = sessions[handle]?.secure else {
            statistics.undecryptable += 1
            return nil
        }
        guard let (_, payload) = try? MessageCrypto.open(frame: datagram.bytes, key: p.decryptKey, nonceNodeID: p.peerNodeID) else {
            statistics.undecryptable += 1
            return nil
        }
        return (handle, payload)
    }

    // MARK: - MRP timer

    /// Makes the timer wake at the earliest MRP deadline of any session: called after every
    /// change to a session's MRP state. A timer already set for that moment or earlier stays
    /// (one that wakes early finds nothing due and sets the next).
    private func scheduleTimer() {
        guard started, !closed, let next = sessions.values.compactMap(\.mrp.nextDeadline).min() else { return }
        if let t = timer, t.deadline <= next { return }
        timer?.handle.cancel()
        timerIDs += 1
        let id = timerIDs
        // A task only when it fires: arming and cancelling (an ack came first) cost no job.
        timer = (id, next, clock.schedule(at: next) { [weak self] in
            Task { await self?.timerFired(id) }
        })
    }

    private func timerFired(_ id: UInt64) async {
        if timer?.id == id { timer = nil }
        await tick()
    }

    /// Runs what MRP says is due. Every session's state is advanced and written first, with no
    /// suspension in between; then the sends go out, each reading the session afresh, so
    /// whatever ran during a send (an ack, a send, a removed session) stands.
    func tick() async {
        let t = now()
        var due: [(SessionHandle, [ReliableMessageState.Action])] = []
        for handle in Array(sessions.keys) {
            guard var state = sessions[handle], let deadline = state.mrp.nextDeadline, deadline <= t else { continue }
            due.append((handle, state.mrp.poll(now: t)))
            sessions[handle] = state
        }
        for (handle, actions) in due {
            for action in actions {
                switch action {
                case .retransmit(let counter, let frame):
                    // Skip it if the session went away or the peer acknowledged it meanwhile.
                    guard let state = sessions[handle], state.mrp.isPending(counter) else { continue }
                    statistics.retransmitted += 1
                    try? await transport.send(frame, to: state.peerAddress)
                case .sendStandaloneAck(let exchangeID, let isInitiator, let counter):
                    try? await sendStandaloneAck(session: handle, exchangeID: exchangeID, isInitiator: isInitiator, counter: counter)
                case .giveUp(let exchangeID, _):
                    for (key, e) in exchanges where key.session == handle && key.id == exchangeID {
                        e.mailbox.fail(MessagingError.noAcknowledgement(transmissions: MRPConstants.maxTransmissions))
                    }
                }
            }
        }
        scheduleTimer()
    }
}
