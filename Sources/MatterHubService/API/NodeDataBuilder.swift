import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MatterCertificates
import MatterHome
import MatterInteraction
import MatterServerAPI
import MatterTLV

/// The API's view of a node (`MatterNodeData`) from the store's record and the runtime's cache.
enum NodeDataBuilder {
    /// Python's `datetime.isoformat()` of a naive UTC time, as python-matter-server writes it.
    static func isoTimestamp(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        let micros = Int((date.timeIntervalSince1970 - Double(time)) * 1_000_000)
        func pad(_ v: Int32, _ width: Int) -> String {
            let text = String(v)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(micros), 6))"
    }

    static func path(_ p: ConcreteAttributePath) -> AttributePath {
        AttributePath(endpoint: p.endpoint.rawValue, cluster: p.cluster.rawValue, attribute: p.attribute.rawValue)
    }

    /// Every cached value in the tag-keyed encoding; a value that cannot be encoded is left out
    /// (and would be a bug in the device or in our codec, never a crash of the client).
    static func attributes(_ cache: [ConcreteAttributePath: TLVElement]) -> [AttributePath: JSONValue] {
        var out: [AttributePath: JSONValue] = [:]
        out.reserveCapacity(cache.count)
        for (p, value) in cache {
            if let json = try? AttributeValueCoding.json(from: value) { out[path(p)] = json }
        }
        return out
    }

    static func node(_ record: NodeRecord, cache: [ConcreteAttributePath: TLVElement], available: Bool,
                     lastInterview: Date?) -> MatterNodeData {
        let attributes = attributes(cache)
        // A bridge: endpoint 1 lists the Aggregator device type (14).
        let aggregator = cache[ConcreteAttributePath(1, .descriptor, 0)].map(isAggregator) ?? false
        return MatterNodeData(nodeID: record.nodeID.rawValue, dateCommissioned: isoTimestamp(record.commissionedAt),
                              lastInterview: isoTimestamp(lastInterview ?? record.commissionedAt), available: available,
                              isBridge: aggregator, attributes: attributes)
    }

    /// A node's event as `node_event` sends it: the epoch timestamp when the device gave one
    /// (timestamp_type 1), else its system time (0); the data name-keyed where the event is known.
    static func event(_ e: EventDataIB, of node: NodeID) -> MatterNodeEvent {
        let (timestamp, type): (UInt64, UInt8) = e.epochTimestamp.map { ($0, 1) } ?? (e.systemTimestamp ?? 0, 0)
        let cluster = e.path.cluster?.rawValue ?? 0
        let id = e.path.event?.rawValue ?? 0
        return MatterNodeEvent(nodeID: node.rawValue, endpointID: e.path.endpoint?.rawValue ?? 0, clusterID: cluster, eventID: id,
                               eventNumber: e.eventNumber, priority: e.priority, timestamp: timestamp, timestampType: type,
                               data: ClusterEventCatalog.json(cluster: cluster, event: id, data: e.data))
    }

    /// Whether a Descriptor DeviceTypeList holds device type 14 (Aggregator).
    static func isAggregator(_ deviceTypes: TLVElement) -> Bool {
        guard case .container(_, let entries) = deviceTypes.value else { return false }
        return entries.contains { entry in
            guard case .container(_, let fields) = entry.value else { return false }
            return fields.contains { $0.tag == .context(0) && $0.value == .unsigned(14) }
        }
    }
}
