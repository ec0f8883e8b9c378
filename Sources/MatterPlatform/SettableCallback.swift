import Synchronization

/// A closure that can be replaced while other threads call it.
///
/// Why not `Mutex<(@Sendable (T) -> Void)?>`: Mutex is generic, so it stores the closure at its
/// most general abstraction, and every `withLock { $0 }` is an inout access that converts the
/// closure to the caller's form and writes it back converted again: one more thunk around the
/// last, each time. The hub read its event sink that way once per event (and the UDP reader its datagram handler once per datagram: half the hub's CPU after a thousand), so each event cost 64 B
/// that was never freed and every later event one more thunk call (after 30,000 events a publish
/// took 0.2 ms). Inside a struct the closure keeps its own abstraction and the access copies it.
public final class SettableCallback<Argument>: Sendable {
    private struct Stored: Sendable {
        let call: @Sendable (Argument) -> Void
    }

    private let stored: Mutex<Stored>

    public init(_ initial: @escaping @Sendable (Argument) -> Void = { _ in }) {
        stored = Mutex(Stored(call: initial))
    }

    public func set(_ call: @escaping @Sendable (Argument) -> Void) {
        stored.withLock { $0 = Stored(call: call) }
    }

    public func callAsFunction(_ argument: Argument) {
        stored.withLock { $0 }.call(argument)
    }
}
