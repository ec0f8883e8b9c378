/// A token bucket for writes that each cost an fsync (the network credentials): a burst of
/// `burst`, then one every `interval`. A client looping on `set_wifi_credentials` gets an error
/// instead of keeping the disk busy.
struct WriteRateLimit: Sendable {
    let burst: Int
    let interval: Duration
    private var tokens: Double
    private var last: ContinuousClock.Instant?

    init(burst: Int = 5, interval: Duration = .seconds(1)) {
        self.burst = burst
        self.interval = interval
        self.tokens = Double(burst)
    }

    /// Takes a token at `now`; when there is none, how long until there is one.
    mutating func take(at now: ContinuousClock.Instant = .now) -> Duration? {
        if let last {
            let elapsed = now - last
            tokens = min(Double(burst), tokens + Double(elapsed / interval))
        }
        last = now
        guard tokens >= 1 else { return interval * (1 - tokens) }
        tokens -= 1
        return nil
    }
}
