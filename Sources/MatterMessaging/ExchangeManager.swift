import MatterCrypto
import Synchronization

/// Owns the sessions and exchanges of one node over one transport: encrypts, decrypts and
/// de-duplicates messages, runs MRP (acks and retransmissions), and routes each message to its
/// exchange or, for a new exchange started by the peer, to the handler of its protocol.
///
/// Not an actor: its state sits behind one lock that is never held across a send or a
/// suspension. So a datagram is handled on the transport's reading thread as it arrives (a
/// reply resumes its waiting task at once, an acknowledgement wakes no task at all), and a task
/// sends without hopping onto another executor. As an actor each datagram cost a task wake-up
/// before anything was decided, and every send hopped off and back; a command's round trip
/// crossed both twice on each side.
public final class ExchangeManager: Sendable {
    /// Called with a new exchange started by a peer and its first message.
    public typealias UnsolicitedHandler = @Sendable (Exchange, ReceivedMessage) async -> Void

    struct ExchangeKey: Hashable {
        var session: SessionHandle
        var id: UInt16
        var localIsInitiator: Bool
    }

    let transport: any MessageTransport
    /// The time MRP, receive timeouts and the timer run on.
    public let clock: any MatterClock
    private let random: @Sendable () -> Double
    private let core = Mutex(Core())

    /// Everything that changes, behind `core`.
    private struct Core {
        var sessions: [SessionHandle: SessionState] = [:]
        var exchanges: [ExchangeKey: Exchange] = [:]
        var handlers: [ProtocolID: UnsolicitedHandler] = [:]
        /// Told when a peer ends a session with CloseSession.
        var closedByPeer: (@Sendable (SessionHandle) -> Void)?
        var unresponsive: (@Sendable (SessionHandle) -> Void)?
        var globalCounter = MessageCounter(wraps: true)
        var nextExchangeID = UInt16.random(in: 0...UInt16.max)
        var receiveTask: Task<Void, Never>?
        /// The MRP timer: one clock timer for the earliest deadline of any session.
        var timer: (id: UInt64, deadline: Milliseconds, handle: ClockTimer)?
        var timerIDs: UInt64 = 0
        /// Session IDs held by handshakes in progress, with when they were handed out.
        var reservedSessionIDs: [UInt16: Milliseconds] = [:]
        var started = false
        var closed = false
        var statistics = Statistics()
    }

    public struct Statistics: Sendable {
        public var received = 0, sent = 0, retransmitted = 0, duplicatesDropped = 0, undecryptable = 0, malformed = 0
        /// Reliable messages the transport could not send at once (retransmitted by MRP).
        public var sendFailures = 0
    }

    /// Counters of what happened, for tests and diagnostics.
    public var statistics: Statistics {
        get async { core.withLock { $0.statistics } }
    }

    /// What the manager holds right now: in a long-running process these must stay bounded (a
    /// session or exchange nobody closes is a leak), so the hub reports them.
    public struct Occupancy: Sendable, Hashable {
        public var secureSessions = 0, unsecuredSessions = 0, exchanges = 0, reservedSessionIDs = 0, unacknowledged = 0
    }

    public var occupancy: Occupancy {
        get async {
            core.withLock { c in
                var o = Occupancy()
                for (handle, state) in c.sessions {
                    if case .secure = handle { o.secureSessions += 1 } else { o.unsecuredSessions += 1 }
                    o.unacknowledged += state.mrp.pendingCount
                }
                o.exchanges = c.exchanges.count
                o.reservedSessionIDs = c.reservedSessionIDs.count
                return o
            }
        }
    }

    public init(transport: any MessageTransport, clock: any MatterClock = SystemClock(),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.transport = transport
        self.clock = clock
        self.random = random
    }

