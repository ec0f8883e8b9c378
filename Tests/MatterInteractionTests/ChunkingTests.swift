import MatterInteraction
import MatterTLV
import Testing
import TestSupport

/// ReportChunker splits under the byte budget; ReportAssembler puts the pieces back together.
@Suite struct ChunkingTests {
    /// 60 attributes with 40-byte strings plus one 200-item list: well over one message.
    static func bigReport() -> [AttributeReportIB] {
        var reports: [AttributeReportIB] = (0..<60).map { i in
            .data(AttributeDataIB(dataVersion: 7, path: AttributePathIB(1, 0xFFF1_FC00, AttributeID(UInt32(i))),
                                  data: .utf8(String(repeating: "x", count: 40))))
        }
        reports.append(.data(AttributeDataIB(dataVersion: 7, path: AttributePathIB(0, .descriptor, 1),
                                             data: .array((0..<200).map { .unsigned(UInt32($0)) }))))
        reports.append(.status(AttributeStatusIB(path: AttributePathIB(3, 6, 0), status: StatusIB(.unsupportedEndpoint))))
        return reports
    }

    @Test(arguments: [1180, 600, 256])
    func splitsUnderBudgetAndReassembles(_ budget: Int) throws {
        let reports = Self.bigReport()
        let chunks = try ReportChunker(maxPayloadSize: budget, subscriptionID: 77, suppressResponseOnLast: true).chunk(reports)
        #expect(chunks.count > 1)
        for (i, c) in chunks.enumerated() {
            #expect(c.payload.count <= budget)
            #expect(c.subscriptionID == 77)
            let last = i == chunks.count - 1
            #expect(c.hasMoreChunks == !last)
            #expect(c.suppressResponse == (last ? true : nil))
        }
        var assembler = ReportAssembler()
        var result: AssembledReport?
        for c in chunks {
            // Over the wire: each chunk is encoded and decoded.
            switch try assembler.receive(try ReportDataMessage(payload: c.payload)) {
            case .sendStatusAndContinue(let s): #expect(s.status == .success)
            case .complete(let r, let reply):
                #expect(reply == nil)
                result = r
            }
        }
        let report = try #require(result)
        #expect(report.subscriptionID == 77)
        let expected: [AttributeReport] = reports.map {
            switch $0 {
            case .data(let d): return AttributeReport(path: d.path, dataVersion: d.dataVersion, outcome: .value(d.data))
            case .status(let s): return AttributeReport(path: s.path, dataVersion: nil, outcome: .status(s.status))
            }
        }
        #expect(report.attributes == expected)
    }

    @Test func smallReportIsOneMessage() throws {
        let chunks = try ReportChunker(suppressResponseOnLast: false).chunk([
            .data(AttributeDataIB(path: AttributePathIB(1, 6, 0), data: .bool(true)))])
        #expect(chunks.count == 1)
        #expect(chunks[0].moreChunkedMessages == nil)
        #expect(chunks[0].suppressResponse == nil)
        let empty = try ReportChunker(subscriptionID: 3, suppressResponseOnLast: false).chunk([])
        #expect(empty == [ReportDataMessage(subscriptionID: 3)])
    }

    @Test func anItemThatCannotFitIsAnError() {
        let huge = AttributeReportIB.data(AttributeDataIB(path: AttributePathIB(0, 0x28, 1), data: .bytes(Array(repeating: 1, count: 2000))))
        #expect(throws: InteractionError.self) { try ReportChunker(maxPayloadSize: 1180, suppressResponseOnLast: true).chunk([huge]) }
    }

