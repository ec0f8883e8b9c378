import FoundationEssentials
import MatterDiscovery

/// The Thread border agents `_meshcop._udp` shows, kept while the hub runs (passive discovery,
/// as matterjs-server does), so `get_thread_border_routers` answers at once with when each was
/// last seen. A browse that fails (avahi restarted) is begun again after a pause.
actor BorderRouterRegistry {
    struct Entry: Sendable {
        var router: BorderRouter
        var lastSeen: Date
    }

    private let discovery: MatterDiscovery
    private var entries: [String: Entry] = [:]
    private var order: [String] = []
    private var task: Task<Void, Never>?
    /// Told when a border router appears, changes or goes (the network graph shows them).
    private var onChange: @Sendable () -> Void = {}

    init(discovery: MatterDiscovery) {
        self.discovery = discovery
    }

    func start(onChange: @escaping @Sendable () -> Void = {}) {
        guard task == nil else { return }
        self.onChange = onChange
        task = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                await self.browseOnce()
                try? await Task.sleep(for: .seconds(2))
            }
        }
    }

    func stop() {
        task?.cancel()
        task = nil
    }

    /// Every border agent seen and not withdrawn, in the order first seen.
    var routers: [Entry] { order.compactMap { entries[$0] } }

    private func browseOnce() async {
        do {
            for try await event in discovery.borderRouters() {
                guard !Task.isCancelled else { return }
                observe(event)
            }
        } catch {}
    }

    private func observe(_ event: DiscoveryEvent<BorderRouter>) {
        switch event {
        case .found(let r), .updated(let r):
            if entries[r.service.name] == nil { order.append(r.service.name) }
            entries[r.service.name] = Entry(router: r, lastSeen: Date())
        case .removed(let r):
            entries[r.service.name] = nil
            order.removeAll { $0 == r.service.name }
        }
        onChange()
    }
}
