import MatterMessaging
import Testing
import TestSupport

@Suite struct MessageReceptionStateTests {
    @Test func strictWindowDetectsDuplicatesAndReplays() throws {
        var s = MessageReceptionState(policy: .strict, synchronizedTo: 100)
        #expect(throws: MessagingError.duplicate(counter: 100)) { try s.accept(100) }
        try s.accept(105)
        try s.accept(103)  // inside the window, not seen yet
        #expect(throws: MessagingError.duplicate(counter: 103)) { try s.accept(103) }
        #expect(throws: MessagingError.duplicate(counter: 105)) { try s.accept(105) }
        try s.accept(105 - 32)  // oldest counter still inside the window
        #expect(throws: MessagingError.duplicate(counter: 105 - 33)) { try s.accept(105 - 33) }
        try s.accept(1000)  // a jump forward clears the window
        #expect(throws: MessagingError.duplicate(counter: 999 - 40)) { try s.accept(999 - 40) }
        try s.accept(999)
    }

    @Test func strictNeverWraps() throws {
        var s = MessageReceptionState(policy: .strict, synchronizedTo: .max - 1)
        try s.accept(.max)
        #expect(throws: MessagingError.duplicate(counter: 0)) { try s.accept(0) }
    }

    @Test func rolloverAcceptsWrapAndRestartedPeers() throws {
        var s = MessageReceptionState(policy: .rollover, synchronizedTo: .max - 1)
        try s.accept(.max)
        try s.accept(0)  // wrapped
        try s.accept(1)
        #expect(throws: MessagingError.duplicate(counter: .max)) { try s.accept(.max) }
        try s.accept(1_000_000)  // far ahead: new window
        try s.accept(5)  // far behind: the peer restarted; accepted once
        #expect(throws: MessagingError.duplicate(counter: 5)) { try s.accept(5) }
    }

    /// The case 200 parallel PASE handshakes hit: the commissioner's one global unencrypted
    /// counter moved ~50 between two messages of one session, so a retransmitted Pake1 came in
    /// behind the window, was taken for a restart and reached the responder twice.
    @Test func rolloverRetransmissionBehindTheWindowIsStillADuplicate() throws {
        var s = MessageReceptionState(policy: .rollover)
        try s.accept(176_689_432)  // PBKDFParamRequest
        try s.accept(176_689_488)  // Pake1
        try s.accept(176_689_534)  // a standalone ack
        #expect(throws: MessagingError.duplicate(counter: 176_689_488)) { try s.accept(176_689_488) }  // Pake1 again
        try s.accept(176_689_569)  // Pake3
        #expect(s.isDuplicate(176_689_432))
        // A counter behind the window never seen is still a restarted peer, accepted once.
        try s.accept(176_689_000)
        #expect(s.isDuplicate(176_689_000))
        // The memory is bounded: the oldest counters are forgotten, as a restart may reuse them.
        for k in UInt32(1)...UInt32(MessageReceptionState.rolloverMemory) { try s.accept(176_700_000 + k * 100) }
        #expect(!s.isDuplicate(176_689_432))
    }

