import MatterMessaging
import Synchronization

/// The radio of a sleepy (LIT) virtual device: while it sleeps, every datagram that arrives is
/// lost, as a Thread sleepy end device's are while its radio is off. It is awake until
/// `awakeUntil`; a wake (the idle timer, or something to send) keeps it up for
/// ActiveModeDuration, and each message it receives or sends for ActiveModeThreshold more
/// (Matter Core 9.16.3). Until `sleeps` is set it never sleeps (a LIT device without a
/// registered client operates as SIT).
final class SleepGate: Sendable {
    private struct State {
        var sleeps = false
        var awakeUntil: Milliseconds = 0
        var dropped: UInt64 = 0
    }
    private let state = Mutex(State())
    let clock: any MatterClock
    let thresholdMilliseconds: Milliseconds

    init(clock: any MatterClock, thresholdMilliseconds: UInt16) {
        self.clock = clock
        self.thresholdMilliseconds = Milliseconds(thresholdMilliseconds)
    }

    func setSleeps(_ sleeps: Bool) { state.withLock { $0.sleeps = sleeps } }

    var isAwake: Bool {
        let now = clock.now()
        return state.withLock { !$0.sleeps || now < $0.awakeUntil }
    }

    /// The datagrams lost to sleep so far.
    var dropped: UInt64 { state.withLock { $0.dropped } }

    /// Stays awake at least `milliseconds` from now.
    func stayAwake(_ milliseconds: Milliseconds) {
        let until = clock.now() + milliseconds
        state.withLock { $0.awakeUntil = max($0.awakeUntil, until) }
    }

    /// Whether a datagram that arrives now is received (and, if so, the device stays up for the
    /// threshold).
    fileprivate func admits() -> Bool {
        let now = clock.now()
        return state.withLock { s in
            guard !s.sleeps || now < s.awakeUntil else {
                s.dropped += 1
                return false
            }
            s.awakeUntil = max(s.awakeUntil, now + thresholdMilliseconds)
            return true
        }
    }
}

/// A transport behind a ``SleepGate``: sending wakes the device; receiving needs it awake.
struct SleepyTransport: MessageTransport {
    let inner: any MessageTransport
    let gate: SleepGate

    func send(_ bytes: [UInt8], to peer: PeerAddress) async throws(MessagingError) {
        gate.stayAwake(gate.thresholdMilliseconds)
        try await inner.send(bytes, to: peer)
    }

    var incoming: AsyncStream<Datagram> {
        let source = inner.incoming, gate = gate
        return AsyncStream { continuation in
            let task = Task {
                for await datagram in source where gate.admits() { continuation.yield(datagram) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    var localPort: UInt16 { inner.localPort }

    func close() { inner.close() }

    func deliverDirectly(to handler: @escaping @Sendable (Datagram) -> Void) -> Bool {
        let gate = gate
        return inner.deliverDirectly { datagram in if gate.admits() { handler(datagram) } }
    }
}
