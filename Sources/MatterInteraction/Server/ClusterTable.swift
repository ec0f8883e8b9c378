import MatterClusters
import MatterTLV

/// One cluster's server side: its attributes and commands on one endpoint. A node is a table of
/// them (``ClusterTable``), as matter.js composes `<Cluster>Server` behaviours; the table answers
/// the global attributes, the data model and access, so a server only says what is its own.
public protocol ClusterServer: Sendable {
    var id: ClusterID { get }
    var revision: UInt16 { get }
    var featureMap: UInt32 { get }
    /// Its attributes besides the global ones.
    var attributes: [AttributeID] { get }
    var acceptedCommands: [CommandID] { get }
    var generatedCommands: [CommandID] { get }
    /// The value of one of `attributes`.
    func read(_ attribute: AttributeID, context: IMSessionContext) async throws(IMStatus) -> TLVElement
    /// Runs one of `acceptedCommands`.
    func invoke(_ command: CommandID, fields: TLVElement?, context: IMSessionContext) async -> CommandOutcome
}

extension ClusterServer {
    public var featureMap: UInt32 { 0 }
    public var acceptedCommands: [CommandID] { [] }
    public var generatedCommands: [CommandID] { [] }
    public func invoke(_ command: CommandID, fields: TLVElement?, context: IMSessionContext) async -> CommandOutcome {
        .status(StatusIB(.unsupportedCommand))
    }
}

/// What an access asks for, for a ``ClusterTable``'s access policy (Matter Core 6.6.2's
/// privileges, reduced to what is asked).
public enum ClusterAccess: Sendable, Hashable {
    case read, write, invoke
}

/// A node's endpoints as tables of cluster servers: the ``InteractionDevice`` behind an
/// ``InteractionServer``. It answers the global attributes (Matter Core 7.13) from the servers'
/// declarations, asks `allows` before every access (UnsupportedAccess when it says no), and
/// refuses writes (no server here has a writable attribute yet).
public struct ClusterTable: InteractionDevice {
    public typealias AccessPolicy = @Sendable (IMSessionContext, ClusterAccess, EndpointID, ClusterID) -> Bool

    public let endpoints: [EndpointID: [ClusterServer]]
    private let allows: AccessPolicy

    public init(endpoints: [EndpointID: [ClusterServer]], allows: @escaping AccessPolicy) {
        self.endpoints = endpoints
        self.allows = allows
    }

    static let globals: [AttributeID] = [.generatedCommandList, .acceptedCommandList, .attributeList, .featureMap, .clusterRevision]

    /// The data model the ``InteractionServer`` expands paths over.
    public var dataModel: DataModel {
        DataModel(endpoints: endpoints.map { id, servers in
            DataModel.Endpoint(id: id, clusters: servers.map { s in
                DataModel.Cluster(id: s.id, attributes: Set(s.attributes + Self.globals), acceptedCommands: Set(s.acceptedCommands))
            })
        })
    }

    func server(_ endpoint: EndpointID, _ cluster: ClusterID) -> ClusterServer? {
        endpoints[endpoint]?.first { $0.id == cluster }
    }

    public func readAttribute(_ path: ConcreteAttributePath, fabricFiltered: Bool, context: IMSessionContext) async throws(IMStatus) -> TLVElement {
        guard let s = server(path.endpoint, path.cluster) else { throw .unsupportedCluster }
        guard allows(context, .read, path.endpoint, path.cluster) else { throw .unsupportedAccess }
        func ids<ID: MatterIdentifier>(_ xs: [ID]) -> TLVElement { .array(xs.sorted().map { .unsigned($0.rawValue) }) }
        switch path.attribute {
        case .clusterRevision: return .unsigned(s.revision)
        case .featureMap: return .unsigned(s.featureMap)
        case .attributeList: return ids(s.attributes + Self.globals)
        case .acceptedCommandList: return ids(s.acceptedCommands)
        case .generatedCommandList: return ids(s.generatedCommands)
        default: return try await s.read(path.attribute, context: context)
        }
    }

    public func writeAttribute(_ path: ConcreteAttributePath, value: TLVElement, listIndex: ListIndex?, context: IMSessionContext) async throws(IMStatus) {
        guard server(path.endpoint, path.cluster) != nil else { throw .unsupportedCluster }
        guard allows(context, .write, path.endpoint, path.cluster) else { throw .unsupportedAccess }
        throw .unsupportedWrite
    }

    public func invokeCommand(_ path: CommandPathIB, fields: TLVElement?, context: IMSessionContext) async -> CommandOutcome {
        guard let endpoint = path.endpoint, let s = server(endpoint, path.cluster) else { return .status(StatusIB(.unsupportedCluster)) }
        guard allows(context, .invoke, endpoint, path.cluster) else { return .status(StatusIB(.unsupportedAccess)) }
        guard s.acceptedCommands.contains(path.command) else { return .status(StatusIB(.unsupportedCommand)) }
        return await s.invoke(path.command, fields: fields, context: context)
    }

    /// The values do not change while the node runs (a server with changing values will bump it).
    public func dataVersion(_ endpoint: EndpointID, _ cluster: ClusterID) async -> UInt32? {
        server(endpoint, cluster) == nil ? nil : 1
    }
}
