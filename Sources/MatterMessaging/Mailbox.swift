import Synchronization

/// A queue of messages for one exchange with an async, time-limited, cancellable receive.
final class Mailbox: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Result<ReceivedMessage, MessagingError>, Never>
        /// Fires at the receive's deadline; cancelled when the receive ends otherwise.
        var timeout: ClockTimer
    }
    private struct State {
        var queue: [ReceivedMessage] = []
        var waiter: Waiter?
        var failure: MessagingError?
        var nextWaiterID: UInt64 = 0
    }

    private let state = Mutex(State())
    private let clock: any MatterClock

    init(clock: any MatterClock) {
        self.clock = clock
    }

    func deliver(_ message: ReceivedMessage) {
        let waiter: Waiter? = state.withLock { s in
            if let w = s.waiter {
                s.waiter = nil
                return w
            }
            s.queue.append(message)
            return nil
        }
        waiter?.timeout.cancel()
        waiter?.continuation.resume(returning: .success(message))
    }

    /// Ends the mailbox: the current and every later receive throws `error`.
    func fail(_ error: MessagingError) {
        let waiter = state.withLock { s -> Waiter? in
            if s.failure == nil { s.failure = error }
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.timeout.cancel()
        waiter?.continuation.resume(returning: .failure(error))
    }

    /// The next message; throws `onTimeout()` when none comes within `timeout` on the clock,
    /// and `cancelled` at once if the task is cancelled.
    func receive(timeout: Duration,
                 onTimeout: @escaping @Sendable () -> MessagingError) async throws(MessagingError) -> ReceivedMessage {
        let id = state.withLock { s -> UInt64 in
            s.nextWaiterID += 1
            return s.nextWaiterID
        }
        let deadline = clock.deadline(after: timeout)
        return try await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<ReceivedMessage, MessagingError>, Never>) in
                let outcome: Result<ReceivedMessage, MessagingError>? = state.withLock { s in
                    if !s.queue.isEmpty { return .success(s.queue.removeFirst()) }
                    if let f = s.failure { return .failure(f) }
                    if Task.isCancelled { return .failure(.cancelled) }
                    // The timeout ends the receive from a task, not on the timer's thread: a reply
                    // that arrived in time but waits for a busy pool is then delivered first (its
                    // job was queued first), as it was when the timeout was a sleeping task. Ended
                    // on the timer's thread, a starved test run saw replies "not received".
                    let timeout = clock.schedule(at: deadline) { [weak self] in
                        Task { self?.end(id, throwing: onTimeout()) }
                    }
                    s.waiter = Waiter(id: id, continuation: continuation, timeout: timeout)
                    return nil
                }
                if let outcome { continuation.resume(returning: outcome) }
            }
        } onCancel: {
            end(id, throwing: .cancelled)
        }.get()
    }

    /// Ends receive `id` with `error`, if it is still waiting.
    private func end(_ id: UInt64, throwing error: MessagingError) {
        let waiter = state.withLock { s -> Waiter? in
            guard let w = s.waiter, w.id == id else { return nil }
            s.waiter = nil
            return w
        }
        waiter?.timeout.cancel()
        waiter?.continuation.resume(returning: .failure(error))
    }
}
