import MatterMessaging

/// How the hub keeps one commissioned node live: a CASE session, one subscription to all of its
/// attributes and events, and its availability. Sans-I/O, in swift-nio's manner: each event
/// returns the actions for the driver (`NodeRuntime`) to perform, and time comes in as an
/// argument, so every transition is tested without sockets or sleeps.
///
/// - A node starts `connecting` (CASE at its last known address) and becomes `subscribing`
///   once a session is up, then `live` with the subscription's interval.
/// - A live node whose reports stop for longer than its max interval plus a margin has
///   lapsed: it is unavailable, and is reconnected.
/// - Failures wait with exponential backoff (1 s, 2 s, 4 s ... at most `maxBackoff`); from the
///   second attempt on, the node's address is resolved again through `_matter._tcp` (it may
///   have moved).
/// - The node is available exactly while it is live, except for a sleepy device (an ICD the
///   hub is registered with, `icd`): its silence between wakes is its schedule. When its
///   reports stop it is `asleep` and still available; each Check-In it sends makes the hub
///   connect and subscribe again (it has no subscription for the hub, or it would not have
///   checked in); it becomes unavailable only after ``missedCheckInLimit`` wakes in a row
///   passed without a word from it.
public struct NodeLifecycle: Sendable, Equatable {
    /// A registered ICD's schedule (ICD Management's IdleModeDuration, ActiveModeDuration).
    public struct ICDSchedule: Sendable, Equatable {
        public var idle: Milliseconds
        public var active: Milliseconds
        public init(idle: Milliseconds, active: Milliseconds) {
            self.idle = idle
            self.active = active
        }
    }

    /// Wakes in a row that may pass without a Check-In or a report before a sleepy node counts
    /// as unavailable.
    public static let missedCheckInLimit = 3

    public enum State: Sendable, Equatable {
        /// Not started, or stopped.
        case idle
        /// Establishing CASE (the `attempt`-th try in a row).
        case connecting(attempt: Int)
        /// A session is up; the subscription is being set up.
        case subscribing(attempt: Int)
        /// The subscription delivers reports; `deadline` is when it lapses without one.
        case live(subscriptionID: UInt32, maxIntervalSeconds: UInt16, deadline: Milliseconds)
        /// Waiting until `until` before the next attempt.
        case waiting(until: Milliseconds, attempt: Int)
        /// A sleepy node between wakes: its next Check-In (or report) is due by `deadline`;
        /// `missed` wakes passed without one.
        case asleep(missed: Int, deadline: Milliseconds)
    }

    public enum Event: Sendable, Equatable {
        case start
        case sessionEstablished
        case sessionFailed
        case subscribed(subscriptionID: UInt32, maxIntervalSeconds: UInt16)
        case subscribeFailed
        /// A report (data or a keep-alive) of the live subscription arrived.
        case reportReceived(subscriptionID: UInt32)
        /// The device announced itself: if waiting to retry, retry now.
        case deviceAnnounced
        /// The device's advert went away and came back, or moved to another port: it restarted
        /// (its subscription is gone) or moved. Reconnect now, at the address it announces.
        case deviceRestarted
        /// A sleepy node sent a valid Check-In: it is awake now and holds no subscription for
        /// the hub.
        case checkIn
        /// The hub's own subscription to the node switched on or off (schema 14's auto
        /// subscription). Off, a live node keeps its CASE session and no subscription.
        case setSubscribes(Bool)
        /// Time passed; lapses and backoff deadlines are checked.
        case tick
        case stop
    }

    public enum Action: Sendable, Equatable {
        /// Open CASE; `resolveAddress` asks for `_matter._tcp` resolution first.
        case establishSession(resolveAddress: Bool)
        /// Subscribe to every attribute and event (wildcard, min interval 0, `maxIntervalCeiling`).
        case subscribe(maxIntervalCeiling: UInt16)
        /// Drop the session and the subscription (they are dead or about to be replaced).
        case tearDown
        case setAvailable(Bool)
        /// Wake the driver with `.tick` at this time.
        case wake(at: Milliseconds)
    }

