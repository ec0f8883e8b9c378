import MatterClusters
import MatterTLV

/// One cluster's server side on one endpoint: what it declares, its attribute values, its writes
/// and its commands. A node is a set of them, as matter.js composes `<Cluster>Server` behaviours:
/// the hub's node serves them from a ``ClusterTable``, the virtual device from its own state, and
/// the clusters both have (Descriptor, Basic Information, Access Control) are the same servers.
/// The global attributes (Matter Core 7.13) come from the declarations (``globalAttribute(_:)``),
/// so a server only answers for its own.
public protocol ClusterServer: Sendable {
    var id: ClusterID { get }
    var revision: UInt16 { get }
    var featureMap: UInt32 { get }
    /// Its attributes besides the global ones.
    var attributes: [AttributeID] { get }
    /// Those of `attributes` a client may write.
    var writableAttributes: [AttributeID] { get }
    var acceptedCommands: [CommandID] { get }
    var generatedCommands: [CommandID] { get }
    /// Those of `acceptedCommands` that need a timed invoke.
    var timedCommands: [CommandID] { get }
    var events: [EventID] { get }
    /// The value of one of `attributes`; `fabricFiltered` hides other fabrics' entries of a
    /// fabric-scoped list (the context's fabric is the accessing one).
    func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) async throws(IMStatus) -> TLVElement
    /// Writes one of `writableAttributes` (a whole value, or one list item with `.append`),
    /// checking its type and constraints; the owner bumps the data version and persists.
    mutating func write(_ attribute: AttributeID, value: TLVElement, listIndex: ListIndex?,
                        context: IMSessionContext) throws(IMStatus)
    /// Runs one of `acceptedCommands`.
    func invoke(_ command: CommandID, fields: TLVElement?, context: IMSessionContext) async -> CommandOutcome
}

extension ClusterServer {
    public var featureMap: UInt32 { 0 }
    public var writableAttributes: [AttributeID] { [] }
    public var acceptedCommands: [CommandID] { [] }
    public var generatedCommands: [CommandID] { [] }
    public var timedCommands: [CommandID] { [] }
    public var events: [EventID] { [] }

    public mutating func write(_ attribute: AttributeID, value: TLVElement, listIndex: ListIndex?,
                               context: IMSessionContext) throws(IMStatus) {
        throw .unsupportedWrite
    }

    public func invoke(_ command: CommandID, fields: TLVElement?, context: IMSessionContext) async -> CommandOutcome {
        .status(StatusIB(.unsupportedCommand))
    }

    /// The global attributes every cluster has (Matter Core 7.13; EventList left the spec in 1.3).
    public static var globalAttributes: [AttributeID] {
        [.generatedCommandList, .acceptedCommandList, .attributeList, .featureMap, .clusterRevision]
    }

    /// A global attribute's value from the declarations (nil: not a global attribute).
    public func globalAttribute(_ attribute: AttributeID) -> TLVElement? {
        func ids<ID: MatterIdentifier>(_ xs: [ID]) -> TLVElement { .array(xs.sorted().map { .unsigned($0.rawValue) }) }
        switch attribute {
        case .clusterRevision: return .unsigned(revision)
        case .featureMap: return .unsigned(featureMap)
        case .attributeList: return ids(attributes + Self.globalAttributes)
        case .acceptedCommandList: return ids(acceptedCommands)
        case .generatedCommandList: return ids(generatedCommands)
        default: return nil
        }
    }

    /// Any attribute: a global one from the declarations, else the server's own.
    public func readAny(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) async throws(IMStatus) -> TLVElement {
        if let g = globalAttribute(attribute) { return g }
        guard attributes.contains(attribute) else { throw .unsupportedAttribute }
        return try await read(attribute, fabricFiltered: fabricFiltered, context: context)
    }

    /// What the ``InteractionServer`` expands paths over.
    public var dataModelCluster: DataModel.Cluster {
        DataModel.Cluster(id: id, attributes: Set(attributes + Self.globalAttributes), writableAttributes: Set(writableAttributes),
                          acceptedCommands: Set(acceptedCommands), timedCommands: Set(timedCommands), events: Set(events))
    }
}
