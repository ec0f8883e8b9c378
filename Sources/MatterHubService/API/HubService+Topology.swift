import FoundationEssentials
import MatterHome
import MatterInteraction
import MatterServerAPI
import MatterTLV

/// `get_network_topology` and `network_topology_updated` (schema 13): the graph
/// ``NetworkTopologyBuilder`` derives from the nodes' cached diagnostics and the border routers
/// the hub's `_meshcop._udp` browse holds.
extension HubService {
    /// At most this many nodes are read at once by a refresh (each read is radio traffic).
    static let topologyRefreshConcurrency = 4
    /// No refresh read starts after this; each read is bounded by the device client's timeout.
    static let topologyRefreshDeadline = Duration.seconds(30)

    func networkTopology(refresh: Bool) async -> JSONValue {
        let read: (@Sendable () async -> Void)? = refresh ? { @Sendable [weak self] () async -> Void in
            await self?.readTopologyAttributes()
        } : nil
        if let topology = await topologyWatch.snapshot(refreshingWith: read) { return topology.json }
        return await buildTopology().json
    }

    /// The graph from the cache: only each node's endpoint-0 topology clusters (and endpoint 1's
    /// Descriptor, which says whether it is a bridge) are converted.
    func buildTopology() async -> NetworkTopology {
        let sources = await nodesConverted { path in
            (path.endpoint == 0 && NetworkTopologyBuilder.clusters.contains(path.cluster.rawValue))
                || (path.endpoint == 1 && path.cluster == .descriptor && path.attribute.rawValue == 0)
        }
        let routers = await borderRouters.routers.map { entry in
            TopologyBorderRouter(extAddress: entry.router.txt.extendedAddress.map { Base16.encode($0, uppercase: true) } ?? "",
                                 extendedPanID: entry.router.txt.extendedPANID.map { Base16.encode($0, uppercase: true) },
                                 networkName: entry.router.txt.networkName, hostName: entry.router.service.host,
                                 vendorName: entry.router.txt.vendorName, modelName: entry.router.txt.modelName,
                                 lastSeen: Int64(entry.lastSeen.timeIntervalSince1970 * 1000))
        }
        return NetworkTopologyBuilder.build(nodes: sources, borderRouters: routers,
                                            collectedAt: Int64(Date().timeIntervalSince1970 * 1000))
    }

    /// Every node with only the cached attributes `include` takes converted (a graph needs a few
    /// clusters of each, not the whole node).
    func nodesConverted(_ include: (ConcreteAttributePath) -> Bool) async -> [MatterNodeData] {
        var nodes: [MatterNodeData] = []
        for record in (try? hub.store.nodes()) ?? [] {
            let cache = await runtime.attributes(of: record.nodeID).filter { path, _ in include(path) }
            nodes.append(NodeDataBuilder.node(record, cache: cache, available: await runtime.isAvailable(record.nodeID),
                                              lastInterview: nil))
        }
        return nodes
    }

    /// Re-reads the Thread or Wi-Fi diagnostics of every available node (best effort: a node that
    /// fails is skipped), at most ``topologyRefreshConcurrency`` at once, none started after the deadline.
    func readTopologyAttributes(thread threadPaths: [AttributePathPattern] = NetworkTopologyBuilder.threadPaths,
                                wifi wifiPaths: [AttributePathPattern] = NetworkTopologyBuilder.wifiPaths) async {
        var work: [(NodeID, [AttributePathPattern])] = []
        for record in (try? hub.store.nodes()) ?? [] where await runtime.isAvailable(record.nodeID) {
            let features = await runtime.attributes(of: record.nodeID)[ConcreteAttributePath(0, .networkCommissioning, .featureMap)]
            let bits = (try? features?.unsigned(as: UInt32.self)) ?? 0
            if bits & 0x2 != 0, !threadPaths.isEmpty { work.append((record.nodeID, threadPaths)) }
            else if bits & 0x1 != 0, !wifiPaths.isEmpty { work.append((record.nodeID, wifiPaths)) }
        }
        let deadline = ContinuousClock.now + Self.topologyRefreshDeadline
        let workers = min(Self.topologyRefreshConcurrency, work.count)
        let queue = work
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                // Worker k reads nodes k, k + workers, ...
                group.addTask { [weak self] in
                    for (node, paths) in queue[worker...].enumerated().filter({ $0.offset % workers == 0 }).map(\.element) {
                        guard ContinuousClock.now < deadline, let self else { return }
                        do throws(APIError) { _ = try await self.read(node, paths) } catch {
                            self.logger("hub: topology refresh could not read node \(node.rawValue): \(error.details)")
                        }
                    }
                }
            }
        }
    }
}
