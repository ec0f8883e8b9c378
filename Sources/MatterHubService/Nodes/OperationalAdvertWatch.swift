import MatterCertificates
import MatterDiscovery
import MatterHome
import MatterMessaging
import MatterTLV

/// Watches the hub's fabric on `_matter._tcp` and tells the node runtime when a node announces
/// itself: a node seen for the first time (it may be waiting to retry: try now), a node whose
/// advert went away and came back, or came back on another port (it restarted or moved: its
/// subscription is gone, reconnect at its new address), and a node that announces other
/// addresses (a new ULA, a Thread prefix that changed: the runtime checks its session's).
actor OperationalAdvertWatch {
    private enum Seen: Equatable {
        case present(port: UInt16, addresses: Set<String>)
        case gone
    }

    private let discovery: MatterDiscovery
    private var compressedFabricID: UInt64
    private let runtime: NodeRuntime
    private var seen: [NodeID: Seen] = [:]
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
            case nil: await runtime.deviceAnnounced(node)
            case .gone:
                log("hub: node \(id) announced itself again: reconnecting")
                await runtime.deviceRestarted(node)
            case .present(let old, _) where old != port:
                log("hub: node \(id) moved to port \(port): reconnecting")
                await runtime.deviceRestarted(node)
            case .present(_, let old) where !addresses.isEmpty && old != Set(addresses.map(\.ip)):
                let announced = addresses.compactMap { PeerAddress($0.ip, port: port, interfaceIndex: UInt32(max(0, $0.interfaceIndex))) }
                if await runtime.deviceAddressesChanged(node, to: announced) {
                    log("hub: node \(id) moved to \(addresses.map(\.ip).joined(separator: ", ")): reconnecting")
                }
            case .present: break
            }
        }
    }
}