    /// Starts receiving and the MRP timer. Call once.
    public func start() async {
        let first = core.withLock { c -> Bool in
            defer { c.started = true }
            return !c.started && !c.closed
        }
        guard first else { return }
        // What arrived before this call waits in `incoming`; a transport that can deliver
        // directly stops filling it now, and the task below drains it and then waits for ever.
        let stream = transport.incoming
        let task = Task { [weak self] in
            for await datagram in stream {
                guard let self else { return }
                self.handle(datagram)
            }
        }
        core.withLock { $0.receiveTask = task }
        _ = transport.deliverDirectly { [weak self] datagram in self?.handle(datagram) }
        core.withLock { scheduleTimer(&$0) }
    }

    /// Stops everything: pending receives fail with `closed`, the transport is closed.
    public func shutdown() async {
        let (task, timer, open) = core.withLock { c in
            c.closed = true
            defer {
                c.receiveTask = nil
                c.timer = nil
                c.exchanges.removeAll()
            }
            return (c.receiveTask, c.timer?.handle, Array(c.exchanges.values))
        }
        task?.cancel()
        timer?.cancel()
        for e in open { e.mailbox.fail(MessagingError.closed) }
        transport.close()
    }

    public var localPort: UInt16 {
        get async { transport.localPort }
    }

    func now() -> Milliseconds { clock.now() }

    // MARK: - Sessions

    /// `closed` is told (on the reading thread: it must not block) each time a peer ends a session
    /// with CloseSession, after the session is gone: a node that restarts (after a firmware
    /// update, say) says so, and its controller reconnects at once instead of when its
    /// subscription lapses.
    public func setSessionClosedHandler(_ closed: @escaping @Sendable (SessionHandle) -> Void) {
        core.withLock { $0.closedByPeer = closed }
    }

    /// `unresponsive` is told (on the timer's task: it must not block) each time MRP gives up on
    /// a message of a secure session: the peer acknowledged none of its transmissions. A device
    /// that restarted without saying so has forgotten the session (the SDK marks such a session
    /// defunct); its controller reconnects now instead of when its subscription lapses.
    public func setSessionUnresponsiveHandler(_ unresponsive: @escaping @Sendable (SessionHandle) -> Void) {
        core.withLock { $0.unresponsive = unresponsive }
    }

    /// Registers the handler for exchanges that peers start with `protocolID`.
    public func setHandler(for protocolID: ProtocolID, _ handler: @escaping UnsolicitedHandler) async {
        core.withLock { $0.handlers[protocolID] = handler }
    }

    /// A new unsecured session to `peer` for a handshake we start.
    public func newUnsecuredSession(to peer: PeerAddress, peerMRP: MRPParameters = .default) async -> SessionHandle {
        let handle = SessionHandle.unsecured(peer: peer, ephemeralNodeID: UInt64.random(in: 1...UInt64.max),
                                             initiatedLocally: true)
        let state = SessionState(peerAddress: peer, mrp: ReliableMessageState(peer: peerMRP, random: random),
                                 reception: MessageReceptionState(policy: .rollover),
                                 sendCounter: MessageCounter(wraps: true), secure: nil)
        core.withLock { $0.sessions[handle] = state }
        return handle
    }

    /// A session ID that no session uses and no running handshake holds (never 0, which is the
    /// unsecured session). It stays reserved until its session is installed, it is released,
    /// or `sessionIDReservation` passes (a handshake that ended without saying so): two
    /// handshakes running at once once drew the same ID, and the second session overwrote the
    /// first (50 parallel commissionings lost one device in about twenty rounds).
    public func allocateSessionID() async -> UInt16 {
        let t = now()
        return core.withLock { c in
            func isFree(_ id: UInt16) -> Bool {
                guard c.sessions[.secure(localSessionID: id)] == nil else { return false }
                guard let at = c.reservedSessionIDs[id] else { return true }
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
                id = (1...UInt16.max).first(where: isFree) ?? c.reservedSessionIDs.min { $0.value < $1.value }?.key ?? id
            }
            c.reservedSessionIDs[id] = t
            return id
        }
    }

