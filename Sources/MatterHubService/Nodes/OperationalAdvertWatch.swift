import MatterCertificates
import MatterDiscovery
import MatterHome
import MatterMessaging
import MatterTLV

/// Watches the hub's fabric on `_matter._tcp` and tells the node runtime when a node announces
/// itself: a node seen for the first time (it may be waiting to retry: try now), a node whose
/// advert went away and came back, or came back on another port (it restarted or moved: its
/// subscription is gone, reconnect at its new address), and, for a node seen first or announcing
/// other addresses (a new ULA, a Thread prefix that changed), whether its session still goes
/// there.
actor OperationalAdvertWatch {
    private enum Seen: Equatable {
        case present(port: UInt16, addresses: Set<String>)
        case gone
    }

    private let discovery: MatterDiscovery
    private var compressedFabricID: UInt64
    private let runtime: NodeRuntime
    private var seen: [NodeID: Seen] = [:]
    private var settling: [NodeID: Task<Void, Never>] = [:]
    private var task: Task<Void, Never>?
    private var log: @Sendable (String) -> Void = { _ in }

    init(discovery: MatterDiscovery, compressedFabricID: UInt64, runtime: NodeRuntime) {
        self.discovery = discovery
        self.compressedFabricID = compressedFabricID
        self.runtime = runtime
    }

    /// Browses until `stop()`; a browse that fails (avahi restarted) is begun again after a pause.
    func start(log: @escaping @Sendable (String) -> Void) {
        guard task == nil else { return }
        self.log = log
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
        for check in settling.values { check.cancel() }
        settling = [:]
    }

    /// Watches another fabric from now on (the hub took one over): what was seen of the old one
    /// is forgotten.
    func retarget(compressedFabricID cfid: UInt64) {
        let running = task != nil
        stop()
        compressedFabricID = cfid
        seen = [:]
        if running { start(log: log) }
    }

    private func browseOnce() async {
        do {
            for try await event in discovery.operationalNodes(compressedFabricID: compressedFabricID) {
                guard !Task.isCancelled else { return }
                await observe(event)
            }
        } catch {}
    }

    /// Whether the node's live session still goes where it announces itself (a first sighting,
    /// or other addresses). Avahi resolves an instance per interface and protocol, so its
    /// address set passes through partial views (IPv4 only, one interface) before it settles:
    /// the runtime is asked once the view has held still for ``addressSettling``.
    private func settleThenCheckAddresses(of node: NodeID) {
        settling[node]?.cancel()
        settling[node] = Task { [weak self] in
            try? await Task.sleep(for: Self.addressSettling)
            guard !Task.isCancelled else { return }
            await self?.checkAddresses(of: node)
        }
    }

    private func checkAddresses(of node: NodeID) async {
        settling[node] = nil
        guard case .present(let port, let addresses) = seen[node] else { return }
        let announced = addresses.compactMap { PeerAddress($0, port: port) }
        if await runtime.deviceMoved(node, announcing: announced) {
            log("hub: node \(node.rawValue) is at \(addresses.sorted().joined(separator: ", ")) port \(port) now: reconnecting")
        }
    }

    static let addressSettling: Duration = .milliseconds(1500)

    private func observe(_ event: DiscoveryEvent<OperationalNode>) async {
        guard let id = event.node.name?.nodeID else { return }
        let node = NodeID(id)
        let port = event.node.service.port
        let before = seen[node]
        switch event {
        case .removed:
            seen[node] = .gone
        case .found, .updated:
            let addresses = event.node.service.addresses
            seen[node] = .present(port: port, addresses: Set(addresses.map(\.ip)))
            switch before {
            case nil:
                // Seen for the first time (since the hub started, or since it was commissioned):
                // if it was already live, it may have restarted elsewhere before the hub's
                // avahi saw its first advert.
                await runtime.deviceAnnounced(node)
                settleThenCheckAddresses(of: node)
            case .gone:
                log("hub: node \(id) announced itself again: reconnecting")
                await runtime.deviceRestarted(node)
            case .present(let old, _) where old != port:
                log("hub: node \(id) moved to port \(port): reconnecting")
                await runtime.deviceRestarted(node)
            case .present(_, let old) where !addresses.isEmpty && old != Set(addresses.map(\.ip)):
                settleThenCheckAddresses(of: node)
            case .present: break
            }
        }
    }
}
