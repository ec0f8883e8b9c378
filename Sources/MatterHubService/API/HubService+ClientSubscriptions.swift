import FoundationEssentials
import MatterCertificates
import MatterClusters
import MatterHome
import MatterInteraction
import MatterMessaging
import MatterServerAPI
import MatterTLV
import Synchronization

/// The subscriptions clients open themselves (schema 14's `subscribe`), each owned by the
/// WebSocket connection that opened it: its reports go to that connection alone, it ends with
/// `unsubscribe`, with the connection, or when the node's session goes (`subscription_ended`).
/// A subscription whose reports stop for longer than its max interval plus a margin has died
/// on the device side and is ended too.
struct ClientSubscriptions: Sendable {
    struct Key: Hashable, Sendable {
        var node: NodeID
        var subscriptionID: UInt32
    }
    struct Entry: Sendable {
        var connection: UInt64
        var maxInterval: UInt16
        var lastHeard: ContinuousClock.Instant
    }
    private(set) var entries: [Key: Entry] = [:]
    /// `subscribe` calls under way per connection, and the connections that closed meanwhile.
    private var inFlight: [UInt64: Int] = [:]
    private var closedInFlight: Set<UInt64> = []

    /// Added to a subscription's max interval before it counts as dead (as the hub's own).
    static let lapseMargin: Duration = .seconds(5)

    mutating func add(_ key: Key, connection: UInt64, maxInterval: UInt16, now: ContinuousClock.Instant) {
        entries[key] = Entry(connection: connection, maxInterval: maxInterval, lastHeard: now)
    }

    /// The owner of a subscription that reported, nil when none is known.
    mutating func heard(_ key: Key, now: ContinuousClock.Instant) -> UInt64? {
        entries[key]?.lastHeard = now
        return entries[key]?.connection
    }

    mutating func remove(_ key: Key) -> Entry? { entries.removeValue(forKey: key) }

    mutating func setMaxInterval(_ key: Key, _ seconds: UInt16) { entries[key]?.maxInterval = seconds }

    mutating func begin(_ connection: UInt64) { inFlight[connection, default: 0] += 1 }

    mutating func finish(_ connection: UInt64) {
        guard let n = inFlight[connection] else { return }
        if n > 1 { inFlight[connection] = n - 1 } else {
            inFlight[connection] = nil
            closedInFlight.remove(connection)
        }
    }

    /// A connection closed: a `subscribe` it has under way must not leave a subscription behind.
    mutating func closed(_ connection: UInt64) {
        if inFlight[connection] != nil { closedInFlight.insert(connection) }
    }

    func isClosed(_ connection: UInt64) -> Bool { closedInFlight.contains(connection) }

    /// The subscriptions of a connection (they end with it).
    func owned(by connection: UInt64) -> [Key] { entries.filter { $0.value.connection == connection }.map(\.key) }

    func of(_ node: NodeID) -> [Key] { entries.keys.filter { $0.node == node } }

    /// The subscriptions silent past their max interval plus the margin.
    func lapsed(now: ContinuousClock.Instant) -> [Key] {
        entries.filter { now - $0.value.lastHeard > .seconds(Int($0.value.maxInterval)) + Self.lapseMargin }.map(\.key)
    }
}

