/// Waits until `condition` holds (polling every 20 ms), or gives false after `seconds`.
/// For what happens after the call that caused it: a fixed sleep is too short on a loaded
/// CI machine and too long everywhere else.
public func eventually(_ seconds: Double, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}