    /// Why the node's availability last changed (kept in its connectivity history).
    public enum AvailabilityReason: String, Sendable, Equatable {
        /// Its subscription was established: it is live.
        case subscribed
        /// Its CASE session was established and the hub does not subscribe (auto subscription off).
        case connected
        /// No report came within the subscription's max interval plus the margin.
        case lapsed
        /// The CASE session failed or was closed under a live subscription.
        case sessionLost = "session-lost"
        /// It announced itself again on `_matter._tcp` (restarted, or moved).
        case deviceRestarted = "device-restarted"
        /// CASE could not be established.
        case connectFailed = "connect-failed"
        /// The session came up but the subscription was refused or timed out.
        case subscribeFailed = "subscribe-failed"
        /// The hub stopped keeping it live (removed, or the hub shut down).
        case stopped
        /// A sleepy node let ``NodeLifecycle/missedCheckInLimit`` wakes pass without a word.
        case missedCheckIns = "missed-check-ins"
    }

    /// The max interval asked for: a silent device is noticed within a minute.
    public var maxIntervalCeiling: UInt16 = 50
    /// Added to the max interval before a subscription counts as lapsed (network and MRP slack).
    public var lapseMargin: Milliseconds = 5_000
    public var maxBackoff: Milliseconds = 60_000
    /// Set while the hub is registered with the node's ICD Management cluster.
    public var icd: ICDSchedule?
    /// Whether the hub subscribes once connected (auto subscription); without, the node is live
    /// while its CASE session is up, and clients subscribe themselves (schema 14's `subscribe`).
    public private(set) var subscribes = true
    public private(set) var state: State = .idle
    public private(set) var isAvailable = false
    /// Why `isAvailable` last changed (nil before it ever did).
    public private(set) var availabilityReason: AvailabilityReason?

    public init() {}

    /// What the state waits for (a lapse, a retry, the next wake); nil when nothing.
    public var deadline: Milliseconds? {
        switch state {
        case .live(_, _, let due) where due != .max: due
        case .waiting(let until, _): until
        case .asleep(_, let due): due
        default: nil
        }
    }