    /// Ends a handshake's hold on `id` (its session was not installed).
    public func releaseSessionID(_ id: UInt16) async {
        core.withLock { _ = $0.reservedSessionIDs.removeValue(forKey: id) }
    }

    /// Longer than any handshake's timeouts together.
    static let sessionIDReservation: Milliseconds = 120_000

    /// Installs a secure session that PASE or CASE established.
    @discardableResult
    public func addSecureSession(_ p: SecureSessionParameters) async -> SessionHandle {
        let handle = SessionHandle.secure(localSessionID: p.localSessionID)
        let state = SessionState(peerAddress: p.peerAddress, mrp: ReliableMessageState(peer: p.peerMRP, random: random),
                                 reception: MessageReceptionState(policy: .strict),
                                 sendCounter: MessageCounter(wraps: false), secure: p)
        core.withLock { c in
            c.reservedSessionIDs[p.localSessionID] = nil
            c.sessions[handle] = state
        }
        return handle
    }

    /// Removes a session; its exchanges fail with `closed`.
    public func removeSession(_ handle: SessionHandle) async {
        endSession(handle, failing: .closed)
    }

    /// Tells the peer the session is over (a CloseSession status report on a new exchange, Matter
    /// Core 4.11.1.4), then removes it. Unreliable, as the SDK sends it: the keys are gone right
    /// after, so a retransmission could not be sealed anyway.
    public func closeSession(_ handle: SessionHandle) async {
        if let exchange = try? await newExchange(on: handle) {
            try? await exchange.sendStatusReport(StatusReport(generalCode: .success, protocolID: .secureChannel,
                                                              protocolCode: StatusReport.SecureChannelCode.closeSession),
                                                 reliable: false)
            await exchange.close()
        }
        await removeSession(handle)
    }

    /// A CloseSession status report on a secure session (Matter Core 4.11.1.4): the peer has
    /// dropped the session's keys, so nothing more can be said on it.
    static func isCloseSession(_ message: ReceivedMessage, on session: SessionHandle) -> Bool {
        guard case .secure = session, message.protocolID == .secureChannel,
              message.opcode == SecureChannelOpcode.statusReport.rawValue,
              let report = try? StatusReport.decode(message.payload) else { return false }
        return report.protocolID == .secureChannel && report.protocolCode == StatusReport.SecureChannelCode.closeSession
    }

    private func endSession(_ handle: SessionHandle, failing error: MessagingError) {
        let ended = core.withLock { c -> [Exchange] in
            c.sessions[handle] = nil
            var ended: [Exchange] = []
            for (key, e) in c.exchanges where key.session == handle {
                ended.append(e)
                c.exchanges[key] = nil
            }
            return ended
        }
        for e in ended { e.mailbox.fail(error) }
    }

    public func secureSession(_ handle: SessionHandle) async -> SecureSessionParameters? {
        core.withLock { $0.sessions[handle]?.secure }
    }

    public func secureSessions() async -> [SecureSessionParameters] {
        core.withLock { $0.sessions.values.compactMap(\.secure) }
    }

    public func peerAddress(of handle: SessionHandle) -> PeerAddress? {
        core.withLock { $0.sessions[handle]?.peerAddress }
    }

    // MARK: - Exchanges

    /// Starts an exchange on a session.
    public func newExchange(on session: SessionHandle) async throws(MessagingError) -> Exchange {
        try core.withLock { c throws(MessagingError) -> Exchange in
            guard c.sessions[session] != nil else { throw MessagingError.unknownSession }
            c.nextExchangeID &+= 1
            let e = Exchange(manager: self, session: session, id: c.nextExchangeID, isInitiator: true)
            c.exchanges[ExchangeKey(session: session, id: e.id, localIsInitiator: true)] = e
            return e
        }
    }

