import Synchronization

/// A queue of messages for one exchange with an async, time-limited receive.
final class Mailbox: Sendable {
    private struct State {
        var queue: [ReceivedMessage] = []
        var waiter: (id: UInt64, continuation: CheckedContinuation<ReceivedMessage, any Error>)?
        var failure: (any Error)?
        var nextWaiterID: UInt64 = 0
    }

    private let state = Mutex(State())

    func deliver(_ message: ReceivedMessage) {
        let waiter: CheckedContinuation<ReceivedMessage, any Error>? = state.withLock { s in
            if let w = s.waiter {
                s.waiter = nil
                return w.continuation
            }
            s.queue.append(message)
            return nil
        }
        waiter?.resume(returning: message)
    }

    /// Ends the mailbox: the current and every later receive throws `error`.
    func fail(_ error: any Error) {
        let waiter = state.withLock { s -> CheckedContinuation<ReceivedMessage, any Error>? in
            if s.failure == nil { s.failure = error }
            defer { s.waiter = nil }
            return s.waiter?.continuation
        }
        waiter?.resume(throwing: error)
    }

    func receive(timeout: Duration, onTimeout: @escaping @Sendable () -> any Error) async throws -> ReceivedMessage {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ReceivedMessage, any Error>) in
            let outcome: Result<ReceivedMessage, any Error>? = state.withLock { s in
                if !s.queue.isEmpty { return .success(s.queue.removeFirst()) }
                if let f = s.failure { return .failure(f) }
                s.nextWaiterID += 1
                let id = s.nextWaiterID
                s.waiter = (id, continuation)
                Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    self?.expire(id, error: onTimeout())
                }
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    private func expire(_ id: UInt64, error: any Error) {
        let waiter = state.withLock { s -> CheckedContinuation<ReceivedMessage, any Error>? in
            guard let w = s.waiter, w.id == id else { return nil }
            s.waiter = nil
            return w.continuation
        }
        waiter?.resume(throwing: error)
    }
}