    @Test func everyCounterInTheWindowIsAcceptedOnceInAnyOrder() throws {
        var rng = SeededRandom(seed: 7)
        var s = MessageReceptionState(policy: .strict, synchronizedTo: 1000)
        try s.accept(1032)
        let order = Array(1001...1031).shuffled(using: &rng)
        for c in order { try s.accept(UInt32(c)) }
        for c in order { #expect(s.isDuplicate(UInt32(c))) }
    }

    @Test func sendCounterStartsInRangeAndIncrements() throws {
        var rng = SeededRandom(seed: 1)
        for _ in 0..<100 {
            var c = MessageCounter(wraps: false, using: &rng)
            #expect((1...(1 << 28)).contains(c.current))
            let first = try c.next()
            #expect(try c.next() == first + 1)
        }
        var last = MessageCounter(startingAt: .max, wraps: false)
        #expect(throws: MessagingError.self) { try last.next() }
        var wrapping = MessageCounter(startingAt: .max, wraps: true)
        #expect(try wrapping.next() == 0)
    }
}

@Suite struct ReliableMessagingTests {
    @Test func backoffFollowsTheSpecFormula() {
        // 300 ms active interval: 330, 330, 528, 844.8, 1351.68 ms without jitter.
        #expect(MRPConstants.backoff(base: 300, sendCount: 0, random: 0) == 330)
        #expect(MRPConstants.backoff(base: 300, sendCount: 1, random: 0) == 330)
        #expect(MRPConstants.backoff(base: 300, sendCount: 2, random: 0) == 528)
        #expect(MRPConstants.backoff(base: 300, sendCount: 3, random: 0) == 845)
        #expect(MRPConstants.backoff(base: 300, sendCount: 4, random: 0) == 1352)
        // Full jitter adds 25 %.
        #expect(MRPConstants.backoff(base: 500, sendCount: 0, random: 1) == 688)
    }

    @Test func retransmitsUntilMaxTransmissionsThenGivesUp() {
        var s = ReliableMessageState(peer: MRPParameters(idleInterval: 100, activeInterval: 50, activeThreshold: 1000),
                                     random: { 0 })
        s.sent(counter: 7, frame: [1, 2, 3], exchangeID: 9, now: 0)
        var now: Milliseconds = 0
        var retransmissions = 0
        var gaveUp = false
        while let deadline = s.nextDeadline {
            now = deadline
            for a in s.poll(now: now) {
                switch a {
                case .retransmit(let c, let f):
                    #expect(c == 7 && f == [1, 2, 3])
                    retransmissions += 1
                case .giveUp(let e, let c):
                    #expect(e == 9 && c == 7)
                    gaveUp = true
                default: Issue.record("unexpected \(a)")
                }
            }
        }
        #expect(retransmissions == MRPConstants.maxTransmissions - 1)
        #expect(gaveUp)
        // Idle base 100: 110 + 110 + 176 + 282 + 451 (the last wait before giving up).
        #expect(now == 110 + 110 + 176 + 282 + 451)
    }

    @Test func ackStopsRetransmission() {
        var s = ReliableMessageState(random: { 0 })
        s.sent(counter: 1, frame: [0], exchangeID: 1, now: 0)
        let acked = s.received(counter: 50, exchangeID: 1, fromInitiator: false, needsAck: false, ackCounter: 1, now: 10)
        #expect(acked)
        #expect(!s.hasPending)
        #expect(s.poll(now: 10_000).isEmpty)
    }

    @Test func activePeerUsesActiveInterval() {
        var s = ReliableMessageState(peer: MRPParameters(idleInterval: 1000, activeInterval: 100, activeThreshold: 4000),
                                     random: { 0 })
        s.received(counter: 1, exchangeID: 2, fromInitiator: true, needsAck: false, ackCounter: nil, now: 0)
        s.sent(counter: 5, frame: [], exchangeID: 2, now: 10)
        #expect(s.nextDeadline == 10 + 110)
        s.sent(counter: 6, frame: [], exchangeID: 2, now: 5000)  // peer idle again
        #expect(s.poll(now: 120).count == 1)
        #expect(s.isPending(6))
    }

    @Test func standaloneAckAfterTimeoutUnlessPiggybacked() {
        var s = ReliableMessageState()
        s.received(counter: 42, exchangeID: 3, fromInitiator: true, needsAck: true, ackCounter: nil, now: 0)
        #expect(s.poll(now: 199).isEmpty)
        #expect(s.poll(now: 200) == [.sendStandaloneAck(exchangeID: 3, isInitiator: false, counter: 42)])
        s.received(counter: 43, exchangeID: 3, fromInitiator: true, needsAck: true, ackCounter: nil, now: 300)
        #expect(s.takeAck(exchangeID: 3) == 43)  // piggybacked on our reply
        #expect(s.poll(now: 1000).isEmpty)
    }
}
