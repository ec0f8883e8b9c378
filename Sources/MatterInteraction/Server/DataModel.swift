/// What a node exposes: endpoints, their clusters, and each cluster's attributes, commands and
/// events. The server uses it to expand wildcard paths and to pick the status for a concrete
/// path that does not exist.
import MatterTLV

public struct DataModel: Hashable, Sendable {
    /// One cluster instance on one endpoint.
    public struct Cluster: Hashable, Sendable {
        public var id: ClusterID
        public var attributes: Set<AttributeID>
        public var writableAttributes: Set<AttributeID>
        /// Attributes whose writes must be timed (Matter Core 8.7.2.3).
        public var timedWriteAttributes: Set<AttributeID>
        public var acceptedCommands: Set<CommandID>
        /// Commands that must be invoked as a timed interaction.
        public var timedCommands: Set<CommandID>
        public var events: Set<EventID>

        public init(id: ClusterID, attributes: Set<AttributeID>, writableAttributes: Set<AttributeID> = [],
                    timedWriteAttributes: Set<AttributeID> = [], acceptedCommands: Set<CommandID> = [],
                    timedCommands: Set<CommandID> = [], events: Set<EventID> = []) {
            self.id = id
            self.attributes = attributes
            self.writableAttributes = writableAttributes
            self.timedWriteAttributes = timedWriteAttributes
            self.acceptedCommands = acceptedCommands
            self.timedCommands = timedCommands
            self.events = events
        }
    }

    public struct Endpoint: Hashable, Sendable {
        public var id: EndpointID
        public var clusters: [ClusterID: Cluster]

        public init(id: EndpointID, clusters: [Cluster]) {
            self.id = id
            self.clusters = Dictionary(clusters.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        }
    }

    public var endpoints: [EndpointID: Endpoint]

    public init(endpoints: [Endpoint]) {
        self.endpoints = Dictionary(endpoints.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    public func cluster(_ endpoint: EndpointID, _ cluster: ClusterID) -> Cluster? {
        endpoints[endpoint]?.clusters[cluster]
    }
}

/// The result of expanding one requested path: a concrete path to serve, or a status to report.
public enum PathExpansion<Concrete: Hashable & Sendable, Requested: Hashable & Sendable>: Hashable, Sendable {
    case concrete(Concrete)
    case status(Requested, IMStatus)
}

/// A global attribute (Matter Core 7.13): IDs 0xF000..0xFFFE in the standard range.
func isGlobalAttribute(_ id: AttributeID) -> Bool {
    (0xF000...0xFFFE).contains(id.rawValue)
}

extension DataModel {
    /// Expands an attribute path for a read or subscribe (Matter Core 8.9.2.2).
    ///
    /// Wildcards select what exists and skip the rest silently; a concrete path to something
    /// missing yields UnsupportedEndpoint, UnsupportedCluster or UnsupportedAttribute, in that
    /// order. A wildcard cluster with a specific non-global attribute, or a list index in a read
    /// path, is an InvalidAction.
    public func expandRead(_ path: AttributePathIB) -> [PathExpansion<ConcreteAttributePath, AttributePathIB>] {
        if path.listIndex != nil { return [.status(path, .invalidAction)] }
        if path.cluster == nil, let a = path.attribute, !isGlobalAttribute(a) { return [.status(path, .invalidAction)] }

        if !path.isWildcard, let e = path.endpoint, let c = path.cluster, let a = path.attribute {
            guard let ep = endpoints[e] else { return [.status(path, .unsupportedEndpoint)] }
            guard let cl = ep.clusters[c] else { return [.status(path, .unsupportedCluster)] }
            guard cl.attributes.contains(a) else { return [.status(path, .unsupportedAttribute)] }
            return [.concrete(ConcreteAttributePath(e, c, a))]
        }

        var out: [PathExpansion<ConcreteAttributePath, AttributePathIB>] = []
        let eps = path.endpoint.map { e in endpoints[e].map { [$0] } ?? [] } ?? endpoints.values.sorted { $0.id < $1.id }
        for ep in eps {
            let cls = path.cluster.map { c in ep.clusters[c].map { [$0] } ?? [] } ?? ep.clusters.values.sorted { $0.id < $1.id }
            for cl in cls {
                let attrs = path.attribute.map { a in cl.attributes.contains(a) ? [a] : [] } ?? cl.attributes.sorted()
                for a in attrs { out.append(.concrete(ConcreteAttributePath(ep.id, cl.id, a))) }
            }
        }
        return out
    }

    /// Checks a write path (Matter Core 8.7.3.2): unicast writes name one attribute.
    public func resolveWrite(_ path: AttributePathIB, timed: Bool) -> PathExpansion<ConcreteAttributePath, AttributePathIB> {
        guard let e = path.endpoint, let c = path.cluster, let a = path.attribute else {
            return .status(path, .invalidAction)
        }
        guard let ep = endpoints[e] else { return .status(path, .unsupportedEndpoint) }
        guard let cl = ep.clusters[c] else { return .status(path, .unsupportedCluster) }
        guard cl.attributes.contains(a) else { return .status(path, .unsupportedAttribute) }
        guard cl.writableAttributes.contains(a) else { return .status(path, .unsupportedWrite) }
        if cl.timedWriteAttributes.contains(a) && !timed { return .status(path, .needsTimedInteraction) }
        return .concrete(ConcreteAttributePath(e, c, a))
    }

    /// Checks a command path of a unicast invoke (Matter Core 8.8.3.1).
    public func resolveCommand(_ path: CommandPathIB, timed: Bool) -> PathExpansion<CommandPathIB, CommandPathIB> {
        guard let e = path.endpoint else { return .status(path, .invalidAction) }
        guard let ep = endpoints[e] else { return .status(path, .unsupportedEndpoint) }
        guard let cl = ep.clusters[path.cluster] else { return .status(path, .unsupportedCluster) }
        guard cl.acceptedCommands.contains(path.command) else { return .status(path, .unsupportedCommand) }
        if cl.timedCommands.contains(path.command) && !timed { return .status(path, .needsTimedInteraction) }
        return .concrete(path)
    }
}
