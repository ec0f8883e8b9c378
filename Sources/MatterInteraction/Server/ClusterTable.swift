import MatterClusters
import MatterTLV

/// What an access asks for, for a ``ClusterTable``'s access policy (Matter Core 6.6.2's
/// privileges, reduced to what is asked).
public enum ClusterAccess: Sendable, Hashable {
    case read, write, invoke
}

/// A node's endpoints as tables of cluster servers: the ``InteractionDevice`` behind an
/// ``InteractionServer``. It answers the global attributes from the servers' declarations, asks
/// `allows` before every access (UnsupportedAccess when it says no), applies writes to the
/// server, and keeps each cluster's data version, moved by every write that succeeds (and told
/// to `changed`, for the subscriptions).
public actor ClusterTable: InteractionDevice {
    public typealias AccessPolicy = @Sendable (IMSessionContext, ClusterAccess, EndpointID, ClusterID) -> Bool

    private var endpoints: [EndpointID: [any ClusterServer]]
    private var versions: [ClusterPathIB: UInt32] = [:]
    private let allows: AccessPolicy
    private let changed: @Sendable ([ConcreteAttributePath]) async -> Void
    /// The data model the ``InteractionServer`` expands paths over (the servers' declarations
    /// do not change while it runs).
    public nonisolated let dataModel: DataModel

    public init(endpoints: [EndpointID: [any ClusterServer]], allows: @escaping AccessPolicy,
                changed: @escaping @Sendable ([ConcreteAttributePath]) async -> Void = { _ in }) {
        self.endpoints = endpoints
        self.allows = allows
        self.changed = changed
        dataModel = DataModel(endpoints: endpoints.map { id, servers in
            DataModel.Endpoint(id: id, clusters: servers.map(\.dataModelCluster))
        })
        for (endpoint, servers) in endpoints {
            for s in servers { versions[ClusterPathIB(endpoint: endpoint, cluster: s.id)] = UInt32.random(in: 0...UInt32.max) }
        }
    }

    private func index(_ endpoint: EndpointID, _ cluster: ClusterID) -> Int? {
        endpoints[endpoint]?.firstIndex { $0.id == cluster }
    }

    public func readAttribute(_ path: ConcreteAttributePath, fabricFiltered: Bool, context: IMSessionContext) async throws(IMStatus) -> TLVElement {
        guard let i = index(path.endpoint, path.cluster), let s = endpoints[path.endpoint]?[i] else { throw .unsupportedCluster }
        guard allows(context, .read, path.endpoint, path.cluster) else { throw .unsupportedAccess }
        return try await s.readAny(path.attribute, fabricFiltered: fabricFiltered, context: context)
    }

    public func writeAttribute(_ path: ConcreteAttributePath, value: TLVElement, listIndex: ListIndex?, context: IMSessionContext) async throws(IMStatus) {
        guard let i = index(path.endpoint, path.cluster) else { throw .unsupportedCluster }
        guard allows(context, .write, path.endpoint, path.cluster) else { throw .unsupportedAccess }
        guard endpoints[path.endpoint]![i].writableAttributes.contains(path.attribute) else { throw .unsupportedWrite }
        try endpoints[path.endpoint]![i].write(path.attribute, value: value, listIndex: listIndex, context: context)
        let key = ClusterPathIB(endpoint: path.endpoint, cluster: path.cluster)
        versions[key] = (versions[key] ?? 0) &+ 1
        await changed([path])
    }

    public func invokeCommand(_ path: CommandPathIB, fields: TLVElement?, context: IMSessionContext) async -> CommandOutcome {
        guard let endpoint = path.endpoint, let i = index(endpoint, path.cluster), let s = endpoints[endpoint]?[i] else {
            return .status(StatusIB(.unsupportedCluster))
        }
        guard allows(context, .invoke, endpoint, path.cluster) else { return .status(StatusIB(.unsupportedAccess)) }
        guard s.acceptedCommands.contains(path.command) else { return .status(StatusIB(.unsupportedCommand)) }
        return await s.invoke(path.command, fields: fields, context: context)
    }

    public func dataVersion(_ endpoint: EndpointID, _ cluster: ClusterID) async -> UInt32? {
        versions[ClusterPathIB(endpoint: endpoint, cluster: cluster)]
    }
}
