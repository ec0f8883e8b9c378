@testable import MatterCommissioning
import Testing

/// When the fail-safe is re-armed: below half of its length left, never past the device's
/// cumulative limit (Matter Core 11.10.7.2), with time as an input.
@Suite struct FailSafeTimerTests {
    let start = ContinuousClock.Instant.now

    @Test func reArmsWhenLessThanHalfIsLeft() {
        var timer = FailSafeTimer(seconds: 60, maxCumulativeSeconds: 900, armedAt: start)
        #expect(!timer.needsReArm(at: start))
        #expect(!timer.needsReArm(at: start + .seconds(29)))
        #expect(timer.needsReArm(at: start + .seconds(31)))
        timer.reArmed(at: start + .seconds(31))
        #expect(!timer.needsReArm(at: start + .seconds(40)))
        #expect(timer.needsReArm(at: start + .seconds(62)))
    }

    @Test func neverPastTheCumulativeLimit() {
        var timer = FailSafeTimer(seconds: 60, maxCumulativeSeconds: 100, armedAt: start)
        #expect(timer.needsReArm(at: start + .seconds(35)))  // 35 + 60 <= 100
        timer.reArmed(at: start + .seconds(35))
        #expect(!timer.needsReArm(at: start + .seconds(70)))  // 70 + 60 > 100
    }

    @Test func withoutALimitItKeepsReArming() {
        let timer = FailSafeTimer(seconds: 10, maxCumulativeSeconds: nil, armedAt: start)
        #expect(timer.needsReArm(at: start + .seconds(1000)))
    }
}