    public mutating func handle(_ event: Event, now: Milliseconds) -> [Action] {
        switch (state, event) {
        case (_, .stop):
            state = .idle
            return [.tearDown] + availability(false, .stopped)
        case (_, .setSubscribes(let on)):
            guard on != subscribes else { return [] }
            subscribes = on
            switch state {
            case .live(_, _, let due) where on && due == .max:
                // Connected without a subscription: subscribe on the same session.
                state = .subscribing(attempt: 1)
                return [.subscribe(maxIntervalCeiling: maxIntervalCeiling)]
            case .live where !on, .subscribing where !on:
                // A new session without the hub's subscription (the device drops the old one
                // when it can no longer deliver to it).
                state = .connecting(attempt: 1)
                return [.tearDown, .establishSession(resolveAddress: false)]
            default:
                return []
            }
        case (.idle, .start):
            state = .connecting(attempt: 1)
            return [.establishSession(resolveAddress: false)]
        case (.idle, _):
            return []

        case (_, .checkIn) where icd != nil:
            // Awake for a few seconds: connect and subscribe again now (whatever was under way
            // was started while it slept).
            state = .connecting(attempt: 1)
            return [.tearDown, .establishSession(resolveAddress: false)]
        case (.live(_, _, let due), .tick) where now >= due && icd != nil:
            return fallAsleep(missed: 1, now: now)
        case (.connecting, .sessionFailed) where icd != nil, (.subscribing, .subscribeFailed) where icd != nil:
            return fallAsleep(missed: 0, now: now)
        case (.asleep(let missed, let due), .tick) where now >= due:
            return fallAsleep(missed: missed + 1, now: now)
        case (.asleep, .deviceAnnounced), (.asleep, .deviceRestarted):
            state = .connecting(attempt: 1)
            return [.establishSession(resolveAddress: true)]

        case (.connecting, .sessionEstablished) where !subscribes:
            // Live while the session is up; nothing lapses (a closed session is noticed).
            state = .live(subscriptionID: 0, maxIntervalSeconds: 0, deadline: .max)
            return availability(true, .connected)
        case (.connecting(let attempt), .sessionEstablished):
            state = .subscribing(attempt: attempt)
            return [.subscribe(maxIntervalCeiling: maxIntervalCeiling)]
        case (.connecting(let attempt), .sessionFailed):
            return backOff(after: attempt, now: now, .connectFailed)
        case (.subscribing(let attempt), .subscribeFailed):
            return backOff(after: attempt, now: now, .subscribeFailed)

        case (.subscribing, .subscribed(let id, let maxInterval)):
            state = .live(subscriptionID: id, maxIntervalSeconds: maxInterval, deadline: deadline(maxInterval, now: now))
            return availability(true, .subscribed) + [.wake(at: deadline(maxInterval, now: now))]

        case (.live(let id, let maxInterval, _), .reportReceived(let reported)) where reported == id:
            let next = deadline(maxInterval, now: now)
            state = .live(subscriptionID: id, maxIntervalSeconds: maxInterval, deadline: next)
            return [.wake(at: next)]
        case (.live(_, _, let due), .tick) where now >= due:
            // Lapsed: the device went quiet. Reconnect at once, resolving its address again.
            state = .connecting(attempt: 2)
            return [.tearDown] + availability(false, .lapsed) + [.establishSession(resolveAddress: true)]
        case (.live, .sessionFailed), (.live, .deviceRestarted):
            state = .connecting(attempt: 2)
            return [.tearDown] + availability(false, event == .sessionFailed ? .sessionLost : .deviceRestarted)
                + [.establishSession(resolveAddress: true)]

        case (.waiting(let until, let attempt), .tick) where now >= until:
            state = .connecting(attempt: attempt)
            return [.establishSession(resolveAddress: attempt > 1)]
        case (.waiting(_, let attempt), .deviceAnnounced), (.waiting(_, let attempt), .deviceRestarted):
            state = .connecting(attempt: attempt)
            return [.establishSession(resolveAddress: true)]

        default:
            // Late answers of an attempt already given up on, reports of an old subscription,
            // early ticks: nothing to do.
            return []
        }
    }

    /// Between wakes: the subscription (if any) is given up, the next wake is waited for, and
    /// the node stays available until it has missed ``missedCheckInLimit`` in a row.
    private mutating func fallAsleep(missed: Int, now: Milliseconds) -> [Action] {
        let next = now + (icd?.idle ?? 0) + lapseMargin
        state = .asleep(missed: missed, deadline: next)
        let gone = missed >= Self.missedCheckInLimit ? availability(false, .missedCheckIns) : []
        return [.tearDown] + gone + [.wake(at: next)]
    }

    private func deadline(_ maxIntervalSeconds: UInt16, now: Milliseconds) -> Milliseconds {
        now + Milliseconds(maxIntervalSeconds) * 1000 + lapseMargin
    }

    private mutating func backOff(after attempt: Int, now: Milliseconds, _ reason: AvailabilityReason) -> [Action] {
        let delay = min(maxBackoff, 1000 << min(attempt - 1, 16))
        state = .waiting(until: now + delay, attempt: attempt + 1)
        return [.tearDown] + availability(false, reason) + [.wake(at: now + delay)]
    }

    private mutating func availability(_ available: Bool, _ reason: AvailabilityReason) -> [Action] {
        guard available != isAvailable else { return [] }
        isAvailable = available
        availabilityReason = reason
        return [.setAvailable(available)]
    }
}
