import MatterClusters
import MatterInteraction
import MatterTLV
import Testing
import TestSupport

/// InteractionClient against InteractionServer in one process, through LoopbackExchange.
@Suite struct ClientServerTests {
    let device = TestDevice()
    let clock = ManualClock()
    let server: InteractionServer
    let client: InteractionClient
    let context = IMSessionContext(fabricIndex: 1, peerNodeID: 0x1B669, authMode: .case)

    init() {
        server = InteractionServer(dataModel: Fixtures.dataModel, device: device, maxPayloadSize: 400)
        let (server, context, clock) = (server, context, clock)
        client = InteractionClient(exchangeFactory: { LoopbackExchange(server: server, context: context, clock: clock.reader) })
    }

    @Test func readConcreteAndWildcardPathsWithStatuses() async throws {
        let reports = try await client.read(paths: [
            AttributePathIB(0, .basicInformation, Clusters.BasicInformation.Attribute.vendorName),
            AttributePathIB(endpoint: nil, cluster: .onOff, attribute: 0),
            AttributePathIB(0, .basicInformation, 0x77),
        ])
        #expect(reports.count == 3)
        #expect(try reports[0].value() == .utf8("Acme"))
        #expect(reports[0].dataVersion == 1)
        #expect(reports[1].path == AttributePathIB(1, .onOff, 0))
        #expect(try reports[1].value() == .bool(false))
        #expect(throws: InteractionError.status(.unsupportedAttribute, clusterStatus: nil,
                                                path: .attribute(AttributePathIB(0, .basicInformation, 0x77)))) {
            try reports[2].value()
        }
        #expect(try await client.readAttribute(ConcreteAttributePath(0, .basicInformation, 0x0F)) == .utf8("SN-1"))
    }

    @Test func largeReadIsChunkedAndReassembled() async throws {
        // A 100-item list does not fit the server's 400-byte budget.
        let list = TLVElement.array((0..<100).map { .unsigned(UInt32(0x1000 + $0)) })
        await device.set(ConcreteAttributePath(1, .descriptor, 3), list)
        let reports = try await client.read(paths: [AttributePathIB(endpoint: 1, cluster: nil, attribute: nil)])
        let parts = try #require(reports.first { $0.path == AttributePathIB(1, .descriptor, 3) })
        #expect(try parts.value() == list)
        #expect(reports.count == Fixtures.dataModel.endpoints[1]!.clusters.values.reduce(0) { $0 + $1.attributes.count })
    }

    @Test func dataVersionFilterSkipsUnchangedCluster() async throws {
        let filter = DataVersionFilterIB(path: ClusterPathIB(endpoint: 0, cluster: .basicInformation), dataVersion: 1)
        let reports = try await client.read(paths: [AttributePathIB(endpoint: 0, cluster: .basicInformation, attribute: nil)],
                                            dataVersionFilters: [filter])
        #expect(reports.isEmpty)
    }

    @Test func readWithNoPathsIsInvalidAction() async throws {
        await #expect(throws: InteractionError.status(.invalidAction, clusterStatus: nil, path: nil)) {
            _ = try await client.read(paths: [])
        }
    }

    @Test func writeReportsPerPathStatuses() async throws {
        let label = ConcreteAttributePath(0, .basicInformation, Clusters.BasicInformation.Attribute.nodeLabel)
        let statuses = try await client.write([
            AttributeDataIB(path: label.ib, data: .utf8("Kitchen")),
            AttributeDataIB(path: AttributePathIB(0, .basicInformation, 1), data: .utf8("x")),
            AttributeDataIB(path: label.ib, data: .utf8(String(repeating: "y", count: 40))),
            AttributeDataIB(dataVersion: 99, path: label.ib, data: .utf8("z")),
        ])
        #expect(statuses.map(\.status.status) == [.success, .unsupportedWrite, .constraintError, .dataVersionMismatch])
        #expect(await device.value(label) == .utf8("Kitchen"))
        try await client.writeAttribute(label, value: .utf8("Hall"))
        #expect(await device.value(label) == .utf8("Hall"))
        await #expect(throws: InteractionError.self) {
            try await client.writeAttribute(ConcreteAttributePath(0, .basicInformation, 1), value: .utf8("x"))
        }
    }

    @Test func timedWrite() async throws {
        let onOff = ConcreteAttributePath(1, .onOff, 0)
        let statuses = try await client.write([AttributeDataIB(path: onOff.ib, data: .bool(true))])
        #expect(statuses.map(\.status.status) == [.needsTimedInteraction])
        try await client.writeAttribute(onOff, value: .bool(true), timedTimeout: 1_000)
        #expect(await device.value(onOff) == .bool(true))
    }

    @Test func invokeSeveralCommandsInOneRequest() async throws {
        let arm = Clusters.GeneralCommissioning.ArmFailSafe(expiryLengthSeconds: 60, breadcrumb: 7)
        let results = try await client.invoke([
            CommandDataIB(path: CommandPathIB(1, .onOff, Clusters.OnOff.Command.toggle)),
            CommandDataIB(path: CommandPathIB(0, .generalCommissioning, Clusters.GeneralCommissioning.Command.armFailSafe), fields: arm.fields),
            CommandDataIB(path: CommandPathIB(1, .onOff, 0x33)),
            CommandDataIB(path: CommandPathIB(0, .generalCommissioning, Clusters.GeneralCommissioning.Command.commissioningComplete)),
        ])
        #expect(results.count == 4)
        #expect(results[0] == .status(.success))
        guard case .response(let response) = results[1] else {
            Issue.record("ArmFailSafe must answer with ArmFailSafeResponse")
            return
        }
        #expect(response.path.command == Clusters.GeneralCommissioning.Command.armFailSafeResponse)
        #expect(try Clusters.GeneralCommissioning.ArmFailSafeResponse(element: response.fields!).errorCode == .ok)
        #expect(results[2] == .status(StatusIB(.unsupportedCommand)))
        #expect(results[3] == .status(StatusIB(.failure, clusterStatus: 9)))
        #expect(await device.value(ConcreteAttributePath(1, .onOff, 0)) == .bool(true))
        #expect(await device.value(ConcreteAttributePath(0, .generalCommissioning, 0)) == .unsigned(UInt64(7)))
    }

    @Test func typedInvoke() async throws {
        let response = try await client.invoke(Clusters.GeneralCommissioning.ArmFailSafe(expiryLengthSeconds: 60, breadcrumb: 1), endpoint: 0)
        #expect(response.errorCode == .ok)
        // A typed command the spec marks as timed is sent as a timed invoke automatically.
        _ = try await client.invoke(Clusters.AdministratorCommissioning.RevokeCommissioning(), endpoint: 0)
    }

    @Test func timedInvokeRequired() async throws {
        let path = CommandPathIB(0, .administratorCommissioning, Clusters.AdministratorCommissioning.Command.revokeCommissioning)
        #expect(try await client.invoke(commandPath: path) == .status(StatusIB(.needsTimedInteraction)))
        #expect(try await client.invoke(commandPath: path, timedTimeout: 500) == .status(.success))
    }

    @Test func timedRequestMismatchAndTimeout() async throws {
        let toggle = InvokeRequestMessage(timedRequest: true, invokeRequests: [CommandDataIB(path: CommandPathIB(1, .onOff, 2))])
        // TimedRequest=true without a TimedRequest first.
        let lone = LoopbackExchange(server: server, context: context, clock: clock.reader)
        let reply = try await lone.request(.invokeRequest, toggle.payload)
        #expect(try StatusResponseMessage(payload: reply.payload).status == .timedRequestMismatch)
        // A TimedRequest followed by an action without the flag.
        let second = LoopbackExchange(server: server, context: context, clock: clock.reader)
        _ = try await second.request(.timedRequest, TimedRequestMessage(timeout: 100).payload)
        var untimed = toggle
        untimed.timedRequest = false
        let mismatch = try await second.request(.invokeRequest, untimed.payload)
        #expect(try StatusResponseMessage(payload: mismatch.payload).status == .timedRequestMismatch)
        // The window closes: the action arrives too late.
        let third = LoopbackExchange(server: server, context: context, clock: clock.reader)
        let ok = try await third.request(.timedRequest, TimedRequestMessage(timeout: 100).payload)
        #expect(try StatusResponseMessage(payload: ok.payload).status == .success)
        clock.advance(101)
        let late = try await third.request(.invokeRequest, toggle.payload)
        #expect(try StatusResponseMessage(payload: late.payload).status == .timeout)
        #expect(await device.invoked.isEmpty)
    }

    @Test func severalCommandsWithoutCommandRefAreInvalid() async throws {
        let exchange = LoopbackExchange(server: server, context: context, clock: clock.reader)
        let request = InvokeRequestMessage(invokeRequests: [CommandDataIB(path: CommandPathIB(1, .onOff, 0)),
                                                            CommandDataIB(path: CommandPathIB(1, .onOff, 1))])
        let reply = try await exchange.request(.invokeRequest, request.payload)
        #expect(try StatusResponseMessage(payload: reply.payload).status == .invalidAction)
    }

    @Test func subscribeThenReportsFollowTheSchedule() async throws {
        let onOff = ConcreteAttributePath(1, .onOff, 0)
        let sub = try await client.subscribe(paths: [AttributePathIB(endpoint: nil, cluster: .onOff, attribute: 0),
                                                     AttributePathIB(0, .basicInformation, 1)],
                                             minIntervalFloor: 2, maxIntervalCeiling: 30)
        #expect(sub.maxInterval == 30)
        #expect(sub.primingReport.attributes.map(\.path) == [onOff.ib, AttributePathIB(0, .basicInformation, 1)])
        #expect(await server.activeSubscriptionIDs == [sub.subscriptionID])

        // The server's exchange to the subscriber ends in this receiver.
        let subscriber = SubscriberSide(receiver: SubscriptionReportReceiver(knownSubscriptions: [sub.subscriptionID]))
        let start = clock.value
        #expect(await server.nextReportDeadline == start + 30_000)

        // A change inside the min interval waits for it.
        await device.set(onOff, .bool(true))
        await server.attributesChanged([onOff, ConcreteAttributePath(0, .basicInformation, 5)])
        #expect(await server.nextReportDeadline == start + 2_000)
        #expect(await server.dueReports(now: start + 1_999).isEmpty)
        let due = await server.dueReports(now: start + 2_000)
        #expect(due.count == 1)
        #expect(due[0].paths == [onOff])
        try await server.deliver(due[0], on: subscriber, now: start + 2_000)
        let report = try #require(await subscriber.reports.last)
        #expect(report.subscriptionID == sub.subscriptionID)
        #expect(report.attributes.map(\.path) == [onOff.ib])
        #expect(try report.attributes[0].value() == .bool(true))

        // Nothing changes: a keep-alive at the max interval.
        #expect(await server.nextReportDeadline == start + 32_000)
        let keepAlive = await server.dueReports(now: start + 32_000)
        #expect(keepAlive.first?.paths == [])
        try await server.deliver(keepAlive[0], on: subscriber, now: start + 32_000)
        #expect(await subscriber.reports.last?.attributes.isEmpty == true)

        // The subscriber forgot the subscription: it answers InvalidSubscription and it ends.
        await subscriber.forget(sub.subscriptionID)
        let next = await server.dueReports(now: start + 62_000)
        await #expect(throws: InteractionError.status(.invalidSubscription, clusterStatus: nil, path: nil)) {
            try await server.deliver(next[0], on: subscriber, now: start + 62_000)
        }
        #expect(await server.activeSubscriptionIDs.isEmpty)
    }

    /// Events: the priming report carries the logged ones the paths select (from `eventMin` on),
    /// a later event is reported on its own once the min interval allows, and each only once.
    @Test func subscribedEventsArriveOnceEach() async throws {
        let startUp = await server.emitEvent(endpoint: 0, cluster: .basicInformation, event: 0, priority: 2,
                                             epochTimestampMs: 1_000, data: .structure([.unsigned(.context(0), UInt32(1))]))
        let sub = try await client.subscribe(paths: [AttributePathIB(1, .onOff, 0)], events: [EventPathIB()],
                                             minIntervalFloor: 1, maxIntervalCeiling: 30)
        let primed = sub.primingReport.events.compactMap { e -> EventDataIB? in if case .data(let d) = e { d } else { nil } }
        #expect(primed.map(\.eventNumber) == [startUp])
        #expect(primed.first?.path == EventPathIB(endpoint: 0, cluster: .basicInformation, event: 0))
        #expect(primed.first?.data == .structure([.unsigned(.context(0), UInt32(1))]))

        let subscriber = SubscriberSide(receiver: SubscriptionReportReceiver(knownSubscriptions: [sub.subscriptionID]))
        let start = clock.value
        let shutDown = await server.emitEvent(endpoint: 0, cluster: .basicInformation, event: 1, priority: 2, epochTimestampMs: 2_000)
        #expect(await server.nextReportDeadline == start + 1_000)
        let due = await server.dueReports(now: start + 1_000)
        try await server.deliver(try #require(due.first), on: subscriber, now: start + 1_000)
        let report = try #require(await subscriber.reports.last)
        #expect(report.attributes.isEmpty)
        guard case .data(let reported)? = report.events.first, report.events.count == 1 else {
            Issue.record("not one event: \(report.events)")
            return
        }
        #expect(reported.path == EventPathIB(endpoint: 0, cluster: .basicInformation, event: 1) && reported.eventNumber == shutDown)
        // The keep-alive that follows repeats nothing.
        let keepAlive = await server.dueReports(now: start + 31_000)
        try await server.deliver(try #require(keepAlive.first), on: subscriber, now: start + 31_000)
        #expect(await subscriber.reports.last?.events.isEmpty == true)

        // A resubscription from a known event number on gets only what is newer.
        let again = try await client.subscribe(paths: [AttributePathIB(1, .onOff, 0)], events: [EventPathIB()],
                                               eventMin: shutDown, minIntervalFloor: 1, maxIntervalCeiling: 30)
        #expect(again.primingReport.events.count == 1)
    }

    /// A concrete event path the data model lacks gets a status; one it has, its events.
    @Test func readEventsWithStatuses() async throws {
        let missing = EventPathIB(endpoint: 0, cluster: .basicInformation, event: 0x77)
        let reports = try await client.subscribe(paths: [AttributePathIB(1, .onOff, 0)], events: [missing],
                                                 minIntervalFloor: 0, maxIntervalCeiling: 5).primingReport.events
        guard case .status(let status)? = reports.first else { Issue.record("no status in \(reports)"); return }
        #expect(status.path == missing && status.status == StatusIB(.unsupportedEvent))
    }

    @Test func subscribeWithFloorAboveCeilingIsInvalid() async throws {
        await #expect(throws: InteractionError.status(.invalidAction, clusterStatus: nil, path: nil)) {
            _ = try await client.subscribe(paths: [AttributePathIB(1, .onOff, 0)], minIntervalFloor: 10, maxIntervalCeiling: 5)
        }
    }
}

/// The subscriber end of a server-initiated exchange.
actor SubscriberSide: IMExchange {
    var receiver: SubscriptionReportReceiver
    var reports: [AssembledReport] = []

    init(receiver: SubscriptionReportReceiver) { self.receiver = receiver }

    func forget(_ id: UInt32) { receiver.remove(id) }

    func request(_ opcode: IMOpcode, _ payload: [UInt8]) async throws(InteractionError) -> IMFrame {
        let (reply, report) = receiver.receive(IMFrame(opcode, payload))
        if let report { reports.append(report) }
        guard let reply else { throw InteractionError.exchangeFailed(ExchangeFailure(.closed, "no reply")) }
        return reply
    }

    func send(_ opcode: IMOpcode, _ payload: [UInt8]) async throws(InteractionError) {
        _ = receiver.receive(IMFrame(opcode, payload))
    }
}
