import Synchronization

/// A value shared across tasks, guarded by a lock.
final class LockedValue<T>: @unchecked Sendable {
    // @unchecked: every access goes through the lock.
    private let lock = Mutex(())
    private var value: T
    init(_ value: T) { self.value = value }
    func set(_ v: T) { lock.withLock { _ in value = v } }
    func get() -> T { lock.withLock { _ in value } }
}
