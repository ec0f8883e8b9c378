import MatterInteraction
import MatterInteractionMessaging
import MatterMessaging
import MatterServerAPI
import MatterTLV

/// One report of a subscription: the values that changed and the events that happened (the
/// first report: every current value at the path).
public struct SubscriptionReport: Hashable, Sendable {
    public var attributes: [AttributeValue]
    public var events: [EventValue]

    public init(attributes: [AttributeValue], events: [EventValue]) {
        self.attributes = attributes
        self.events = events
    }

    init(_ report: AssembledReport) {
        attributes = report.attributes.compactMap { r in
            guard case .value(let v) = r.outcome, let p = r.path.concrete else { return nil }
            return AttributeValue(endpoint: p.endpoint.rawValue, cluster: p.cluster.rawValue, attribute: p.attribute.rawValue, value: v)
        }.sorted()
        events = report.events.compactMap { r in
            guard case .data(let e) = r, let endpoint = e.path.endpoint, let cluster = e.path.cluster, let id = e.path.event else { return nil }
            return EventValue(endpoint: endpoint.rawValue, cluster: cluster.rawValue, event: id.rawValue, number: e.eventNumber, data: e.data)
        }
    }

    init(_ report: HubReport) {
        attributes = report.attributes
        events = report.events
    }
}

/// The embedded side of `Device.subscribe`: a subscription of this process's own on the device,
/// its reports received on the exchanges the device opens (Matter Core 8.5.2), and a lapse
/// when none arrives within the negotiated max interval plus a grace.
actor EmbeddedSubscription {
    private var receiver = SubscriptionReportReceiver(knownSubscriptions: [])
    private var pending: [(Exchange, ReceivedMessage)] = []
    private var started = false
    private let continuation: AsyncThrowingStream<SubscriptionReport, any Error>.Continuation
    private var lastReport = ContinuousClock.now

    init(_ continuation: AsyncThrowingStream<SubscriptionReport, any Error>.Continuation) {
        self.continuation = continuation
    }

    /// Reports that arrive before the subscription ID is known wait for it.
    func start(_ subscription: ClientSubscription) async {
        receiver.add(subscription.subscriptionID)
        started = true
        lastReport = .now
        continuation.yield(SubscriptionReport(subscription.primingReport))
        for (exchange, first) in pending { await receive(on: exchange, first: first) }
        pending = []
    }

    func receive(on exchange: Exchange, first: ReceivedMessage) async {
        guard started else { return pending.append((exchange, first)) }
        var message = first
        while true {
            let (reply, report) = receiver.receive(IMFrame(IMOpcode(rawValue: message.opcode), message.payload))
            if let reply { try? await exchange.send(.interactionModel, opcode: reply.opcode.rawValue, payload: reply.payload) }
            if let report {
                lastReport = .now
                let r = SubscriptionReport(report)
                if !r.attributes.isEmpty || !r.events.isEmpty { continuation.yield(r) }
                break
            }
            guard reply?.opcode == .statusResponse, let next = try? await exchange.receive(timeout: .seconds(10)) else { break }
            message = next
        }
        await exchange.close()
    }

    /// Seconds since the last report (keep-alives count).
    var silence: Duration { .now - lastReport }
}

extension EmbeddedBackend {
    func subscribe(_ node: NodeRecord, _ path: HubSubscriptionPath, minInterval: UInt16,
                   maxInterval: UInt16) -> AsyncThrowingStream<SubscriptionReport, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: SubscriptionReport.self, throwing: (any Error).self)
        let hub = self.hub
        let task = Task {
            do throws(HomeError) {
                let manager = try await hub.messaging()
                let client = try await hub.client(for: node.nodeID)
                let subscription = EmbeddedSubscription(continuation)
                await manager.setHandler(for: .interactionModel) { exchange, first in
                    await subscription.receive(on: exchange, first: first)
                }
                let endpoint = path.endpoint.map { EndpointID($0) }, cluster = path.cluster.map { ClusterID($0) }
                let subscribed: ClientSubscription
                do {
                    subscribed = switch path.kind {
                    case .attribute:
                        try await client.subscribe(paths: [AttributePathIB(endpoint: endpoint, cluster: cluster,
                                                                           attribute: path.id.map { AttributeID($0) })],
                                                   minIntervalFloor: minInterval, maxIntervalCeiling: maxInterval)
                    case .event:
                        try await client.subscribe(paths: [], events: [EventPathIB(endpoint: endpoint, cluster: cluster,
                                                                                   event: path.id.map { EventID($0) })],
                                                   minIntervalFloor: minInterval, maxIntervalCeiling: maxInterval)
                    }
                } catch {
                    throw HomeError(Self.code(of: error), "subscribing to \(node.name) failed: \(error)", underlying: error)
                }
                await subscription.start(subscribed)
                // The device promised a report at least every maxInterval seconds.
                let grace = Duration.seconds(Int64(subscribed.maxInterval) + 10)
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    if await subscription.silence > grace {
                        throw HomeError(.deviceUnreachable, "\(node.name) sent no report in \(grace) (its max interval is "
                                        + "\(subscribed.maxInterval) s): the subscription lapsed")
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
