import MatterMessaging
import Synchronization
import Testing

/// SystemClock's timers (one timerfd on the reactor thread): each fires once, never before its
/// deadline, in deadline order whatever the order they were set in; a cancelled one never fires.
/// Bounds are generous (a loaded machine) and only the lower one is exact.
@Suite struct SystemClockTimerTests {
    /// Records which timers fired and when (in the clock's milliseconds).
    final class Firings: Sendable {
        private let fired = Mutex<[(name: String, at: Milliseconds)]>([])
        func record(_ name: String, _ clock: SystemClock) { fired.withLock { $0.append((name, clock.now())) } }
        var all: [(name: String, at: Milliseconds)] { fired.withLock { $0 } }

        /// Waits (bounded) until `count` timers have fired.
        func wait(for count: Int, seconds: Int = 10) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while ContinuousClock.now < deadline {
                if all.count >= count { return true }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return all.count >= count
        }
    }

    @Test func timersFireInDeadlineOrderAndNotBeforeTheirDeadline() async {
        let clock = SystemClock(), firings = Firings()
        let start = clock.now()
        // Set latest first: each earlier one must re-arm the timerfd.
        var deadlines: [String: Milliseconds] = [:]
        for (name, offset) in [("c", 2000), ("b", 1000), ("a", 20)] as [(String, Milliseconds)] {
            deadlines[name] = start + offset
            _ = clock.schedule(at: start + offset) { firings.record(name, clock) }
        }
        #expect(await firings.wait(for: 3))
        let fired = firings.all
        #expect(fired.map(\.name) == ["a", "b", "c"])
        for f in fired { #expect(f.at >= deadlines[f.name]!, "\(f.name) fired at \(f.at), before \(deadlines[f.name]!)") }
        // Not held until a later timer's deadline: the timerfd was armed again for each earlier
        // one (a second of slack for a loaded machine).
        #expect(fired.first.map { $0.at < deadlines["b"]! } == true, "\(fired)")
    }

    @Test func aCancelledTimerNeverFiresAndTheOthersStillDo() async {
        let clock = SystemClock(), firings = Firings()
        let start = clock.now()
        // The earliest is cancelled: the timerfd still expires for it, finds nothing due, and
        // must arm itself again for the next one.
        let cancelled = clock.schedule(at: start + 10) { firings.record("cancelled", clock) }
        _ = clock.schedule(at: start + 80) { firings.record("kept", clock) }
        cancelled.cancel()
        #expect(await firings.wait(for: 1))
        try? await Task.sleep(for: .milliseconds(100))
        #expect(firings.all.map(\.name) == ["kept"])
    }

    @Test func aDeadlineInThePastFiresAtOnceAndOnlyOnce() async {
        let clock = SystemClock(), firings = Firings()
        _ = clock.schedule(at: 0) { firings.record("past", clock) }
        #expect(await firings.wait(for: 1))
        try? await Task.sleep(for: .milliseconds(50))
        #expect(firings.all.count == 1)
    }

    @Test func manyTimersFromManyTasksAllFire() async {
        let clock = SystemClock(), firings = Firings()
        let start = clock.now()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<200 {
                group.addTask {
                    let at = start + Milliseconds(i % 50)
                    _ = clock.schedule(at: at) { firings.record("\(i)", clock) }
                }
            }
        }
        #expect(await firings.wait(for: 200))
        #expect(Set(firings.all.map(\.name)).count == 200)
    }
}
