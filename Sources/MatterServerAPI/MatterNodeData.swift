/// One node as the API describes it (`MatterNodeData`): the start_listening dump, get_node(s),
/// node_added and node_updated (always with every attribute).
public struct MatterNodeData: Hashable, Sendable {
    /// python-matter-server's `DATA_MODEL_SCHEMA_VERSION`.
    public static let interviewVersion = 6

    /// The Matter operational node id; must be stable (Home Assistant's device ids use it).
    public var nodeID: UInt64
    /// ISO 8601, naive UTC (`2026-01-01T00:00:00.000000`), as the Python client parses it.
    public var dateCommissioned: String
    public var lastInterview: String
    public var interviewVersion: Int
    /// Whether the server has a live subscription to the node.
    public var available: Bool
    /// True when the endpoint 1 Descriptor lists device type 14 (Aggregator).
    public var isBridge: Bool
    /// Every attribute, tag-keyed encoding (``AttributeValueCoding``).
    public var attributes: [AttributePath: JSONValue]
    /// `[endpoint|null, cluster|null, attribute|null]` triples; `[]` in practice.
    public var attributeSubscriptions: [JSONValue]

    public init(nodeID: UInt64, dateCommissioned: String, lastInterview: String,
                interviewVersion: Int = MatterNodeData.interviewVersion, available: Bool, isBridge: Bool = false,
                attributes: [AttributePath: JSONValue], attributeSubscriptions: [JSONValue] = []) {
        self.nodeID = nodeID
        self.dateCommissioned = dateCommissioned
        self.lastInterview = lastInterview
        self.interviewVersion = interviewVersion
        self.available = available
        self.isBridge = isBridge
        self.attributes = attributes
        self.attributeSubscriptions = attributeSubscriptions
    }

    /// The JSON object; attributes sorted by endpoint, cluster and attribute.
    public var json: JSONValue {
        var attrs = JSONObject()
        for path in attributes.keys.sorted() { attrs.append(path.description, attributes[path]!) }
        return .object([
            "node_id": .integer(nodeID),
            "date_commissioned": .string(dateCommissioned),
            "last_interview": .string(lastInterview),
            "interview_version": .integer(interviewVersion),
            "available": .bool(available),
            "is_bridge": .bool(isBridge),
            "attributes": .object(attrs),
            "attribute_subscriptions": .array(attributeSubscriptions),
        ])
    }

    /// Reads node data (a fixture, an import, or what a server sent). Attribute keys must be
    /// canonical `E/C/A` paths.
    public init(json: JSONValue) throws(APIError) {
        let r = try ObjectReader(json, context: "node data")
        guard let attrs = r.raw("attributes")?.objectValue else {
            throw .invalidArguments("node data: 'attributes' must be an object of \"E/C/A\" paths")
        }
        var attributes: [AttributePath: JSONValue] = [:]
        attributes.reserveCapacity(attrs.count)
        for member in attrs {
            guard let path = AttributePath(member.key) else {
                throw .invalidArguments("node data: attribute key '\(member.key)' is not an endpoint/cluster/attribute path")
            }
            attributes[path] = member.value
        }
        self.init(nodeID: try r.required("node_id", UInt64.self),
                  dateCommissioned: try r.required("date_commissioned", String.self),
                  lastInterview: try r.required("last_interview", String.self),
                  interviewVersion: try r.optional("interview_version", Int.self) ?? MatterNodeData.interviewVersion,
                  available: try r.optional("available", Bool.self) ?? false,
                  isBridge: try r.optional("is_bridge", Bool.self) ?? false,
                  attributes: attributes,
                  attributeSubscriptions: try r.optional("attribute_subscriptions", [JSONValue].self) ?? [])
    }
}

/// A Matter event from a node (`MatterNodeEvent`), sent as `node_event`. `data` is name-keyed.
public struct MatterNodeEvent: Hashable, Sendable {
    public var nodeID: UInt64
    public var endpointID: UInt16
    public var clusterID: UInt32
    public var eventID: UInt32
    public var eventNumber: UInt64
    /// 0 debug, 1 info, 2 critical.
    public var priority: UInt8
    public var timestamp: UInt64
    /// 0 system time, 1 epoch.
    public var timestampType: UInt8
    public var data: JSONValue

    public init(nodeID: UInt64, endpointID: UInt16, clusterID: UInt32, eventID: UInt32, eventNumber: UInt64,
                priority: UInt8, timestamp: UInt64, timestampType: UInt8, data: JSONValue) {
        self.nodeID = nodeID
        self.endpointID = endpointID
        self.clusterID = clusterID
        self.eventID = eventID
        self.eventNumber = eventNumber
        self.priority = priority
        self.timestamp = timestamp
        self.timestampType = timestampType
        self.data = data
    }

    public var json: JSONValue {
        .object([
            "node_id": .integer(nodeID), "endpoint_id": .integer(endpointID), "cluster_id": .integer(clusterID),
            "event_id": .integer(eventID), "event_number": .integer(eventNumber), "priority": .integer(priority),
            "timestamp": .integer(timestamp), "timestamp_type": .integer(timestampType), "data": data,
        ])
    }
}