    func close(_ e: Exchange) async {
        let key = ExchangeKey(session: e.session, id: e.id, localIsInitiator: e.isInitiator)
        let outcome = core.withLock { c -> (removed: Bool, ack: UInt32?) in
            guard c.exchanges.removeValue(forKey: key) != nil else { return (false, nil) }
            return (true, c.sessions[e.session]?.mrp.takeAck(exchangeID: e.id))
        }
        guard outcome.removed else { return }
        e.mailbox.fail(MessagingError.closed)
        if let counter = outcome.ack {
            try? await sendStandaloneAck(session: e.session, exchangeID: e.id, isInitiator: e.isInitiator, counter: counter)
        }
    }

    func send(on e: Exchange, protocolID: ProtocolID, opcode: UInt8, payload: [UInt8], reliable: Bool) async throws(MessagingError) {
        let frame = try core.withLock { c throws(MessagingError) -> Outgoing in
            guard c.exchanges[ExchangeKey(session: e.session, id: e.id, localIsInitiator: e.isInitiator)] != nil else {
                throw MessagingError.closed
            }
            let ack = c.sessions[e.session]?.mrp.takeAck(exchangeID: e.id)
            let header = ProtocolHeader(isInitiator: e.isInitiator, needsAck: reliable, ackCounter: ack, opcode: opcode,
                                        exchangeID: e.id, protocolID: protocolID)
            return try seal(&c, session: e.session, protocolHeader: header, payload: payload, reliable: reliable)
        }
        try await transmit(frame)
    }

    private func sendStandaloneAck(session: SessionHandle, exchangeID: UInt16, isInitiator: Bool, counter: UInt32) async throws(MessagingError) {
        let frame = try core.withLock { c throws(MessagingError) in
            try seal(&c, session: session, protocolHeader: Self.standaloneAck(exchangeID, isInitiator, counter),
                     payload: [], reliable: false)
        }
        try await transmit(frame)
    }

    private static func standaloneAck(_ exchangeID: UInt16, _ isInitiator: Bool, _ counter: UInt32) -> ProtocolHeader {
        ProtocolHeader(isInitiator: isInitiator, needsAck: false, ackCounter: counter,
                       opcode: SecureChannelOpcode.standaloneAck.rawValue, exchangeID: exchangeID, protocolID: .secureChannel)
    }

    /// A sealed frame, ready for the transport.
    private struct Outgoing {
        var frame: [UInt8]
        var to: PeerAddress
        var reliable: Bool
    }

