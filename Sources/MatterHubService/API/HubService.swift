import FoundationEssentials
import MatterCertificates
import MatterCommissioning
import MatterHome
import MatterInteraction
import MatterMessaging
import MatterOTA
import MatterPlatform
import MatterServerAPI
import Synchronization
import MatterTLV

/// The hub behind the Matter Server API: the store and fabric (`Hub`), the node runtime, and
/// the answers to every command. It turns the runtime's updates into the API's events
/// (`attribute_updated`, `node_updated`) and never lets a device's silence block a client: every
/// device interaction is bounded.
public final class HubService: HubBackend, Sendable {
    public let hub: Hub
    public let home: Home
    public let runtime: NodeRuntime
    let options: CommissioningOptions
    let onCommissioningStep: @Sendable (StepTiming) -> Void
    let sdkVersion: String
    /// Where events go (the API server); set once it exists.
    private let sink = SettableCallback<ServerEvent>()
    /// One line per notable event (stderr under `hub serve`); set by `start`.
    let logger: SettableCallback<String>
    private let state: Mutex<State>
    /// Tells the runtime when a node announces itself on `_matter._tcp` (restarted, moved).
    let advertWatch: OperationalAdvertWatch
    /// The Thread border agents on the network, kept for `get_thread_border_routers`.
    let borderRouters: BorderRouterRegistry
    /// The extension commands' sessions, event sink and server details.
    let extensionState = ExtensionState()
    /// `matterhub/subscribe` calls following nodes' reports.
    let reportSubscriptions = ReportSubscriptions()
    /// Rebuilds the network graph when it may have changed, for `network_topology_updated`.
    let topologyWatch = TopologyWatch()
    /// The background refresh of `get_thread_diagnostics` (one at a time, throttled).
    let threadDiagnosticsRefresh = Mutex(RefreshThrottle())
    /// The hub's own node on its fabric (CASE responder, endpoint-0 clusters, operational advert).
    let node: HubNode
    /// The hub's Check-In registrations with sleepy nodes, and the check of their Check-Ins.
    let icdCheckIns: ICDCheckIns
    /// `get_loglevel`/`set_loglevel`: the hub's lines are `info`; a console level above it
    /// silences them.
    let logLevels = LogLevels()
    /// Schema 14's subscriptions clients opened, by node and subscription ID, with their owner.
    let clientSubscriptions = Mutex(ClientSubscriptions())
    /// Whether the watch that ends silent client subscriptions runs.
    let clientSubscriptionWatch = Mutex(false)

    struct State {
        var info: ServerInfo
        var fabricLabel: String?
        var lastInterview: [NodeID: Date] = [:]
        /// The last 25 node events, for `diagnostics`.
        var recentEvents: [MatterNodeEvent] = []
        /// Nodes being commissioned or interviewed: their updates wait for node_added.
        var announcing: Set<NodeID> = []
        /// Nodes whose last availability update, in the runtime's order, said available.
        var availableInUpdates: Set<NodeID> = []
        /// Nodes removed while the hub runs: no event about them follows node_removed.
        var removed: Set<NodeID> = []
        /// set_wifi_credentials and set_thread_dataset together (each is an fsync).
        var credentialWrites = WriteRateLimit()
        /// stop() has begun: what fails from now on fails because the hub stops.
        var stopping = false
        /// Where firmware comes from besides the hub's images, and until when it is not asked
        /// (it could not be reached).
        var firmwareDCL: FirmwareDCL?
        var firmwareDCLQuietUntil: ContinuousClock.Instant?
    }

    /// The DCL asked for firmware besides the hub's images (nil: the hub's images only).
    public func setFirmwareDCL(_ dcl: FirmwareDCL?) {
        state.withLock { $0.firmwareDCL = dcl; $0.firmwareDCLQuietUntil = nil }
    }

    /// The DCL to ask now: none while it is left alone after a failure to reach it.
    var firmwareDCLToAsk: FirmwareDCL? {
        let now = ContinuousClock.now
        return state.withLock { s in s.firmwareDCLQuietUntil.map { now < $0 } == true ? nil : s.firmwareDCL }
    }

