@testable import MatterHubService
import MatterServerAPI
import Testing

/// What a slow client gets once it catches up, and the credential write limit.
struct EventBacklogTests {
    static func update(_ node: UInt64, _ attribute: UInt32, _ value: Int) -> ServerEvent {
        .attributeUpdated(nodeID: node, path: AttributePath(endpoint: 1, cluster: 6, attribute: attribute), value: .int(Int64(value)))
    }

    @Test func attributeValuesAreCoalescedToTheLatestInOrder() {
        var backlog = EventBacklog()
        let held1 = backlog.hold(Self.update(1, 0, 1))
        #expect(held1)
        let held2 = backlog.hold(Self.update(2, 0, 1))
        #expect(held2)
        let held3 = backlog.hold(.nodeRemoved(nodeID: 9))
        #expect(held3)
        let held4 = backlog.hold(Self.update(1, 0, 2))
        #expect(held4)
        let held5 = backlog.hold(Self.update(1, 0, 3))
        #expect(held5)
        #expect(backlog.count == 3)
        #expect(backlog.take() == [Self.update(2, 0, 1), .nodeRemoved(nodeID: 9), Self.update(1, 0, 3)])
        #expect(backlog.count == 0 && backlog.take().isEmpty)
    }

    @Test func aNodesRemovalSupersedesItsEarlierValuesButNotLaterOnes() {
        var backlog = EventBacklog()
        _ = backlog.hold(Self.update(1, 0, 1))
        _ = backlog.hold(Self.update(1, 1, 1))
        _ = backlog.hold(Self.update(2, 0, 1))
        _ = backlog.hold(.nodeRemoved(nodeID: 1))
        _ = backlog.hold(Self.update(1, 0, 5))
        #expect(backlog.take() == [Self.update(2, 0, 1), .nodeRemoved(nodeID: 1), Self.update(1, 0, 5)])
    }

    @Test func pastTheLimitTheClientIsGivenUp() {
        var backlog = EventBacklog()
        var allHeld = true
        for i in 0..<EventBacklog.limit { allHeld = backlog.hold(Self.update(1, UInt32(i), i)) && allHeld }
        #expect(allHeld)
        let coalesced = backlog.hold(Self.update(1, 0, 7))  // no growth
        #expect(coalesced)
        let past = backlog.hold(.serverShutdown)
        #expect(!past)
    }

    @Test func credentialWritesAreLimitedToABurstThenOneASecond() {
        var limit = WriteRateLimit(burst: 3, interval: .seconds(1))
        let t0 = ContinuousClock.now
        var waits: [Duration?] = []
        for _ in 0..<4 { waits.append(limit.take(at: t0)) }
        waits.append(limit.take(at: t0 + .milliseconds(500)))
        waits.append(limit.take(at: t0 + .milliseconds(1100)))
        waits.append(limit.take(at: t0 + .milliseconds(1200)))
        waits.append(limit.take(at: t0 + .seconds(60)))
        #expect(waits.map { $0 == nil } == [true, true, true, false, false, true, false, true])
        #expect(waits[3]! > .milliseconds(900) && waits[3]! <= .seconds(1))
    }
}
