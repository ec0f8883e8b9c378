import Synchronization

/// The monotonic time the messaging driver and the devices run on: what time it is, and a way
/// to wait for a moment. `SystemClock` is the real one; `ManualClock` lets tests move time
/// forward themselves (as swift-nio's `EmbeddedEventLoop.advanceTime` does), so timers, MRP
/// and fail-safes are tested without waiting.
public protocol MatterClock: Sendable {
    /// Milliseconds since an arbitrary fixed start; never goes backwards.
    func now() -> Milliseconds
    /// Returns once `now() >= deadline`; throws `CancellationError` if the task is cancelled
    /// first.
    func sleep(until deadline: Milliseconds) async throws
    /// Runs `action` once `now() >= deadline`, unless the returned timer is cancelled first.
    /// `action` runs on whatever thread the clock fires on: it must be short and must not block
    /// (resume a continuation, start a task). Receive timeouts and the MRP timer use this.
    func schedule(at deadline: Milliseconds, _ action: @escaping @Sendable () -> Void) -> ClockTimer
}

/// A timer from `MatterClock.schedule`.
public struct ClockTimer: Sendable {
    private let cancelAction: @Sendable () -> Void

    public init(cancel: @escaping @Sendable () -> Void) {
        cancelAction = cancel
    }

    /// The action will not run (if it has not already run).
    public func cancel() { cancelAction() }
}

extension MatterClock {
    /// A task that sleeps on this clock until `deadline`, then runs `action`: any clock's timers
    /// (ManualClock's, so tests can advance through them).
    public func schedule(at deadline: Milliseconds, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        sleepingTask(self, until: deadline, action)
    }

    /// `now()` plus `duration`, for deadlines.
    public func deadline(after duration: Duration) -> Milliseconds {
        now() &+ Milliseconds(duration: duration)
    }
}

extension Milliseconds {
    /// A duration in whole milliseconds (rounded down; negative ones are 0, huge ones 10^18).
    init(duration: Duration) {
        self = Milliseconds(Swift.min(Swift.max(0, duration.milliseconds), 1e18))
    }
}

/// The process's monotonic clock (`ContinuousClock`), counted from when the value was made.
public struct SystemClock: MatterClock {
    private let start = ContinuousClock.now

    public init() {}

    public func now() -> Milliseconds {
        Milliseconds(duration: ContinuousClock.now - start)
    }

    public func sleep(until deadline: Milliseconds) async throws {
        try await Task.sleep(until: start + .milliseconds(Int64(clamping: deadline)), clock: .continuous)
    }

    /// On the reactor thread's timerfd (see ReactorTimers); a sleeping task if there is none.
    public func schedule(at deadline: Milliseconds, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        guard let timers = ReactorTimers.shared else { return sleepingTask(self, until: deadline, action) }
        let id = timers.schedule(at: start + .milliseconds(Int64(clamping: deadline)), action)
        return ClockTimer { timers.cancel(id) }
    }
}

private func sleepingTask(_ clock: some MatterClock, until deadline: Milliseconds,
                          _ action: @escaping @Sendable () -> Void) -> ClockTimer {
    let task = Task {
        do { try await clock.sleep(until: deadline) } catch { return }
        action()
    }
    return ClockTimer { task.cancel() }
}

/// A clock that moves only when told to. Sleepers wake, in deadline order, when `advance`
/// reaches their deadline; a cancelled sleeper throws at once.
public final class ManualClock: MatterClock {
    private struct Sleeper {
        var deadline: Milliseconds
        var continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var now: Milliseconds
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
    }
    private let state: Mutex<State>

    public init(now: Milliseconds = 0) {
        state = Mutex(State(now: now))
    }

    public func now() -> Milliseconds { state.withLock { $0.now } }

    /// How many tasks are sleeping on this clock (a test waits for its timers to be set).
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline anyone sleeps until.
    public var nextDeadline: Milliseconds? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    public func sleep(until deadline: Milliseconds) async throws {
        let id = state.withLock { s -> UInt64 in s.nextID += 1; return s.nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let resume: Result<Void, any Error>? = state.withLock { s in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= s.now { return .success(()) }
                    s.sleepers[id] = Sleeper(deadline: deadline, continuation: c)
                    return nil
                }
                if let resume { c.resume(with: resume) }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration` and wakes every sleeper whose deadline is reached.
    public func advance(by duration: Duration) {
        advance(to: now() &+ Milliseconds(duration: duration))
    }

    /// Moves time forward to `instant` (never backwards) and wakes the sleepers it reaches.
    public func advance(to instant: Milliseconds) {
        let due = state.withLock { s -> [Sleeper] in
            s.now = max(s.now, instant)
            let ready = s.sleepers.filter { $0.value.deadline <= s.now }
            for id in ready.keys { s.sleepers[id] = nil }
            return ready.values.sorted { $0.deadline < $1.deadline }
        }
        for s in due { s.continuation.resume() }
    }
}