    var firmwareDCL: FirmwareDCL? { state.withLock { $0.firmwareDCL } }

    /// The DCL could not be reached: leave it alone for a while.
    func quietFirmwareDCL() {
        state.withLock { $0.firmwareDCLQuietUntil = .now + FirmwareDCL.unreachableBackoff }
    }

    /// The hub is stopping (a failure now is the stop's, not the device's).
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Refuses a network credential write beyond the rate limit, saying when to try again.
    func takeCredentialWrite(_ command: String) throws(APIError) {
        guard let wait = state.withLock({ $0.credentialWrites.take() }) else { return }
        let ms = Int(wait / .milliseconds(1)) + 1
        throw APIError(.unknownError, """
            \(command): too many network credential changes; the hub stores at most one a second after a burst \
            of \(WriteRateLimit().burst). Try again in \(ms) ms.
            """)
    }

    /// Opens the hub's store and fabric (created on first use) and reconciles what a crash left
    /// pending. `runtime` keeps the nodes live once `start()` is called.
    public init(hub: Hub, options: CommissioningOptions, runtime: NodeRuntime? = nil,
                sdkVersion: String = "matterhub/0.2",
                onCommissioningStep: @escaping @Sendable (StepTiming) -> Void = { _ in }) async throws(HomeError) {
        self.hub = hub
        self.home = Home(hub: hub)
        self.runtime = runtime ?? NodeRuntime(hub: hub)
        self.options = options
        self.onCommissioningStep = onCommissioningStep
        self.sdkVersion = sdkVersion
        let fabric = try await hub.fabric()
        let cfid: UInt64
        do { cfid = try fabric.compressedFabricID().rawValue } catch {
            throw HomeError(.fabricUnusable, "the hub's fabric has no valid root key: \(error)", underlying: error)
        }
        advertWatch = OperationalAdvertWatch(discovery: hub.discovery, compressedFabricID: cfid, runtime: self.runtime)
        let logger = SettableCallback<String>()
        self.logger = logger
        node = HubNode(manager: try await hub.messaging(), credentials: try await hub.commissionerIdentity().controller,
                       compressedFabricID: cfid, vendorID: fabric.vendorID, softwareVersionString: sdkVersion,
                       imageStore: OTAImageStore(directory: await hub.stateDirectory + "/ota"), log: { logger($0) })
        borderRouters = BorderRouterRegistry(discovery: hub.discovery)
        icdCheckIns = ICDCheckIns(store: hub.store)
        let wifi = ((try? await hub.wifiCredentials()) ?? nil) != nil
        let thread = ((try? await hub.preferredThreadDataset()) ?? nil) != nil
        state = Mutex(State(info: ServerInfo(fabricID: fabric.fabricID.rawValue, compressedFabricID: cfid, sdkVersion: sdkVersion,
                                             wifiCredentialsSet: wifi, threadCredentialsSet: thread, bluetoothEnabled: false)))
    }

    /// Where the API's events go.
    public func setEventSink(_ publish: @escaping @Sendable (ServerEvent) -> Void) {
        sink.set(publish)
    }

    /// Sends an event to the clients, except one about a node that was removed: a runtime update
    /// under way when remove_node came (the node going unavailable as its session closes) would
    /// otherwise follow node_removed, and Home Assistant's client re-adds the node as a ghost.
    func publish(_ event: ServerEvent) {
        switch event {
        case .nodeRemoved, .subscriptionEnded: break  // a subscriber hears its subscription end with the node
        default:
            if let node = event.nodeID, state.withLock({ $0.removed.contains(NodeID(node)) }) { return }
        }
        sink(event)
        switch event {
        case .nodeAdded, .nodeRemoved: Task { await topologyWatch.changed() }
        default: break
        }
    }

    /// Marks a node removed before its runtime stops (see ``publish(_:)``). Node IDs are never
    /// reused, so the set only grows, by one ID per removal.
    func markRemoved(_ id: NodeID) {
        state.withLock { _ = $0.removed.insert(id) }
    }

