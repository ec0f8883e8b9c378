import MatterInteraction
import MatterTLV
import Testing

@Suite struct EventLogTests {
    @Test func numbersInOrderAndDropsTheOldestBeyondCapacity() {
        let base: UInt64 = 1 << 32
        var log = EventLog(firstEventNumber: base, capacity: 3)
        for i in 0..<5 {
            let e = log.log(endpoint: 1, cluster: 0x3B, event: EventID(UInt32(i % 2)), priority: 1, epochTimestampMs: UInt64(i),
                            data: .structure([]))
            #expect(e.eventNumber == base + UInt64(i))
        }
        let kept: [UInt64] = [base + 2, base + 3, base + 4]
        #expect(log.events.map(\.eventNumber) == kept)
        #expect(log.nextEventNumber == base + 5)
    }

    @Test func selectsByPathAndEventMin() {
        var log = EventLog()
        log.log(endpoint: 0, cluster: .basicInformation, event: 0, priority: 2, epochTimestampMs: 1, data: .structure([]))
        log.log(endpoint: 1, cluster: 0x3B, event: 1, priority: 1, epochTimestampMs: 2, data: .structure([]))
        log.log(endpoint: 1, cluster: 0x3B, event: 2, priority: 1, epochTimestampMs: 3, data: .structure([]))
        #expect(log.select([EventPathIB()]).count == 3)
        #expect(log.select([EventPathIB(endpoint: 1, cluster: 0x3B, event: nil)]).map(\.eventNumber) == [2, 3])
        #expect(log.select([EventPathIB(endpoint: 1, cluster: 0x3B, event: 2)]).map(\.eventNumber) == [3])
        #expect(log.select([EventPathIB()], eventMin: 3).map(\.eventNumber) == [3])
        #expect(log.select([EventPathIB(endpoint: 2, cluster: nil, event: nil)]).isEmpty)
    }
}
