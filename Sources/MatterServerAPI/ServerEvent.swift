/// The names of the events a server may send: the 9 the 8.1.2 client knows, schema 12's
/// `thread_diagnostics_updated` and schema 13's `network_topology_updated`. Any other name crashes
/// the 8.1.2 client's listen loop, so a newer event goes only to a connection that asked for it
/// (`get_thread_diagnostics` or `get_thread_border_routers`; `get_network_topology`), and
/// schema 14's `subscription_report`/`subscription_ended` only to the connection that subscribed.
public enum EventName: String, Hashable, Sendable, CaseIterable {
    case nodeAdded = "node_added"
    case nodeUpdated = "node_updated"
    case nodeRemoved = "node_removed"
    case nodeEvent = "node_event"
    case attributeUpdated = "attribute_updated"
    case serverShutdown = "server_shutdown"
    case serverInfoUpdated = "server_info_updated"
    case endpointAdded = "endpoint_added"
    case endpointRemoved = "endpoint_removed"
    case networkTopologyUpdated = "network_topology_updated"
    case threadDiagnosticsUpdated = "thread_diagnostics_updated"
    case subscriptionReport = "subscription_report"
    case subscriptionEnded = "subscription_ended"
}

/// An event, with its data in the shape the contract gives (ws-api.md section 4). Sent only to
/// connections that issued `start_listening`.
public enum ServerEvent: Hashable, Sendable {
    /// After a node's first interview.
    case nodeAdded(MatterNodeData)
    /// With the **full** node data (availability changes, re-interview).
    case nodeUpdated(MatterNodeData)
    case nodeRemoved(nodeID: UInt64)
    case nodeEvent(MatterNodeEvent)
    /// `[node_id, "E/C/A", value]`; the node must already be known to the client.
    case attributeUpdated(nodeID: UInt64, path: AttributePath, value: JSONValue)
    case serverShutdown
    case serverInfoUpdated(ServerInfo)
    /// Bridges: only after the node_updated that carries the endpoint.
    case endpointAdded(nodeID: UInt64, endpointID: UInt16)
    case endpointRemoved(nodeID: UInt64, endpointID: UInt16)
    /// Schema 13: the graph changed. Only to connections that sent `get_network_topology`.
    case networkTopologyUpdated(NetworkTopology)
    /// Schema 12: one Thread network's diagnostics batch (``ThreadDiagnosticsBuilder``). Only to
    /// connections that sent `get_thread_diagnostics` or `get_thread_border_routers`.
    case threadDiagnosticsUpdated(JSONValue)
    /// Schema 14: a report of a client's own subscription (`read`'s shape plus `node_id` and
    /// `subscription_id`), to the connection that opened it only.
    case subscriptionReport(connection: UInt64, nodeID: UInt64, report: JSONValue)
    /// Schema 14: a client's subscription ended without its asking (the node's session went).
    case subscriptionEnded(connection: UInt64, nodeID: UInt64, subscriptionID: UInt32)

    public var name: EventName {
        switch self {
        case .nodeAdded: return .nodeAdded
        case .nodeUpdated: return .nodeUpdated
        case .nodeRemoved: return .nodeRemoved
        case .nodeEvent: return .nodeEvent
        case .attributeUpdated: return .attributeUpdated
        case .serverShutdown: return .serverShutdown
        case .serverInfoUpdated: return .serverInfoUpdated
        case .endpointAdded: return .endpointAdded
        case .endpointRemoved: return .endpointRemoved
        case .networkTopologyUpdated: return .networkTopologyUpdated
        case .threadDiagnosticsUpdated: return .threadDiagnosticsUpdated
        case .subscriptionReport: return .subscriptionReport
        case .subscriptionEnded: return .subscriptionEnded
        }
    }

    public var data: JSONValue {
        switch self {
        case .nodeAdded(let node), .nodeUpdated(let node): return node.json
        case .nodeRemoved(let id): return .integer(id)
        case .nodeEvent(let event): return event.json
        case .attributeUpdated(let node, let path, let value):
            return .array([.integer(node), .string(path.description), value])
        case .serverShutdown: return .null
        case .serverInfoUpdated(let info): return info.json
        case .endpointAdded(let node, let endpoint), .endpointRemoved(let node, let endpoint):
            return .object(["node_id": .integer(node), "endpoint_id": .integer(endpoint)])
        case .networkTopologyUpdated(let topology): return topology.json
        case .threadDiagnosticsUpdated(let batch): return batch
        case .subscriptionReport(_, _, let report): return report
        case .subscriptionEnded(_, let node, let id):
            return .object(["node_id": .integer(node), "subscription_id": .integer(id)])
        }
    }

    /// The node an event concerns, if any (a client must know it before its events).
    public var nodeID: UInt64? {
        switch self {
        case .nodeAdded(let n), .nodeUpdated(let n): return n.nodeID
        case .nodeRemoved(let id), .attributeUpdated(let id, _, _), .endpointAdded(let id, _), .endpointRemoved(let id, _):
            return id
        case .nodeEvent(let e): return e.nodeID
        case .subscriptionReport(_, let id, _), .subscriptionEnded(_, let id, _): return id
        case .serverShutdown, .serverInfoUpdated, .networkTopologyUpdated, .threadDiagnosticsUpdated: return nil
        }
    }
}