    /// Reconciles pending nodes, then keeps every node live and forwards the runtime's updates.
    /// `advertiseNode`: publish the hub's own node on `_matter._tcp` (through avahi, as `hub serve` does).
    public func start(advertiseNode: Bool = false, log: @escaping @Sendable (String) -> Void = { _ in }) async throws(HomeError) {
        let levels = logLevels
        logger.set { line in if levels.console.writes(.info) { log(line) } }
        for (node, outcome) in await hub.reconcilePendingNodes() {
            log("hub: node \(node) left pending by a crash was \(outcome == .completed ? "completed" : "dropped")")
        }
        await node.start(checkIn: { [weak self] payload, from in await self?.checkInArrived(payload, from: from) })
        let node = self.node
        try await runtime.start(requests: { exchange, first in await node.serve(exchange, first: first) })
        if advertiseNode { await node.advertise(log: log) }
        let updates = runtime.updates
        Task { [weak self] in
            for await update in updates { await self?.forward(update) }
        }
        let records = (try? hub.store.nodes()) ?? []
        for record in records { await runtime.add(record.nodeID) }
        await restoreICDSchedules()
        await advertWatch.start(log: log)
        await topologyWatch.start(build: { [weak self] in await self?.buildTopology() ?? NetworkTopology(collectedAt: 0, nodes: [], connections: []) },
                                  publish: { [weak self] in self?.publish(.networkTopologyUpdated($0)) })
        let watch = topologyWatch
        await borderRouters.start(onChange: { Task { await watch.changed() } })
        log("hub: \(records.count) node\(records.count == 1 ? "" : "s") in the store")
    }

    public func stop() async {
        state.withLock { $0.stopping = true }
        reportSubscriptions.endAll()
        await topologyWatch.stop()
        await node.stop()
        await advertWatch.stop()
        await borderRouters.stop()
        await runtime.stop()
        await home.close()
    }

    // MARK: - HubBackend

    /// Schema 14's subscriptions belong to the connection; every other command is ``handle(_:)``.
    public func handle(_ command: ServerCommand, connection: UInt64) async throws(APIError) -> JSONValue {
        switch command {
        case .subscribe(let arguments): return try await subscribe(arguments, connection: connection)
        case .unsubscribe(let node, let id): return try await unsubscribe(node: node, subscriptionID: id, connection: connection)
        default: return try await handle(command)
        }
    }

    public func serverInfo() -> ServerInfo { state.withLock { $0.info } }

    public func nodes() async -> [MatterNodeData] {
        var out: [MatterNodeData] = []
        for record in (try? hub.store.nodes()) ?? [] {
            out.append(await nodeData(record))
        }
        return out
    }

    func nodeData(_ record: NodeRecord) async -> MatterNodeData {
        let cache = await runtime.attributes(of: record.nodeID)
        let available = await runtime.isAvailable(record.nodeID)
        let interviewed = state.withLock { $0.lastInterview[record.nodeID] }
        return NodeDataBuilder.node(record, cache: cache, available: available, lastInterview: interviewed)
    }

    func nodeData(_ nodeID: NodeID) async throws(APIError) -> MatterNodeData {
        guard let record = try? hub.store.node(nodeID) else {
            throw APIError(.nodeNotExists, "Node \(nodeID.rawValue) does not exist")
        }
        return await nodeData(record)
    }

    // MARK: - Updates to events