    /// Builds and encrypts one message (under the lock, so counters are taken in order);
    /// reliable ones enter the retransmission table.
    private func seal(_ c: inout Core, session: SessionHandle, protocolHeader: ProtocolHeader, payload: [UInt8],
                      reliable: Bool) throws(MessagingError) -> Outgoing {
        guard var state = c.sessions[session] else { throw MessagingError.unknownSession }
        let frame: [UInt8]
        let counter: UInt32
        switch session {
        case .unsecured(_, let ephemeral, let initiatedLocally):
            counter = try c.globalCounter.next()
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
        c.sessions[session] = state
        scheduleTimer(&c)
        c.statistics.sent += 1
        return Outgoing(frame: frame, to: state.peerAddress, reliable: reliable)
    }

    /// Sends a sealed frame, outside the lock.
    private func transmit(_ out: Outgoing) async throws(MessagingError) {
        do {
            try await transport.send(out.frame, to: out.to)
        } catch where out.reliable && error.isTransientSendFailure {
            // The datagram did not leave (a full socket buffer, a firewall dropping it): MRP sends
            // it again as it would a lost one. Failing here ended a device's subscription report
            // exchange at once and its subscription with it (the hub then saw it lapse).
            core.withLock { $0.statistics.sendFailures += 1 }
        }
    }

    // MARK: - Receiving

    /// What a received datagram leads to, done once the lock is released.
    private enum Outcome {
        case none
        case deliver(Exchange, ReceivedMessage)
        case unsolicited(UnsolicitedHandler, Exchange, ReceivedMessage)
        case acknowledgeDuplicate(Outgoing)
        case closedByPeer(SessionHandle)
    }

    /// Handles one datagram, on the transport's reading thread (or the receive task). It
    /// never waits: a reply resumes its receiver, a new exchange starts its handler's task.
    func handle(_ datagram: Datagram) {
        switch core.withLock({ c in decide(&c, datagram) }) {
        case .none: break
        case .deliver(let e, let message): e.mailbox.deliver(message)
        case .unsolicited(let handler, let e, let message): Task { await handler(e, message) }
        case .acknowledgeDuplicate(let ack):
            // Not sent from here: the reading thread must not send (see deliverDirectly).
            Task { try? await self.transmit(ack) }
        case .closedByPeer(let session):
            endSession(session, failing: .closedByPeer)
            core.withLock { $0.closedByPeer }?(session)
        }
    }

    private func decide(_ c: inout Core, _ datagram: Datagram) -> Outcome {
        guard !c.closed else { return .none }
        c.statistics.received += 1
        guard let (header, headerLength) = try? MessageHeader.decode(datagram.bytes) else {
            c.statistics.malformed += 1
            return .none
        }
        guard let (session, payload) = openMessage(&c, datagram, header: header, headerLength: headerLength) else { return .none }
        guard let (ph, phLength) = try? ProtocolHeader.decode(payload), var state = c.sessions[session] else {
            c.statistics.malformed += 1
            return .none
        }
        let message = ReceivedMessage(header: header, protocolHeader: ph, payload: Array(payload[phLength...]),
                                      from: datagram.from, session: session)
        let t = now()
        do {
            try state.reception.accept(header.messageCounter)
        } catch {
            c.statistics.duplicatesDropped += 1
            let action = state.mrp.receivedDuplicate(counter: header.messageCounter, exchangeID: ph.exchangeID,
                                                     fromInitiator: ph.isInitiator, now: t)
            c.sessions[session] = state
            scheduleTimer(&c)
            if ph.needsAck, case .sendStandaloneAck(let x, let i, let counter) = action,
               let ack = try? seal(&c, session: session, protocolHeader: Self.standaloneAck(x, i, counter),
                                   payload: [], reliable: false) {
                return .acknowledgeDuplicate(ack)
            }
            return .none
        }
        state.peerAddress = datagram.from
        state.mrp.received(counter: header.messageCounter, exchangeID: ph.exchangeID, fromInitiator: ph.isInitiator,
                           needsAck: ph.needsAck, ackCounter: ph.ackCounter, now: t)
        c.sessions[session] = state
        scheduleTimer(&c)

        if ph.protocolID == .secureChannel && ph.opcode == SecureChannelOpcode.standaloneAck.rawValue { return .none }
        if Self.isCloseSession(message, on: session) { return .closedByPeer(session) }
        let key = ExchangeKey(session: session, id: ph.exchangeID, localIsInitiator: !ph.isInitiator)
        if let e = c.exchanges[key] {
            return .deliver(e, message)
        } else if ph.isInitiator, let handler = c.handlers[ph.protocolID] {
            let e = Exchange(manager: self, session: session, id: ph.exchangeID, isInitiator: false)
            c.exchanges[key] = e
            return .unsolicited(handler, e, message)
        }
        // Otherwise nobody waits for it; MRP still acknowledges it if asked.
        return .none
    }

    /// Finds the session of a datagram and decrypts it; nil (and counted) if it has none or
    /// fails authentication.
    private func openMessage(_ c: inout Core, _ datagram: Datagram, header: MessageHeader,
                             headerLength: Int) -> (SessionHandle, [UInt8])? {
        if header.isUnsecured {
            let payload = Array(datagram.bytes[headerLength...])
            if case .node(let destination) = header.destination,
               let handle = c.sessions.keys.first(where: {
                   if case .unsecured(_, destination, true) = $0 { return true } else { return false }
               }) {
                return (handle, payload)
            }
            if let source = header.sourceNodeID {
                let handle = SessionHandle.unsecured(peer: datagram.from, ephemeralNodeID: source, initiatedLocally: false)
                if c.sessions[handle] == nil {
                    c.sessions[handle] = SessionState(peerAddress: datagram.from, mrp: ReliableMessageState(random: random),
                                                      reception: MessageReceptionState(policy: .rollover),
                                                      sendCounter: MessageCounter(wraps: true), secure: nil)
                }
                return (handle, payload)
            }
            // A reply without a destination node ID: match the handshake we started with that peer.
            if let handle = c.sessions.keys.first(where: {
                if case .unsecured(datagram.from, _, true) = $0 { return true } else { return false }
            }) {
                return (handle, payload)
            }
            c.statistics.malformed += 1
            return nil
        }
        guard header.sessionType == .unicast else { return nil }  // group messaging is not used here
        let handle = SessionHandle.secure(localSessionID: header.sessionID)
        guard let p = c.sessions[handle]?.secure else {
            c.statistics.undecryptable += 1
            return nil
        }
        guard let (_, payload) = try? MessageCrypto.open(frame: datagram.bytes, key: p.decryptKey, nonceNodeID: p.peerNodeID) else {
            c.statistics.undecryptable += 1
            return nil
        }
        return (handle, payload)
    }

    // MARK: - MRP timer

    /// Makes the timer wake at the earliest MRP deadline of any session: called after every
    /// change to a session's MRP state. A timer already set for that moment or earlier stays
    /// (one that wakes early finds nothing due and sets the next).
    private func scheduleTimer(_ c: inout Core) {
        guard c.started, !c.closed, let next = c.sessions.values.compactMap(\.mrp.nextDeadline).min() else { return }
        if let t = c.timer, t.deadline <= next { return }
        c.timer?.handle.cancel()
        c.timerIDs += 1
        let id = c.timerIDs
        // A task only when it fires: arming and cancelling (an ack came first) cost no job.
        c.timer = (id, next, clock.schedule(at: next) { [weak self] in
            Task { await self?.timerFired(id) }
        })
    }

    private func timerFired(_ id: UInt64) async {
        core.withLock { c in
            if c.timer?.id == id { c.timer = nil }
        }
        await tick()
    }

    /// Runs what MRP says is due. Every session's state is advanced and written first, under
    /// the lock; then the sends go out, each reading the session afresh, so whatever ran during
    /// a send (an ack, a send, a removed session) stands.
    func tick() async {
        let t = now()
        let due = core.withLock { c -> [(SessionHandle, [ReliableMessageState.Action])] in
            var due: [(SessionHandle, [ReliableMessageState.Action])] = []
            for handle in Array(c.sessions.keys) {
                guard var state = c.sessions[handle], let deadline = state.mrp.nextDeadline, deadline <= t else { continue }
                due.append((handle, state.mrp.poll(now: t)))
                c.sessions[handle] = state
            }
            return due
        }
        for (handle, actions) in due {
            for action in actions {
                switch action {
                case .retransmit(let counter, let frame):
                    // Skip it if the session went away or the peer acknowledged it meanwhile.
                    let to = core.withLock { c -> PeerAddress? in
                        guard let state = c.sessions[handle], state.mrp.isPending(counter) else { return nil }
                        c.statistics.retransmitted += 1
                        return state.peerAddress
                    }
                    guard let to else { continue }
                    try? await transport.send(frame, to: to)
                case .sendStandaloneAck(let exchangeID, let isInitiator, let counter):
                    try? await sendStandaloneAck(session: handle, exchangeID: exchangeID, isInitiator: isInitiator, counter: counter)
                case .giveUp(let exchangeID, _):
                    let ended = core.withLock { c in
                        c.exchanges.filter { $0.key.session == handle && $0.key.id == exchangeID }.map(\.value)
                    }
                    for e in ended { e.mailbox.fail(MessagingError.noAcknowledgement(transmissions: MRPConstants.maxTransmissions)) }
                    if case .secure = handle { core.withLock { $0.unresponsive }?(handle) }
                }
            }
        }
        core.withLock { scheduleTimer(&$0) }
    }
}
