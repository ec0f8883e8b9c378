/// When a publisher sends reports for one subscription (Matter Core 8.5.2), as a sans-I/O state
/// machine: events in (`attributesChanged`, `reportSent`, `tick`), actions out. Times are
/// monotonic milliseconds supplied by the caller; nothing here sleeps or owns a timer.
///
/// Rules: no report before `minInterval` has passed since the last one; a report with the
/// changed data as soon as that allows; an empty (keep-alive) report when `maxInterval` passes
/// with nothing changed.
public struct SubscriptionScheduler: Hashable, Sendable {
    public enum Action: Hashable, Sendable {
        /// Send a report carrying the changed paths.
        case sendDataReport
        /// Send an empty report so the subscriber knows the subscription is alive.
        case sendKeepAlive
    }

    /// Milliseconds.
    public let minInterval: UInt64
    /// Milliseconds.
    public let maxInterval: UInt64
    public private(set) var lastReportAt: UInt64
    public private(set) var dirty: Set<ConcreteAttributePath> = []
    /// Events were logged for this subscription since the last report.
    public private(set) var eventsPending = false
    /// A report is on the wire and not yet acknowledged: nothing new is due until it is.
    public private(set) var reportInFlight = false

    /// Starts when the priming report was sent (`now`).
    public init(minIntervalSeconds: UInt16, maxIntervalSeconds: UInt16, now: UInt64) {
        minInterval = UInt64(minIntervalSeconds) * 1000
        maxInterval = UInt64(max(maxIntervalSeconds, minIntervalSeconds)) * 1000
        lastReportAt = now
    }

    /// Records changed attributes (already filtered to this subscription's paths).
    public mutating func attributesChanged(_ paths: some Sequence<ConcreteAttributePath>) {
        dirty.formUnion(paths)
    }

    /// Records that events this subscription selects were logged: they are due like changed data.
    public mutating func eventsLogged() {
        eventsPending = true
    }

    /// The next time `tick` should be called: the min-interval end if something is dirty,
    /// else the max-interval end. Nil while a report is in flight.
    public var nextDeadline: UInt64? {
        guard !reportInFlight else { return nil }
        return dirty.isEmpty && !eventsPending ? lastReportAt + maxInterval : lastReportAt + minInterval
    }

    /// What to do at `now`. Returns an action at most once per report; call `reportSent` when
    /// the report went out (or `reportFailed`).
    public mutating func tick(now: UInt64) -> (Action, Set<ConcreteAttributePath>)? {
        guard let deadline = nextDeadline, now >= deadline else { return nil }
        reportInFlight = true
        let paths = dirty
        let events = eventsPending
        dirty = []
        eventsPending = false
        return (paths.isEmpty && !events ? .sendKeepAlive : .sendDataReport, paths)
    }

    /// The report was acknowledged at `now`: the intervals restart.
    public mutating func reportSent(now: UInt64) {
        reportInFlight = false
        lastReportAt = now
    }

    /// The report could not be delivered; its paths are dirty again. (The publisher normally
    /// ends the subscription instead, Matter Core 8.5.2.)
    public mutating func reportFailed(paths: Set<ConcreteAttributePath>) {
        reportInFlight = false
        dirty.formUnion(paths)
    }
}