    private func forward(_ update: NodeUpdate) async {
        switch update {
        case .attributes(let node, let values):
            reportSubscriptions.attributes(node.rawValue, values)
            if values.keys.contains(where: { NetworkTopologyBuilder.clusters.contains($0.cluster.rawValue) }) {
                await topologyWatch.changed()
            }
            // Values that arrive while a node is unavailable (the priming report of a new
            // subscription, before it counts as live) reach clients in the node_updated that
            // follows, whole: one event instead of one per attribute (200 nodes primed from an
            // empty cache were 20,000 events, and a client that could not keep up was dropped).
            guard state.withLock({ !$0.announcing.contains(node) && $0.availableInUpdates.contains(node) }) else { return }
            for (path, value) in values.sorted(by: { $0.key < $1.key }) {
                guard let json = try? AttributeValueCoding.json(from: value) else { continue }
                publish(.attributeUpdated(nodeID: node.rawValue, path: NodeDataBuilder.path(path), value: json))
            }
        case .availability(let node, let available):
            state.withLock {
                if available { $0.availableInUpdates.insert(node) } else { $0.availableInUpdates.remove(node) }
            }
            logger("hub: node \(node.rawValue) is \(available ? "available" : "unavailable")")
            await topologyWatch.changed()
            guard !state.withLock({ $0.announcing.contains(node) }), let record = try? hub.store.node(node) else { return }
            publish(.nodeUpdated(await nodeData(record)))
            await announceDevice(node.rawValue)
            if available { Task { await self.reregisterIfOperatingAsLIT(node) } }
        case .connection(let node, _):
            // Extension clients see "reconnecting" and "next try at" (OHF clients only availability).
            guard !state.withLock({ $0.announcing.contains(node) }), (try? hub.store.node(node)) != nil else { return }
            await announceDevice(node.rawValue)
        case .endpoints(let node, let added, let removed):
            guard !state.withLock({ $0.announcing.contains(node) }), (try? hub.store.node(node)) != nil else { return }
            for e in removed { publish(.endpointRemoved(nodeID: node.rawValue, endpointID: e.rawValue)) }
            guard !added.isEmpty else { return }
            Task { await self.endpointsAdded(node, added) }
        case .subscriptionReport, .subscriptionsEnded:
            forwardClientSubscription(update)
        case .event(let node, let event):
            reportSubscriptions.event(node.rawValue, event)
            // Only for nodes a client already knows (a node being added has none yet).
            guard (try? hub.store.node(node)) != nil else { return }
            let data = NodeDataBuilder.event(event, of: node)
            state.withLock {
                $0.recentEvents.append(data)
                if $0.recentEvents.count > Self.recentEventLimit { $0.recentEvents.removeFirst($0.recentEvents.count - Self.recentEventLimit) }
            }
            guard !state.withLock({ $0.announcing.contains(node) }) else { return }
            publish(.nodeEvent(data))
        }
    }

    /// A bridge's new endpoints: each read alone unless the report that announced it brought its
    /// values (python-matter-server interviews the whole node again), then node_updated and
    /// endpoint_added, in that order: Home Assistant looks the endpoint up in the node when it
    /// hears endpoint_added.
    func endpointsAdded(_ node: NodeID, _ endpoints: [EndpointID]) async {
        let cache = await runtime.attributes(of: node)
        for e in endpoints where !cache.keys.contains(where: { $0.endpoint == e && $0.cluster == .descriptor }) {
            do { _ = try await read(node, [AttributePathPattern(endpoint: e.rawValue, cluster: nil, attribute: nil)]) } catch {
                logger("hub: node \(node.rawValue)'s new endpoint \(e.rawValue) could not be read: \(error.details)")
            }
        }
        if let data = try? await nodeData(node) { publish(.nodeUpdated(data)) }
        for e in endpoints { publish(.endpointAdded(nodeID: node.rawValue, endpointID: e.rawValue)) }
        logger("hub: node \(node.rawValue) has new endpoints \(endpoints.map(\.rawValue))")
    }

    /// How many node events `diagnostics` lists (python-matter-server keeps 25).
    static let recentEventLimit = 25

    /// The last node events, oldest first, for `diagnostics`.
    var recentEvents: [MatterNodeEvent] { state.withLock { $0.recentEvents } }

    /// Holds back a node's updates while it is commissioned or interviewed (its node_added or
    /// node_updated carries them all).
    func announcing(_ node: NodeID, _ on: Bool) {
        state.withLock { if on { $0.announcing.insert(node) } else { $0.announcing.remove(node) } }
    }

    func interviewed(_ node: NodeID) {
        state.withLock { $0.lastInterview[node] = Date() }
    }

    func updateInfo(_ change: (inout ServerInfo) -> Void) -> ServerInfo {
        state.withLock { change(&$0.info); return $0.info }
    }

    var fabricLabel: String? {
        get { state.withLock { $0.fabricLabel } }
    }

    func setFabricLabel(_ label: String?) {
        state.withLock { $0.fabricLabel = label }
    }
}
