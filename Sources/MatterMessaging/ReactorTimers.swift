import CNet
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One-shot timers that fire on the reactor thread, from one timerfd in its epoll: what
/// `SystemClock.schedule` runs on.
///
/// Why not a task sleeping per timer: every receive timeout and every MRP timer was a task
/// (a job on the global executor), a libdispatch timer (a write to the manager thread's eventfd,
/// waking it) and, when the reply came first, a cancellation that woke both again. A request
/// and its reply armed and cancelled several per message. Here arming is at most one
/// `timerfd_settime` and wakes no thread; cancelling is a dictionary removal. A cancelled timer
/// that was the earliest costs one spurious wake of the reactor at its old deadline.
final class ReactorTimers: Sendable {
    /// Nil when there is no reactor or no timerfd (then SystemClock falls back to tasks).
    static let shared: ReactorTimers? = DatagramReactor.shared.flatMap { ReactorTimers(reactor: $0) }

    /// A struct, so the closure is stored at its own abstraction (see SettableCallback).
    private struct Entry {
        var deadline: ContinuousClock.Instant
        var action: @Sendable () -> Void
    }
    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        /// When the timerfd expires next; nil when it is not armed.
        var armed: ContinuousClock.Instant?
    }
    private let state = Mutex(State())
    private let fd: Int32

    private init?(reactor: DatagramReactor) {
        fd = cnet_timerfd_create()
        guard fd >= 0 else { return nil }
        let box = WeakTimers()
        guard reactor.register(fd, handler: { _ in box.timers?.expired() }) == nil else {
            close(fd)
            return nil
        }
        box.timers = self
    }

    private final class WeakTimers: @unchecked Sendable {
        // Set once, before the timerfd is armed (so before the handler can run).
        weak var timers: ReactorTimers?
    }

    /// Runs `action` on the reactor thread once `deadline` has passed, unless cancelled first.
    /// `action` must be short and must not register or unregister reactor sockets (it runs
    /// under the reactor's handler lock): resume a continuation, start a task.
    func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { s in
            s.nextID += 1
            s.entries[s.nextID] = Entry(deadline: deadline, action: action)
            // Armed under the lock: two threads arming at once cannot leave the later deadline set.
            if s.armed.map({ deadline < $0 }) ?? true { arm(&s, at: deadline) }
            return s.nextID
        }
    }

    /// The timer will not fire (if it has not already).
    func cancel(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    /// On the reactor thread, when the timerfd expired: runs what is due, arms for the rest.
    private func expired() {
        cnet_timerfd_clear(fd)
        let due = state.withLock { s -> [Entry] in
            let now = ContinuousClock.now
            var due: [Entry] = []
            var next: ContinuousClock.Instant?
            for (id, entry) in s.entries {
                if entry.deadline <= now {
                    due.append(entry)
                    s.entries[id] = nil
                } else if next.map({ entry.deadline < $0 }) ?? true {
                    next = entry.deadline
                }
            }
            s.armed = nil
            if let next { arm(&s, at: next) }
            return due
        }
        for entry in due.sorted(by: { $0.deadline < $1.deadline }) { entry.action() }
    }

    private func arm(_ s: inout State, at deadline: ContinuousClock.Instant) {
        // At most a year ahead (a far deadline is re-armed when it comes nearer): the
        // nanoseconds of a huge one would overflow.
        let delay = min(max(.zero, deadline - .now), .seconds(365 * 24 * 3600)).components
        let nanoseconds = UInt64(delay.seconds) * 1_000_000_000 + UInt64(delay.attoseconds / 1_000_000_000)
        s.armed = cnet_timerfd_arm(fd, nanoseconds) == 0 ? deadline : nil
    }
}
