@testable import MatterHubService
import Testing

/// The node lifecycle's transitions, with time as an input: connect, subscribe, stay live on
/// reports, lapse, back off, come back.
@Suite struct NodeLifecycleTests {
    @Test func connectsSubscribesAndStaysLive() {
        var node = NodeLifecycle()
        #expect(node.handle(.start, now: 0) == [.establishSession(resolveAddress: false)])
        #expect(node.handle(.sessionEstablished, now: 10) == [.subscribe(maxIntervalCeiling: 50)])
        #expect(!node.isAvailable)
        #expect(node.handle(.subscribed(subscriptionID: 7, maxIntervalSeconds: 30), now: 20)
                == [.setAvailable(true), .wake(at: 20 + 30_000 + 5_000)])
        #expect(node.isAvailable)
        // Each report pushes the deadline out; an early tick does nothing.
        #expect(node.handle(.reportReceived(subscriptionID: 7), now: 10_000) == [.wake(at: 10_000 + 35_000)])
        #expect(node.handle(.tick, now: 40_000) == [])
        #expect(node.isAvailable)
        // A report of another (old) subscription does not keep this one alive.
        #expect(node.handle(.reportReceived(subscriptionID: 6), now: 44_000) == [])
    }

    /// Auto subscription off (`--no-auto-subscription`): live once the session is up, with no
    /// subscription and nothing to lapse; switched on, it subscribes on the same session; off
    /// again, a fresh session without the hub's subscription, the node staying available.
    @Test func withoutAutoSubscriptionTheSessionIsEnough() {
        var node = NodeLifecycle()
        #expect(node.handle(.setSubscribes(false), now: 0) == [])
        #expect(node.handle(.start, now: 0) == [.establishSession(resolveAddress: false)])
        #expect(node.handle(.sessionEstablished, now: 10) == [.setAvailable(true)])
        #expect(node.availabilityReason == .connected)
        #expect(node.handle(.tick, now: 10_000_000) == [], "nothing lapses without a subscription")
        #expect(node.isAvailable)
        #expect(node.handle(.setSubscribes(true), now: 20) == [.subscribe(maxIntervalCeiling: 50)])
        #expect(node.handle(.subscribed(subscriptionID: 3, maxIntervalSeconds: 10), now: 30) == [.wake(at: 30 + 15_000)])
        #expect(node.isAvailable)
        #expect(node.handle(.setSubscribes(false), now: 40) == [.tearDown, .establishSession(resolveAddress: false)])
        #expect(node.handle(.sessionEstablished, now: 50) == [], "still available: no change to announce")
        #expect(node.isAvailable)
        // A lost session is noticed as always.
        #expect(node.handle(.sessionFailed, now: 60) == [.tearDown, .setAvailable(false), .establishSession(resolveAddress: true)])
        #expect(node.availabilityReason == .sessionLost)
    }

    /// Each change of availability says why (the node's connectivity history keeps it); a
    /// failure while already unavailable changes nothing and says nothing new.
    @Test func everyAvailabilityChangeHasItsReason() {
        func live(_ node: inout NodeLifecycle, at now: UInt64) {
            _ = node.handle(.sessionEstablished, now: now)
            _ = node.handle(.subscribed(subscriptionID: 1, maxIntervalSeconds: 10), now: now)
        }
        var node = NodeLifecycle()
        #expect(node.availabilityReason == nil)
        _ = node.handle(.start, now: 0)
        _ = node.handle(.sessionFailed, now: 0)
        #expect(node.availabilityReason == nil, "never available: nothing changed")
        _ = node.handle(.tick, now: 1_000)
        live(&node, at: 1_000)
        #expect(node.isAvailable && node.availabilityReason == .subscribed)
        _ = node.handle(.tick, now: 16_000)
        #expect(!node.isAvailable && node.availabilityReason == .lapsed)
        live(&node, at: 16_000)
        _ = node.handle(.sessionFailed, now: 17_000)
        #expect(node.availabilityReason == .sessionLost)
        live(&node, at: 17_000)
        _ = node.handle(.deviceRestarted, now: 18_000)
        #expect(node.availabilityReason == .deviceRestarted)
        _ = node.handle(.sessionEstablished, now: 18_000)
        _ = node.handle(.subscribed(subscriptionID: 2, maxIntervalSeconds: 10), now: 18_000)
        _ = node.handle(.stop, now: 19_000)
        #expect(!node.isAvailable && node.availabilityReason == .stopped)
    }

    @Test func aSilentNodeLapsesAndIsResolvedAgain() {
        var node = NodeLifecycle()
        _ = node.handle(.start, now: 0)
        _ = node.handle(.sessionEstablished, now: 0)
        _ = node.handle(.subscribed(subscriptionID: 1, maxIntervalSeconds: 10), now: 0)
        #expect(node.handle(.tick, now: 14_999) == [])
        #expect(node.handle(.tick, now: 15_000) == [.tearDown, .setAvailable(false), .establishSession(resolveAddress: true)])
        #expect(!node.isAvailable)
        #expect(node.state == .connecting(attempt: 2))
    }

    /// A live node whose advert went away and came back (or moved port) restarted: its
    /// subscription is gone on its side, so the hub reconnects at once, resolving its address.
    @Test func aRestartedNodeIsReconnectedAtOnce() {
        var node = NodeLifecycle()
        _ = node.handle(.start, now: 0)
        _ = node.handle(.sessionEstablished, now: 0)
        _ = node.handle(.subscribed(subscriptionID: 1, maxIntervalSeconds: 50), now: 0)
        // A first announcement of a live node changes nothing.
        #expect(node.handle(.deviceAnnounced, now: 1_000) == [])
        #expect(node.handle(.deviceRestarted, now: 2_000) == [.tearDown, .setAvailable(false), .establishSession(resolveAddress: true)])
        #expect(node.state == .connecting(attempt: 2))
        // While an attempt runs, another announcement waits for its outcome.
        #expect(node.handle(.deviceRestarted, now: 2_100) == [])
        // Waiting to retry: an announcement retries now.
        _ = node.handle(.sessionFailed, now: 2_200)
        #expect(node.handle(.deviceRestarted, now: 2_300) == [.establishSession(resolveAddress: true)])
    }

    @Test func failuresBackOffExponentiallyUpToTheLimit() {
        var node = NodeLifecycle()
        _ = node.handle(.start, now: 0)
        var now: UInt64 = 0
        var delays: [UInt64] = []
        for _ in 0..<9 {
            let actions = node.handle(.sessionFailed, now: now)
            guard case .wake(let at)? = actions.last else { Issue.record("no wake in \(actions)"); return }
            delays.append(at - now)
            now = at
            let retry = node.handle(.tick, now: now)
            #expect(retry == [.establishSession(resolveAddress: true)])
        }
        #expect(delays == [1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000])
        #expect(!node.isAvailable)
    }

    @Test func anAnnouncementEndsTheWait() {
        var node = NodeLifecycle()
        _ = node.handle(.start, now: 0)
        _ = node.handle(.sessionFailed, now: 0)
        #expect(node.handle(.deviceAnnounced, now: 100) == [.establishSession(resolveAddress: true)])
        #expect(node.handle(.sessionEstablished, now: 120) == [.subscribe(maxIntervalCeiling: 50)])
        #expect(node.handle(.subscribeFailed, now: 130).contains(.wake(at: 130 + 2000)))
    }

    @Test func goingUnavailableIsReportedOnce() {
        var node = NodeLifecycle()
        _ = node.handle(.start, now: 0)
        _ = node.handle(.sessionEstablished, now: 0)
        _ = node.handle(.subscribed(subscriptionID: 1, maxIntervalSeconds: 10), now: 0)
        #expect(node.handle(.sessionFailed, now: 1).filter { $0 == .setAvailable(false) }.count == 1)
        #expect(node.handle(.sessionFailed, now: 2).filter { $0 == .setAvailable(false) }.isEmpty)
        #expect(node.handle(.stop, now: 3) == [.tearDown])
        #expect(node.state == .idle)
        #expect(node.handle(.tick, now: 100_000) == [])
    }

    /// A sleepy node (the hub registered for its Check-Ins): its silence between wakes keeps it
    /// available and asleep; a Check-In makes the hub connect and subscribe again; three wakes
    /// missed in a row make it unavailable, and the next Check-In brings it back.
    @Test func aSleepyNodeIsAsleepNotUnavailableUntilItMissesThreeCheckIns() {
        var node = NodeLifecycle()
        node.icd = NodeLifecycle.ICDSchedule(idle: 30_000, active: 3_000)
        _ = node.handle(.start, now: 0)
        _ = node.handle(.sessionEstablished, now: 0)
        _ = node.handle(.subscribed(subscriptionID: 1, maxIntervalSeconds: 30), now: 0)
        #expect(node.isAvailable)
        // The report due at 30 s did not come by 35 s: asleep, still available, next due by 70 s.
        #expect(node.handle(.tick, now: 35_000) == [.tearDown, .wake(at: 70_000)])
        #expect(node.state == .asleep(missed: 1, deadline: 70_000) && node.isAvailable)
        // Its Check-In: connect again at once, without a lapse in availability.
        #expect(node.handle(.checkIn, now: 60_000) == [.tearDown, .establishSession(resolveAddress: false)])
        _ = node.handle(.sessionEstablished, now: 60_100)
        #expect(node.handle(.subscribed(subscriptionID: 2, maxIntervalSeconds: 30), now: 60_200) == [.wake(at: 95_200)])
        #expect(node.isAvailable && node.availabilityReason == .subscribed)
        // It falls silent: asleep at 95.2 s (missed 1), 130.2 s (2), 165.2 s (3: unavailable).
        _ = node.handle(.tick, now: 95_200)
        #expect(node.handle(.tick, now: 130_200) == [.tearDown, .wake(at: 165_200)])
        #expect(node.isAvailable)
        #expect(node.handle(.tick, now: 165_200) == [.tearDown, .setAvailable(false), .wake(at: 200_200)])
        #expect(!node.isAvailable && node.availabilityReason == .missedCheckIns)
        // A connection tried while it sleeps fails: it waits for the next wake, not a backoff.
        _ = node.handle(.checkIn, now: 180_000)
        #expect(node.handle(.sessionFailed, now: 190_000) == [.tearDown, .wake(at: 225_000)])
        #expect(node.state == .asleep(missed: 0, deadline: 225_000))
        _ = node.handle(.checkIn, now: 200_000)
        _ = node.handle(.sessionEstablished, now: 200_000)
        #expect(node.handle(.subscribed(subscriptionID: 3, maxIntervalSeconds: 30), now: 200_000)
                == [.setAvailable(true), .wake(at: 235_000)])
        // Unregistered, a lapse is a lapse again.
        node.icd = nil
        #expect(node.handle(.tick, now: 235_000) == [.tearDown, .setAvailable(false), .establishSession(resolveAddress: true)])
    }

    /// A node the hub is not registered with ignores Check-Ins (the runtime routes none to it
    /// either): nothing changes.
    @Test func checkInsMeanNothingWithoutARegistration() {
        var node = NodeLifecycle()
        _ = node.handle(.start, now: 0)
        _ = node.handle(.sessionEstablished, now: 0)
        _ = node.handle(.subscribed(subscriptionID: 1, maxIntervalSeconds: 10), now: 0)
        #expect(node.handle(.checkIn, now: 1_000) == [])
        #expect(node.state == .live(subscriptionID: 1, maxIntervalSeconds: 10, deadline: 15_000))
    }
}
