import MatterTLV

/// What `matterhub/subscribe` follows: the attributes or the events at a path; nil parts are
/// wildcards.
public struct HubSubscriptionPath: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable { case attribute, event }
    public var kind: Kind
    public var endpoint: UInt16?
    public var cluster: UInt32?
    /// The attribute or event ID.
    public var id: UInt32?

    public init(_ kind: Kind, endpoint: UInt16?, cluster: UInt32?, id: UInt32?) {
        self.kind = kind
        self.endpoint = endpoint
        self.cluster = cluster
        self.id = id
    }

    public func matches(endpoint: UInt16, cluster: UInt32, id: UInt32) -> Bool {
        (self.endpoint ?? endpoint) == endpoint && (self.cluster ?? cluster) == cluster && (self.id ?? id) == id
    }
}

/// One attribute's value at a concrete path.
public struct AttributeValue: Hashable, Sendable, Comparable {
    public var endpoint: UInt16
    public var cluster: UInt32
    public var attribute: UInt32
    public var value: TLVElement

    public init(endpoint: UInt16, cluster: UInt32, attribute: UInt32, value: TLVElement) {
        self.endpoint = endpoint
        self.cluster = cluster
        self.attribute = attribute
        self.value = value
    }

    public static func < (a: Self, b: Self) -> Bool { (a.endpoint, a.cluster, a.attribute) < (b.endpoint, b.cluster, b.attribute) }
}

/// One event a device reported.
public struct EventValue: Hashable, Sendable {
    public var endpoint: UInt16
    public var cluster: UInt32
    public var event: UInt32
    /// The device's event number (it only grows).
    public var number: UInt64
    /// The event's data; nil when it has none.
    public var data: TLVElement?

    public init(endpoint: UInt16, cluster: UInt32, event: UInt32, number: UInt64, data: TLVElement?) {
        self.endpoint = endpoint
        self.cluster = cluster
        self.event = event
        self.number = number
        self.data = data
    }
}

/// One `matterhub/report` to the connection that sent `matterhub/subscribe`: the values that
/// changed and the events that happened at its path (the first: every current value).
public struct HubReport: Hashable, Sendable {
    public var requestID: String
    public var nodeID: UInt64
    public var attributes: [AttributeValue]
    public var events: [EventValue]

    public init(requestID: String, nodeID: UInt64, attributes: [AttributeValue], events: [EventValue]) {
        self.requestID = requestID
        self.nodeID = nodeID
        self.attributes = attributes
        self.events = events
    }

    public var json: JSONValue {
        .object([
            "request_id": .string(requestID), "node_id": .integer(nodeID),
            "attributes": .array(attributes.map { a in
                .object(["endpoint": .integer(a.endpoint), "cluster": .integer(a.cluster), "attribute": .integer(a.attribute),
                         "tlv": .string(Base16.encode(TLVWriter.encode(a.value)))])
            }),
            "events": .array(events.map { e in
                .object(["endpoint": .integer(e.endpoint), "cluster": .integer(e.cluster), "event": .integer(e.event),
                         "number": .integer(e.number), "tlv": e.data.map { .string(Base16.encode(TLVWriter.encode($0))) } ?? .null])
            }),
        ])
    }

    public init(json: JSONValue) throws(APIError) {
        let context = HubEvent.Name.report.rawValue
        let r = try ObjectReader(json, context: context)
        requestID = try r.required("request_id")
        nodeID = try r.required("node_id")
        attributes = []
        for item in try r.required("attributes", [JSONValue].self) {
            let a = try ObjectReader(item, context: context)
            attributes.append(AttributeValue(endpoint: try a.required("endpoint"), cluster: try a.required("cluster"),
                                        attribute: try a.required("attribute"),
                                        value: try HubCommand.element(try a.required("tlv"), "tlv", context)))
        }
        events = []
        for item in try r.required("events", [JSONValue].self) {
            let e = try ObjectReader(item, context: context)
            let hex: String? = try e.optional("tlv")
            events.append(EventValue(endpoint: try e.required("endpoint"), cluster: try e.required("cluster"), event: try e.required("event"),
                                number: try e.required("number"),
                                data: try hex.map { h throws(APIError) in try HubCommand.element(h, "tlv", context) }))
        }
    }
}
