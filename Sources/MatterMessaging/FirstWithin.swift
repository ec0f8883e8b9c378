/// The value `body` produces if it finishes within `timeout`, else nil; `body` is cancelled
/// either way. Races a stream (a DNS-SD browse, say) against a deadline without a hand-written
/// task group at every call site.
public func first<T: Sendable>(within timeout: Duration, _ body: @escaping @Sendable () async -> T?) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let result = await group.next() ?? nil
        group.cancelAll()
        return result
    }
}
