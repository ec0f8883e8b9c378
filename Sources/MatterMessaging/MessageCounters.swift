/// The counter a sender puts in each message (Matter Core 4.6.1). Secure unicast sessions start
/// at a random value in 1...2^28 and never wrap; the global unencrypted and group counters wrap.
public struct MessageCounter: Sendable {
    public private(set) var current: UInt32
    public let wraps: Bool

    /// A counter starting at a random value in 1...2^28, as the spec requires.
    public init<G: RandomNumberGenerator>(wraps: Bool, using rng: inout G) {
        current = UInt32.random(in: 1...(1 << 28), using: &rng)
        self.wraps = wraps
    }

    public init(wraps: Bool) {
        var g = SystemRandomNumberGenerator()
        self.init(wraps: wraps, using: &g)
    }

    public init(startingAt value: UInt32, wraps: Bool) {
        current = value
        self.wraps = wraps
    }

    /// The counter for the next message. A non-wrapping counter that is exhausted ends the
    /// session (the caller must establish a new one).
    public mutating func next() throws(MessagingError) -> UInt32 {
        if current == .max && !wraps { throw .invalidHeader("the session's message counter is exhausted") }
        current &+= 1
        return current
    }
}

/// Duplicate and replay detection for one peer (Matter Core 4.6.5): the largest counter seen and
/// a bitmap of the 32 counters before it.
public struct MessageReceptionState: Sendable {
    public enum Policy: Sendable {
        /// Encrypted unicast: counters only grow; anything behind the window is a replay.
        case strict
        /// Unencrypted and group messages: counters may wrap, and a counter far behind the
        /// window means the peer restarted, so it opens a new window.
        case rollover
    }

    public static let windowSize: UInt32 = 32

    /// How many accepted counters a rollover state remembers beyond its window.
    public static let rolloverMemory = 64

    public let policy: Policy
    public private(set) var maxCounter: UInt32?
    /// Bit i set: counter maxCounter - 1 - i was received.
    private var window: UInt32 = 0
    /// Rollover only: the last counters accepted, oldest first. A busy peer's one global
    /// unencrypted counter moves past the window between two messages of one session (200
    /// handshakes at once advance it ~50 per message), so its retransmission lands behind the
    /// window; without this it would count as a restart and be delivered twice.
    private var recent: [UInt32] = []

    public init(policy: Policy) {
        self.policy = policy
    }

    /// A state that already counts `counter` as received (after session establishment, the
    /// peer's initial counter is learned from its first message).
    public init(policy: Policy, synchronizedTo counter: UInt32) {
        self.policy = policy
        maxCounter = counter
        if policy == .rollover { recent = [counter] }
    }

    /// Whether `counter` would be accepted, without recording it.
    public func isDuplicate(_ counter: UInt32) -> Bool {
        var copy = self
        return (try? copy.accept(counter)) == nil
    }

    /// Records `counter`, or throws `duplicate` if it was seen or is a replay.
    public mutating func accept(_ counter: UInt32) throws(MessagingError) {
        try record(counter)
        if policy == .rollover {
            if recent.count == Self.rolloverMemory { recent.removeFirst() }
            recent.append(counter)
        }
    }

    private mutating func record(_ counter: UInt32) throws(MessagingError) {
        guard let max = maxCounter else {
            maxCounter = counter
            return
        }
        let ahead: UInt32? = switch policy {
        case .strict: counter > max ? counter - max : nil
        case .rollover: counter &- max != 0 && counter &- max < (1 << 31) ? counter &- max : nil
        }
        if let shift = ahead {
            window = shift >= Self.windowSize ? 0 : (window << shift)
            if shift <= Self.windowSize { window |= 1 << (shift - 1) }
            maxCounter = counter
            return
        }
        let behind = max &- counter
        if behind == 0 { throw .duplicate(counter: counter) }
        if behind > Self.windowSize {
            guard policy == .rollover, !recent.contains(counter) else { throw .duplicate(counter: counter) }
            // A rollover peer behind the window with a counter not seen lately has restarted
            // its counter: start over.
            maxCounter = counter
            window = 0
            return
        }
        let bit: UInt32 = 1 << (behind - 1)
        if window & bit != 0 { throw .duplicate(counter: counter) }
        window |= bit
    }
}