    @Test func assemblerRejectsInconsistentChunks() throws {
        var a = ReportAssembler()
        _ = try a.receive(ReportDataMessage(subscriptionID: 1, moreChunkedMessages: true))
        #expect(throws: InteractionError.self) { try a.receive(ReportDataMessage(subscriptionID: 2)) }
        var b = ReportAssembler()
        #expect(throws: InteractionError.self) { try b.receive(ReportDataMessage(moreChunkedMessages: true, suppressResponse: true)) }
        var c = ReportAssembler()
        let orphanAppend = ReportDataMessage(attributeReports: [.data(AttributeDataIB(
            path: AttributePathIB(endpoint: 0, cluster: 0x1D, attribute: 1, listIndex: .append), data: .unsigned(UInt8(4))))])
        #expect(throws: InteractionError.self) { try c.receive(orphanAppend) }
    }

    @Test func tagCompressionFillsOmittedFieldsFromThePreviousPath() throws {
        var a = ReportAssembler()
        let first = AttributeDataIB(path: AttributePathIB(0, 0x28, 1), data: .utf8("A"))
        let second = AttributeDataIB(path: AttributePathIB(enableTagCompression: true, attribute: 2), data: .unsigned(UInt8(5)))
        guard case .complete(let r, _) = try a.receive(ReportDataMessage(attributeReports: [.data(first), .data(second)])) else {
            Issue.record("must complete")
            return
        }
        #expect(r.attributes[1].path == AttributePathIB(0, 0x28, 2))
    }
}

/// The subscription report scheduler: min/max interval rules with a manual clock.
@Suite struct SubscriptionSchedulerTests {
    let p = ConcreteAttributePath(1, .onOff, 0)

    @Test func keepAliveAtMaxInterval() {
        var s = SubscriptionScheduler(minIntervalSeconds: 2, maxIntervalSeconds: 10, now: 0)
        #expect(s.nextDeadline == 10_000)
        #expect(s.tick(now: 9_999) == nil)
        let action = s.tick(now: 10_000)
        #expect(action?.0 == .sendKeepAlive)
        #expect(s.tick(now: 10_001) == nil)  // in flight
        s.reportSent(now: 10_050)
        #expect(s.nextDeadline == 20_050)
    }

    @Test func changesWaitForMinInterval() {
        var s = SubscriptionScheduler(minIntervalSeconds: 2, maxIntervalSeconds: 10, now: 0)
        s.attributesChanged([p])
        #expect(s.nextDeadline == 2_000)
        #expect(s.tick(now: 1_000) == nil)
        let action = s.tick(now: 2_000)
        #expect(action?.0 == .sendDataReport)
        #expect(action?.1 == [p])
        s.reportSent(now: 2_000)
        s.attributesChanged([p])
        #expect(s.nextDeadline == 4_000)
    }

    @Test func loggedEventsAreDueLikeChangedData() {
        var s = SubscriptionScheduler(minIntervalSeconds: 2, maxIntervalSeconds: 10, now: 0)
        s.eventsLogged()
        #expect(s.nextDeadline == 2_000)
        let action = s.tick(now: 2_000)
        #expect(action?.0 == .sendDataReport && action?.1 == [])
        s.reportSent(now: 2_000)
        #expect(s.nextDeadline == 12_000)
    }

    @Test func changeAfterMinIntervalIsSentAtOnce() {
        var s = SubscriptionScheduler(minIntervalSeconds: 1, maxIntervalSeconds: 60, now: 0)
        #expect(s.tick(now: 5_000) == nil)
        s.attributesChanged([p])
        #expect(s.tick(now: 5_000)?.0 == .sendDataReport)
    }

    @Test func failedReportKeepsPathsDirty() {
        var s = SubscriptionScheduler(minIntervalSeconds: 0, maxIntervalSeconds: 5, now: 0)
        s.attributesChanged([p])
        let a = s.tick(now: 0)
        s.reportFailed(paths: a?.1 ?? [])
        #expect(s.dirty == [p])
        #expect(s.nextDeadline == 0)
    }

    @Test func maxBelowMinIsRaisedToMin() {
        let s = SubscriptionScheduler(minIntervalSeconds: 30, maxIntervalSeconds: 10, now: 0)
        #expect(s.maxInterval == 30_000)
    }
}
