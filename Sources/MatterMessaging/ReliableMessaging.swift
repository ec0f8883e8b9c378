/// Milliseconds on a monotonic clock; the sans-I/O cores take time as input.
public typealias Milliseconds = UInt64

/// A peer's MRP timing (Matter Core 4.12.8 and 2.12.5): how long it may sleep between
/// receptions, from its DNS-SD TXT (SII, SAI, SAT) or its session parameters.
public struct MRPParameters: Hashable, Sendable {
    /// Retransmission base while the peer is idle (SII).
    public var idleInterval: Milliseconds
    /// Retransmission base while the peer is active (SAI).
    public var activeInterval: Milliseconds
    /// How long a peer stays active after it last sent something (SAT).
    public var activeThreshold: Milliseconds

    public init(idleInterval: Milliseconds = 500, activeInterval: Milliseconds = 300, activeThreshold: Milliseconds = 4000) {
        self.idleInterval = idleInterval
        self.activeInterval = activeInterval
        self.activeThreshold = activeThreshold
    }

    public static let `default` = MRPParameters()
}

/// The spec's MRP constants (Matter Core 4.12.8).
public enum MRPConstants {
    public static let maxTransmissions = 5
    public static let backoffBase = 1.6
    public static let backoffJitter = 0.25
    public static let backoffMargin = 1.1
    public static let backoffThreshold = 1
    public static let standaloneAckTimeout: Milliseconds = 200

    /// The wait before retransmission number `sendCount` (0 = after the first transmission):
    /// base * margin * 1.6^max(0, n - threshold) * (1 + jitter * random).
    public static func backoff(base: Milliseconds, sendCount: Int, random: Double) -> Milliseconds {
        let exponent = Double(max(0, sendCount - backoffThreshold))
        var t = Double(base) * backoffMargin
        for _ in 0..<Int(exponent) { t *= backoffBase }
        t *= 1 + backoffJitter * min(max(random, 0), 1)
        return Milliseconds(t.rounded())
    }
}

/// The MRP bookkeeping of one session, as a state machine: events in, actions out (no timers or
/// sockets inside). The owner feeds it what was sent and received and calls `poll(now:)` when
/// the earliest `nextDeadline` passes.
public struct ReliableMessageState: Sendable {
    public enum Action: Equatable, Sendable {
        /// Send this frame again (it is already encrypted with its original counter).
        case retransmit(counter: UInt32, frame: [UInt8])
        /// Acknowledge `counter` on `exchangeID` with a standalone ack.
        case sendStandaloneAck(exchangeID: UInt16, isInitiator: Bool, counter: UInt32)
        /// The peer never acknowledged: fail the exchange.
        case giveUp(exchangeID: UInt16, counter: UInt32)
    }

    struct Pending: Sendable {
        var frame: [UInt8]
        var exchangeID: UInt16
        var sendCount: Int
        var deadline: Milliseconds
    }

    struct AckDue: Sendable {
        var counter: UInt32
        var isInitiator: Bool
        var deadline: Milliseconds
    }

    public var peer: MRPParameters
    /// When we last heard from the peer (it is active for `activeThreshold` after that).
    public private(set) var lastHeard: Milliseconds?
    private var pending: [UInt32: Pending] = [:]
    /// Acks we owe, per exchange: sent piggybacked on the next message or standalone when due.
    private var acksDue: [UInt16: AckDue] = [:]
    private var random: @Sendable () -> Double

    public init(peer: MRPParameters = .default, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.peer = peer
        self.random = random
    }

    public var hasPending: Bool { !pending.isEmpty }
    /// Reliable messages sent and not acknowledged yet.
    public var pendingCount: Int { pending.count }
    public func isPending(_ counter: UInt32) -> Bool { pending[counter] != nil }

    /// The earliest time `poll` has work to do, if any.
    public var nextDeadline: Milliseconds? {
        (pending.values.map(\.deadline) + acksDue.values.map(\.deadline)).min()
    }

    func baseInterval(now: Milliseconds) -> Milliseconds {
        if let heard = lastHeard, now &- heard < peer.activeThreshold { return peer.activeInterval }
        return peer.idleInterval
    }

    /// A reliable message went out for the first time.
    public mutating func sent(counter: UInt32, frame: [UInt8], exchangeID: UInt16, now: Milliseconds) {
        let wait = MRPConstants.backoff(base: baseInterval(now: now), sendCount: 0, random: random())
        pending[counter] = Pending(frame: frame, exchangeID: exchangeID, sendCount: 1, deadline: now + wait)
    }

    /// The ack to piggyback on a message we are about to send on `exchangeID`, which clears it.
    public mutating func takeAck(exchangeID: UInt16) -> UInt32? {
        acksDue.removeValue(forKey: exchangeID)?.counter
    }

    /// A message arrived: note the peer is active, process its ack, and schedule our ack if it
    /// asked for one. Returns true if it acknowledged one of our pending messages.
    @discardableResult
    public mutating func received(counter: UInt32, exchangeID: UInt16, fromInitiator: Bool, needsAck: Bool,
                                  ackCounter: UInt32?, now: Milliseconds) -> Bool {
        lastHeard = now
        var acked = false
        if let a = ackCounter, pending.removeValue(forKey: a) != nil { acked = true }
        if needsAck {
            // We reply as the other side of the exchange: our I flag is the opposite of theirs.
            acksDue[exchangeID] = AckDue(counter: counter, isInitiator: !fromInitiator,
                                         deadline: now + MRPConstants.standaloneAckTimeout)
        }
        return acked
    }

    /// A duplicate of a reliable message arrived: acknowledge it at once (the peer missed our ack).
    public mutating func receivedDuplicate(counter: UInt32, exchangeID: UInt16, fromInitiator: Bool, now: Milliseconds) -> Action {
        lastHeard = now
        return .sendStandaloneAck(exchangeID: exchangeID, isInitiator: !fromInitiator, counter: counter)
    }

    /// Drops everything pending for a closed exchange.
    public mutating func closeExchange(_ exchangeID: UInt16) {
        pending = pending.filter { $0.value.exchangeID != exchangeID }
    }

    /// The actions due at `now`.
    public mutating func poll(now: Milliseconds) -> [Action] {
        var actions: [Action] = []
        for (exchangeID, due) in acksDue where due.deadline <= now {
            acksDue[exchangeID] = nil
            actions.append(.sendStandaloneAck(exchangeID: exchangeID, isInitiator: due.isInitiator, counter: due.counter))
        }
        for counter in pending.keys.sorted() {
            guard var p = pending[counter], p.deadline <= now else { continue }
            if p.sendCount >= MRPConstants.maxTransmissions {
                pending[counter] = nil
                actions.append(.giveUp(exchangeID: p.exchangeID, counter: counter))
                continue
            }
            p.deadline = now + MRPConstants.backoff(base: baseInterval(now: now), sendCount: p.sendCount, random: random())
            p.sendCount += 1
            pending[counter] = p
            actions.append(.retransmit(counter: counter, frame: p.frame))
        }
        return actions
    }
}
