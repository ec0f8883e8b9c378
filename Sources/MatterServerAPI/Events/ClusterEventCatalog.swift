import MatterClusters
import MatterTLV

/// The `data` of a `node_event` (ws-api.md section 5.3): name-keyed, as python-matter-server's
/// `dataclass_to_dict` sends it, for every event of the generated cluster model; tag-keyed
/// (`{"0": 1}`, the attribute encoding) for an event the model does not know.
public enum ClusterEventCatalog {
    /// The data of event `event` of cluster `cluster`; null when the device sent data that does
    /// not fit the event's fields.
    public static func json(cluster: UInt32, event: UInt32, data: TLVElement) -> JSONValue {
        if let known = Clusters.event(cluster: cluster, id: event) {
            return (try? NameKeyedCoding.json(from: data, fields: known.fields, path: known.name)) ?? .null
        }
        return (try? AttributeValueCoding.json(from: data)) ?? .null
    }
}
