import MatterServerAPI

/// Events held back for a client that reads slowly (its send queue is past the backlog mark),
/// sent once it has caught up: attribute values coalesced to the latest per attribute, a node's
/// full update superseding its earlier attribute values, everything else kept in order. A client
/// that falls further behind than ``limit`` events is dropped.
struct EventBacklog {
    /// Held events beyond this (after coalescing) mean the client is not coming back.
    static let limit = 10_000

    private struct AttributeKey: Hashable {
        let nodeID: UInt64
        let path: AttributePath
    }

    /// In arrival order; nil where a later event superseded it.
    private var events: [ServerEvent?] = []
    private var attributes: [AttributeKey: Int] = [:]
    /// The held topology update: a newer graph supersedes it.
    private var topology: Int?
    /// The held diagnostics batch of each Thread network (latest wins per network).
    private var threadNetworks: [String: Int] = [:]
    /// Events still held.
    private(set) var count = 0

    /// Holds `event`; false when the backlog is past its limit.
    mutating func hold(_ event: ServerEvent) -> Bool {
        switch event {
        case .attributeUpdated(let node, let path, _):
            let key = AttributeKey(nodeID: node, path: path)
            if let earlier = attributes[key] { supersede(earlier) }
            attributes[key] = events.count
        case .nodeUpdated(let node), .nodeAdded(let node):
            supersedeAttributes(of: node.nodeID)
        case .nodeRemoved(let id):
            supersedeAttributes(of: id)
        case .networkTopologyUpdated:
            if let earlier = topology { supersede(earlier) }
            topology = events.count
        case .threadDiagnosticsUpdated(let batch):
            let network = batch["extPanIdHex"]?.string ?? ""
            if let earlier = threadNetworks[network] { supersede(earlier) }
            threadNetworks[network] = events.count
        default:
            break
        }
        events.append(event)
        count += 1
        return count <= Self.limit
    }

    /// Everything held, in order, and empties the backlog.
    mutating func take() -> [ServerEvent] {
        defer { self = EventBacklog() }
        return events.compactMap { $0 }
    }

    private mutating func supersede(_ index: Int) {
        guard events[index] != nil else { return }
        events[index] = nil
        count -= 1
    }

    private mutating func supersedeAttributes(of node: UInt64) {
        for (key, index) in attributes where key.nodeID == node {
            supersede(index)
            attributes[key] = nil
        }
    }
}
