import MatterServerAPI

/// Keeps the network graph current for `network_topology_updated` (schema 13), as
/// matterjs-server's NetworkTopologyService does: a change that can move the graph (a topology
/// attribute, availability, a node added or removed, a border router) schedules a rebuild after a
/// quiet `debounce`, so a burst of reports is one rebuild; a slow `period` rebuild catches what
/// arrives without a change event; a rebuild goes out only when the graph differs from the last
/// one sent. A refresh (re-reading every node's diagnostics) is shared by concurrent callers:
/// it costs radio traffic on every node.
actor TopologyWatch {
    typealias Build = @Sendable () async -> NetworkTopology
    typealias Publish = @Sendable (NetworkTopology) -> Void

    private let debounce: Duration
    private let period: Duration
    private var build: Build?
    private var publish: Publish?
    private var lastSent: NetworkTopology.Graph?
    private var pending: Task<Void, Never>?
    private var periodic: Task<Void, Never>?
    private var refreshing: Task<NetworkTopology, Never>?

    init(debounce: Duration = .seconds(2), period: Duration = .seconds(60)) {
        self.debounce = debounce
        self.period = period
    }

    func start(build: @escaping Build, publish: @escaping Publish) {
        self.build = build
        self.publish = publish
        let period = self.period
        periodic = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: period)
                guard !Task.isCancelled else { return }
                await self?.rebuild()
            }
        }
    }

    func stop() {
        pending?.cancel()
        periodic?.cancel()
        pending = nil
        periodic = nil
        build = nil
        publish = nil
    }

    /// Something the graph depends on changed: rebuild once things are quiet for `debounce`.
    func changed() {
        guard build != nil else { return }
        pending?.cancel()
        let debounce = self.debounce
        pending = Task { [weak self] in
            try? await Task.sleep(for: debounce)
            guard !Task.isCancelled else { return }
            await self?.rebuild()
        }
    }

    /// The graph now; after `read` (the refresh's reads) when one is given, shared with any
    /// refresh already under way. Sent to the listeners when it changed.
    func snapshot(refreshingWith read: (@Sendable () async -> Void)? = nil) async -> NetworkTopology? {
        guard let build else { return nil }
        guard let read else { return await build() }
        if let refreshing { return await refreshing.value }
        let task = Task {
            await read()
            return await build()
        }
        refreshing = task
        let topology = await task.value
        refreshing = nil
        sendIfChanged(topology)
        return topology
    }

    private func rebuild() async {
        guard let build else { return }
        sendIfChanged(await build())
    }

    private func sendIfChanged(_ topology: NetworkTopology) {
        let graph = topology.graph
        guard graph != lastSent, let publish else { return }
        lastSent = graph
        publish(topology)
    }
}
