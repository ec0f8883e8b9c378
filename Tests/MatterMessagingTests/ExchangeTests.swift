import MatterMessaging
import Testing

/// An exchange's receive: its timeout runs on the manager's clock and ends with the receive;
/// cancelling the waiting task ends it at once.
@Suite struct ExchangeTests {
    static func exchange() async throws -> (ExchangeManager, ManualClock, Exchange) {
        let net = MemoryNetwork()
        let clock = ManualClock()
        let manager = ExchangeManager(transport: net.makeEndpoint(), clock: clock)
        await manager.start()
        let session = await manager.newUnsecuredSession(to: net.makeEndpoint().address)
        return (manager, clock, try await manager.newExchange(on: session))
    }

    @Test func receiveTimesOutOnTheClock() async throws {
        let (manager, clock, e) = try await Self.exchange()
        let receive = Task { try await e.receive(timeout: .seconds(30)) }
        try await ExchangeManagerTests.waitFor { clock.nextDeadline == 30_000 }
        clock.advance(by: .milliseconds(29_999))
        clock.advance(by: .milliseconds(1))
        await #expect(throws: MessagingError.timeout(waitedMilliseconds: 30_000)) { _ = try await receive.value }
        #expect(clock.sleeperCount == 0)
        await manager.shutdown()
    }

    @Test func cancellingAReceiveEndsItAndItsTimeout() async throws {
        let (manager, clock, e) = try await Self.exchange()
        let receive = Task { try await e.receive(timeout: .seconds(30)) }
        try await ExchangeManagerTests.waitFor { clock.sleeperCount == 1 }
        receive.cancel()
        await #expect(throws: MessagingError.cancelled) { _ = try await receive.value }
        try await ExchangeManagerTests.waitFor { clock.sleeperCount == 0 }  // the timeout task ended too
        #expect(clock.now() == 0)
        await manager.shutdown()
    }

    @Test func aClosedExchangeEndsTheReceiveAndItsTimeout() async throws {
        let (manager, clock, e) = try await Self.exchange()
        let receive = Task { try await e.receive(timeout: .seconds(30)) }
        try await ExchangeManagerTests.waitFor { clock.sleeperCount == 1 }
        await e.close()
        await #expect(throws: MessagingError.closed) { _ = try await receive.value }
        try await ExchangeManagerTests.waitFor { clock.sleeperCount == 0 }
        await manager.shutdown()
    }
}