extension HubService {
    /// `subscribe`: for the asking connection, on the node's session, only on a hub run with
    /// `--no-auto-subscription` and while its own subscription to the node is off (the device
    /// would end one for the other). Answers the priming report (`read`'s shape) with the
    /// subscription ID. The subscription is known to the runtime and the registry as soon as
    /// its priming report is in, before the device may send another.
    func subscribe(_ a: SubscribeArguments, connection: UInt64) async throws(APIError) -> JSONValue {
        let id = NodeID(a.nodeID)
        try requireClientSubscriptionMode("subscribe")
        guard await !runtime.autoSubscription(of: id) else {
            throw APIError(.invalidArguments, """
                subscribe: the hub's own subscription to node \(a.nodeID) is on (enable_auto_subscription); \
                send disable_auto_subscription for the node first
                """)
        }
        try await requireReadyNode(id)
        let session: SessionHandle
        var client: InteractionClient
        do {
            session = try await hub.session(for: id)
            client = InteractionClient.over(try await hub.messaging(), session: session, timeout: .seconds(10))
        } catch {
            throw APIError(.nodeNotResolving, "cannot open a session with node \(id.rawValue): \(error.description)")
        }
        client.isFabricFiltered = a.paths.fabricFiltered
        let runtime = self.runtime
        clientSubscriptions.withLock { $0.begin(connection) }
        defer { clientSubscriptions.withLock { $0.finish(connection) } }
        let primedID = Mutex<UInt32?>(nil)
        let subscription: ClientSubscription
        do {
            subscription = try await client.subscribe(
                paths: a.paths.attributes.map(\.ib), events: a.paths.events.isEmpty ? nil : a.paths.events.map(\.ib),
                eventMin: a.paths.eventMin, minIntervalFloor: a.minInterval, maxIntervalCeiling: a.maxInterval,
                keepSubscriptions: a.keepSubscriptions,
                dataVersionFilters: a.paths.dataVersionFilters.isEmpty ? nil : a.paths.dataVersionFilters.map {
                    DataVersionFilterIB(path: ClusterPathIB(endpoint: EndpointID($0.endpoint), cluster: ClusterID($0.cluster)), dataVersion: $0.dataVersion)
                },
                primed: { sid in
                    primedID.withLock { $0 = sid }
                    _ = await runtime.addClientSubscription(id, sid, on: session)
                    self.clientSubscriptions.withLock { $0.add(ClientSubscriptions.Key(node: id, subscriptionID: sid), connection: connection,
                                               maxInterval: a.maxInterval, now: .now) }
                })
        } catch {
            if let sid = primedID.withLock({ $0 }) { await dropClientSubscription(ClientSubscriptions.Key(node: id, subscriptionID: sid)) }
            throw APIError.device(error, "subscribing to node \(a.nodeID)")
        }
        let key = ClientSubscriptions.Key(node: id, subscriptionID: subscription.subscriptionID)
        // KeepSubscriptions false: the device ended this hub's other subscriptions to the node.
        let (ended, gone) = clientSubscriptions.withLock { s -> ([(ClientSubscriptions.Key, UInt64)], Bool) in
            let others = a.keepSubscriptions ? [] : s.of(id).filter { $0 != key }.compactMap { k in s.entries[k].map { (k, $0.connection) } }
            for (k, _) in others { _ = s.remove(k) }
            s.setMaxInterval(key, subscription.maxInterval)
            return (others, s.isClosed(connection))
        }
        for (k, owner) in ended {
            await runtime.removeClientSubscription(k.node, k.subscriptionID)
            publish(.subscriptionEnded(connection: owner, nodeID: k.node.rawValue, subscriptionID: k.subscriptionID))
        }
        guard await runtime.isClientSubscription(id, subscription.subscriptionID), !gone else {
            // The node's session went, or the connection closed, while it was set up.
            await dropClientSubscription(key)
            throw APIError(.nodeNotReady, "subscribe: node \(a.nodeID)'s subscription ended while it was set up; subscribe again")
        }
        startClientSubscriptionWatch()
        var result = Self.interactionReport(subscription.primingReport, of: id)
        result.append("subscription_id", .integer(subscription.subscriptionID))
        return .object(result)
    }

    /// Schema 14's subscription commands answer only on a hub run with `--no-auto-subscription`
    /// (matter-python-client: "only available when the server runs with auto subscription
    /// disabled"): elsewhere a second client could switch off the subscription Home Assistant's
    /// values come from.
    func requireClientSubscriptionMode(_ command: String) throws(APIError) {
        guard runtime.autoSubscribes else { return }
        throw APIError(.invalidArguments, """
            \(command) is only available when the hub runs with auto subscription disabled \
            ('matterctl hub serve --no-auto-subscription'); this hub keeps its own subscription to every node
            """)
    }

    /// Forgets a client subscription here and in the runtime (no event: its owner is told otherwise).
    private func dropClientSubscription(_ key: ClientSubscriptions.Key) async {
        _ = clientSubscriptions.withLock { $0.remove(key) }
        await runtime.removeClientSubscription(key.node, key.subscriptionID)
    }

