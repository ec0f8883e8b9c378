import MatterInteraction
import MatterServerAPI
import MatterTLV
import Synchronization

/// The `matterhub/subscribe` calls in progress: each hears the values and events of one node at
/// one path from the node runtime's own subscription (no new subscription on the device, which
/// keeps only a few per fabric), until its connection closes.
final class ReportSubscriptions: Sendable {
    private struct Follower: Sendable {
        let connection: UInt64
        let requestID: String
        let nodeID: UInt64
        let path: HubSubscriptionPath
        let send: @Sendable (HubEvent) -> Void
        let ended: AsyncStream<Void>.Continuation
    }

    private let followers = Mutex<[Follower]>([])

    /// Sends each report for `nodeID` at `path` to `send` from now until the connection closes
    /// (``end(connection:)``), when the stream returned finishes.
    func follow(connection: UInt64, requestID: String, nodeID: UInt64, path: HubSubscriptionPath,
                send: @escaping @Sendable (HubEvent) -> Void) -> AsyncStream<Void> {
        let (ended, k) = AsyncStream.makeStream(of: Void.self)
        followers.withLock {
            $0.append(Follower(connection: connection, requestID: requestID, nodeID: nodeID, path: path, send: send, ended: k))
        }
        return ended
    }

    func end(connection: UInt64) {
        let ended = followers.withLock { f in
            defer { f.removeAll { $0.connection == connection } }
            return f.filter { $0.connection == connection }
        }
        for f in ended { f.ended.finish() }
    }

    func endAll() {
        let ended = followers.withLock { f in defer { f = [] }; return f }
        for f in ended { f.ended.finish() }
    }

    /// Values of a node that changed.
    func attributes(_ nodeID: UInt64, _ values: [ConcreteAttributePath: TLVElement]) {
        for f in followers.withLock({ $0 }) where f.nodeID == nodeID && f.path.kind == .attribute {
            let matching = Self.matching(values, f.path)
            guard !matching.isEmpty else { continue }
            f.send(.report(HubReport(requestID: f.requestID, nodeID: nodeID, attributes: matching, events: [])))
        }
    }

    /// An event a node reported.
    func event(_ nodeID: UInt64, _ event: EventDataIB) {
        guard let endpoint = event.path.endpoint, let cluster = event.path.cluster, let id = event.path.event else { return }
        for f in followers.withLock({ $0 }) where f.nodeID == nodeID && f.path.kind == .event
            && f.path.matches(endpoint: endpoint.rawValue, cluster: cluster.rawValue, id: id.rawValue) {
            let e = EventValue(endpoint: endpoint.rawValue, cluster: cluster.rawValue, event: id.rawValue,
                                    number: event.eventNumber, data: event.data)
            f.send(.report(HubReport(requestID: f.requestID, nodeID: nodeID, attributes: [], events: [e])))
        }
    }

    static func matching(_ values: [ConcreteAttributePath: TLVElement], _ path: HubSubscriptionPath) -> [AttributeValue] {
        values.sorted { $0.key < $1.key }.compactMap { p, v in
            path.matches(endpoint: p.endpoint.rawValue, cluster: p.cluster.rawValue, id: p.attribute.rawValue)
                ? AttributeValue(endpoint: p.endpoint.rawValue, cluster: p.cluster.rawValue, attribute: p.attribute.rawValue, value: v)
                : nil
        }
    }
}
