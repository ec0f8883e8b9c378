/// When the commissioner re-arms the device's fail-safe (Matter Core 5.5 step 7; 11.10.7.2).
///
/// The commissioner arms it for `seconds` and re-arms it before a step when less than half
/// is left (as matter.js does), but never past the device's cumulative limit
/// (`MaxCumulativeFailsafeSeconds` of BasicCommissioningInfo), counted from the first arming.
/// Sans-I/O: time comes in as an argument.
struct FailSafeTimer: Sendable, Equatable {
    /// The length each ArmFailSafe asks for.
    let seconds: UInt16
    /// The device's limit on the time from the first arming, if it reported one.
    let maxCumulativeSeconds: UInt16?
    private(set) var firstArmed: ContinuousClock.Instant
    private(set) var lastArmed: ContinuousClock.Instant

    init(seconds: UInt16, maxCumulativeSeconds: UInt16?, armedAt now: ContinuousClock.Instant) {
        self.seconds = seconds
        self.maxCumulativeSeconds = maxCumulativeSeconds
        firstArmed = now
        lastArmed = now
    }

    /// Whether to re-arm before the next step.
    func needsReArm(at now: ContinuousClock.Instant) -> Bool {
        let remaining = lastArmed + .seconds(Int(seconds)) - now
        guard remaining < .seconds(Double(seconds) / 2) else { return false }
        return canReArm(at: now)
    }

    /// Whether a re-arm now stays within the device's cumulative limit (one past it is
    /// refused by the device anyway).
    func canReArm(at now: ContinuousClock.Instant) -> Bool {
        guard let limit = maxCumulativeSeconds else { return true }
        return now + .seconds(Int(seconds)) <= firstArmed + .seconds(Int(limit))
    }

    mutating func reArmed(at now: ContinuousClock.Instant) {
        lastArmed = now
    }
}