    /// `unsubscribe`: the connection's own subscription; the device's next report for it is
    /// refused, which ends it there.
    func unsubscribe(node: UInt64, subscriptionID: UInt32, connection: UInt64) async throws(APIError) -> JSONValue {
        try requireClientSubscriptionMode("unsubscribe")
        let key = ClientSubscriptions.Key(node: NodeID(node), subscriptionID: subscriptionID)
        let removed = clientSubscriptions.withLock { s -> Bool in
            guard s.entries[key]?.connection == connection else { return false }
            return s.remove(key) != nil
        }
        guard removed else {
            throw APIError(.invalidArguments, "unsubscribe: this connection has no subscription \(subscriptionID) to node \(node)")
        }
        await runtime.removeClientSubscription(key.node, subscriptionID)
        return .null
    }

    /// `enable_auto_subscription` / `disable_auto_subscription`: the hub's own subscription to
    /// the node, until the hub restarts. Enabling returns once it is active and ends the
    /// subscriptions clients opened to the node.
    func setAutoSubscription(_ id: NodeID, on: Bool) async throws(APIError) -> JSONValue {
        try requireClientSubscriptionMode(on ? "enable_auto_subscription" : "disable_auto_subscription")
        guard (try? hub.store.node(id)) != nil else { throw APIError(.nodeNotExists, "Node \(id.rawValue) does not exist") }
        await runtime.setAutoSubscription(id, on)
        if on, !(await runtime.waitUntilSubscribed(id, timeout: .seconds(30))) {
            throw APIError(.nodeNotReady, "enable_auto_subscription: node \(id.rawValue) did not accept the hub's subscription within 30 s; the hub keeps trying")
        }
        return .null
    }

    /// The runtime's word on client subscriptions: reports to their owners, ends to theirs.
    func forwardClientSubscription(_ update: NodeUpdate) {
        switch update {
        case .subscriptionReport(let node, let sid, let report):
            let key = ClientSubscriptions.Key(node: node, subscriptionID: sid)
            guard let owner = clientSubscriptions.withLock({ $0.heard(key, now: .now) }) else { return }
            var data = Self.interactionReport(report, of: node)
            data.append("node_id", .integer(node.rawValue))
            data.append("subscription_id", .integer(sid))
            publish(.subscriptionReport(connection: owner, nodeID: node.rawValue, report: .object(data)))
        case .subscriptionsEnded(let node, let ids):
            for sid in ids {
                let key = ClientSubscriptions.Key(node: node, subscriptionID: sid)
                guard let entry = clientSubscriptions.withLock({ $0.remove(key) }) else { continue }
                publish(.subscriptionEnded(connection: entry.connection, nodeID: node.rawValue, subscriptionID: sid))
            }
        default: break
        }
    }

    /// A closed connection's subscriptions end with it (no event: nobody is there to hear it);
    /// one it is still setting up ends when that returns.
    func endClientSubscriptions(of connection: UInt64) async {
        let keys = clientSubscriptions.withLock { s -> [ClientSubscriptions.Key] in
            s.closed(connection)
            let owned = s.owned(by: connection)
            for k in owned { _ = s.remove(k) }
            return owned
        }
        for k in keys { await runtime.removeClientSubscription(k.node, k.subscriptionID) }
    }

    /// Every few seconds while client subscriptions exist: those silent past their max interval
    /// plus the margin died on the device side and are ended (`subscription_ended`).
    func startClientSubscriptionWatch() {
        let start = clientSubscriptionWatch.withLock { running -> Bool in
            defer { running = true }
            return !running
        }
        guard start else { return }
        Task { [weak self] in
            while let self {
                try? await Task.sleep(for: .seconds(2))
                let lapsed = self.clientSubscriptions.withLock { s -> [(ClientSubscriptions.Key, UInt64)] in
                    s.lapsed(now: .now).compactMap { k in s.remove(k).map { (k, $0.connection) } }
                }
                for (k, owner) in lapsed {
                    await self.runtime.removeClientSubscription(k.node, k.subscriptionID)
                    self.logger("hub: node \(k.node.rawValue)'s subscription \(k.subscriptionID) went silent; ended")
                    self.publish(.subscriptionEnded(connection: owner, nodeID: k.node.rawValue, subscriptionID: k.subscriptionID))
                }
                let done = self.clientSubscriptionWatch.withLock { running -> Bool in
                    if self.clientSubscriptions.withLock({ $0.entries.isEmpty }) { running = false }
                    return !running
                }
                if done { return }
            }
        }
    }
}
