import MatterTLV

/// The ListIndex of an attribute path: a position in a list attribute, or null meaning
/// "append to the list" (Matter Core 10.6.2).
public enum ListIndex: Hashable, Sendable {
    case append
    case index(UInt16)
}

/// AttributePathIB (Matter Core 10.6.2), a TLV list. Absent fields are wildcards.
public struct AttributePathIB: TLVCodable, CustomStringConvertible {
    public enum Tag {
        public static let enableTagCompression: UInt8 = 0
        public static let node: UInt8 = 1
        public static let endpoint: UInt8 = 2
        public static let cluster: UInt8 = 3
        public static let attribute: UInt8 = 4
        public static let listIndex: UInt8 = 5
        public static let wildcardPathFlags: UInt8 = 6
    }

    public var enableTagCompression: Bool?
    public var node: UInt64?
    public var endpoint: EndpointID?
    public var cluster: ClusterID?
    public var attribute: AttributeID?
    public var listIndex: ListIndex?
    public var wildcardPathFlags: UInt32?

    public init(enableTagCompression: Bool? = nil, node: UInt64? = nil, endpoint: EndpointID? = nil,
                cluster: ClusterID? = nil, attribute: AttributeID? = nil, listIndex: ListIndex? = nil,
                wildcardPathFlags: UInt32? = nil) {
        self.enableTagCompression = enableTagCompression
        self.node = node
        self.endpoint = endpoint
        self.cluster = cluster
        self.attribute = attribute
        self.listIndex = listIndex
        self.wildcardPathFlags = wildcardPathFlags
    }

    /// A concrete path to one attribute.
    public init(_ endpoint: EndpointID, _ cluster: ClusterID, _ attribute: AttributeID) {
        self.init(endpoint: endpoint, cluster: cluster, attribute: attribute)
    }

    /// The attribute this path names, when it names exactly one (no wildcard).
    public var concrete: ConcreteAttributePath? {
        guard let endpoint, let cluster, let attribute else { return nil }
        return ConcreteAttributePath(endpoint, cluster, attribute)
    }

    /// True when endpoint, cluster or attribute is a wildcard.
    public var isWildcard: Bool { endpoint == nil || cluster == nil || attribute == nil }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .list, "AttributePathIB")
        enableTagCompression = try f.bool(Tag.enableTagCompression)
        node = try f.uint(Tag.node)
        endpoint = try f.uint(Tag.endpoint, UInt16.self).map { EndpointID($0) }
        cluster = try f.uint(Tag.cluster, UInt32.self).map { ClusterID($0) }
        attribute = try f.uint(Tag.attribute, UInt32.self).map { AttributeID($0) }
        if let li = f.optional(Tag.listIndex) {
            listIndex = li.isNull ? .append : .index(try f.requiredUInt(Tag.listIndex))
        }
        wildcardPathFlags = try f.uint(Tag.wildcardPathFlags)
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.bool(Tag.enableTagCompression, enableTagCompression)
        w.uint(Tag.node, node)
        w.uint(Tag.endpoint, endpoint?.rawValue)
        w.uint(Tag.cluster, cluster?.rawValue)
        w.uint(Tag.attribute, attribute?.rawValue)
        switch listIndex {
        case .append: w.add(.null(.context(Tag.listIndex)))
        case .index(let i): w.uint(Tag.listIndex, i)
        case nil: break
        }
        w.uint(Tag.wildcardPathFlags, wildcardPathFlags)
        return w.list(tag)
    }

    public var description: String {
        let e = endpoint.map { "\($0.rawValue)" } ?? "*"
        let c = cluster.map { "\($0)" } ?? "*"
        let a = attribute.map { "\($0)" } ?? "*"
        var text = "attribute \(e)/\(c)/\(a)"
        switch listIndex {
        case .append: text += "[append]"
        case .index(let i): text += "[\(i)]"
        case nil: break
        }
        return text
    }
}

/// A fully specified attribute path, as the server reads and writes it.
public struct ConcreteAttributePath: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var endpoint: EndpointID
    public var cluster: ClusterID
    public var attribute: AttributeID

    public init(_ endpoint: EndpointID, _ cluster: ClusterID, _ attribute: AttributeID) {
        self.endpoint = endpoint
        self.cluster = cluster
        self.attribute = attribute
    }

    public var ib: AttributePathIB { AttributePathIB(endpoint, cluster, attribute) }

    public static func < (a: Self, b: Self) -> Bool {
        (a.endpoint, a.cluster, a.attribute) < (b.endpoint, b.cluster, b.attribute)
    }

    public var description: String { "attribute \(endpoint.rawValue)/\(cluster)/\(attribute)" }
}

/// ClusterPathIB (Matter Core 10.6.6), used by DataVersionFilterIB.
public struct ClusterPathIB: TLVCodable {
    public enum Tag {
        public static let node: UInt8 = 0
        public static let endpoint: UInt8 = 1
        public static let cluster: UInt8 = 2
    }
    public var node: UInt64?
    public var endpoint: EndpointID
    public var cluster: ClusterID

    public init(node: UInt64? = nil, endpoint: EndpointID, cluster: ClusterID) {
        self.node = node
        self.endpoint = endpoint
        self.cluster = cluster
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .list, "ClusterPathIB")
        node = try f.uint(Tag.node)
        endpoint = EndpointID(try f.requiredUInt(Tag.endpoint, UInt16.self))
        cluster = ClusterID(try f.requiredUInt(Tag.cluster, UInt32.self))
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.uint(Tag.node, node)
        w.uint(Tag.endpoint, endpoint.rawValue)
        w.uint(Tag.cluster, cluster.rawValue)
        return w.list(tag)
    }
}

/// DataVersionFilterIB (Matter Core 10.6.3): skip a cluster whose data version is unchanged.
public struct DataVersionFilterIB: TLVCodable {
    public enum Tag {
        public static let path: UInt8 = 0
        public static let dataVersion: UInt8 = 1
    }
    public var path: ClusterPathIB
    public var dataVersion: UInt32

    public init(path: ClusterPathIB, dataVersion: UInt32) {
        self.path = path
        self.dataVersion = dataVersion
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "DataVersionFilterIB")
        path = try ClusterPathIB(element: try f.required(Tag.path))
        dataVersion = try f.requiredUInt(Tag.dataVersion)
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.add(path.element(tag: .context(Tag.path)))
        w.uint(Tag.dataVersion, dataVersion)
        return w.structure(tag)
    }
}

/// EventPathIB (Matter Core 10.6.8), a TLV list. Absent fields are wildcards.
public struct EventPathIB: TLVCodable, CustomStringConvertible {
    public enum Tag {
        public static let node: UInt8 = 0
        public static let endpoint: UInt8 = 1
        public static let cluster: UInt8 = 2
        public static let event: UInt8 = 3
        public static let isUrgent: UInt8 = 4
    }
    public var node: UInt64?
    public var endpoint: EndpointID?
    public var cluster: ClusterID?
    public var event: EventID?
    public var isUrgent: Bool?

    public init(node: UInt64? = nil, endpoint: EndpointID? = nil, cluster: ClusterID? = nil,
                event: EventID? = nil, isUrgent: Bool? = nil) {
        self.node = node
        self.endpoint = endpoint
        self.cluster = cluster
        self.event = event
        self.isUrgent = isUrgent
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .list, "EventPathIB")
        node = try f.uint(Tag.node)
        endpoint = try f.uint(Tag.endpoint, UInt16.self).map { EndpointID($0) }
        cluster = try f.uint(Tag.cluster, UInt32.self).map { ClusterID($0) }
        event = try f.uint(Tag.event, UInt32.self).map { EventID($0) }
        isUrgent = try f.bool(Tag.isUrgent)
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.uint(Tag.node, node)
        w.uint(Tag.endpoint, endpoint?.rawValue)
        w.uint(Tag.cluster, cluster?.rawValue)
        w.uint(Tag.event, event?.rawValue)
        w.bool(Tag.isUrgent, isUrgent)
        return w.list(tag)
    }

    public var description: String {
        "event \(endpoint.map { "\($0.rawValue)" } ?? "*")/\(cluster.map { "\($0)" } ?? "*")/\(event.map { "\($0)" } ?? "*")"
    }
}

/// EventFilterIB (Matter Core 10.6.7): only events numbered at least `eventMin`.
public struct EventFilterIB: TLVCodable {
    public enum Tag {
        public static let node: UInt8 = 0
        public static let eventMin: UInt8 = 1
    }
    public var node: UInt64?
    public var eventMin: UInt64

    public init(node: UInt64? = nil, eventMin: UInt64) {
        self.node = node
        self.eventMin = eventMin
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "EventFilterIB")
        node = try f.uint(Tag.node)
        eventMin = try f.requiredUInt(Tag.eventMin)
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.uint(Tag.node, node)
        w.uint(Tag.eventMin, eventMin)
        return w.structure(tag)
    }
}

/// CommandPathIB (Matter Core 10.6.11), a TLV list. Endpoint may be a wildcard (group
/// invokes); cluster and command are mandatory.
public struct CommandPathIB: TLVCodable, CustomStringConvertible {
    public enum Tag {
        public static let endpoint: UInt8 = 0
        public static let cluster: UInt8 = 1
        public static let command: UInt8 = 2
    }
    public var endpoint: EndpointID?
    public var cluster: ClusterID
    public var command: CommandID

    public init(endpoint: EndpointID?, cluster: ClusterID, command: CommandID) {
        self.endpoint = endpoint
        self.cluster = cluster
        self.command = command
    }

    public init(_ endpoint: EndpointID, _ cluster: ClusterID, _ command: CommandID) {
        self.init(endpoint: endpoint, cluster: cluster, command: command)
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .list, "CommandPathIB")
        endpoint = try f.uint(Tag.endpoint, UInt16.self).map { EndpointID($0) }
        cluster = ClusterID(try f.requiredUInt(Tag.cluster, UInt32.self))
        command = CommandID(try f.requiredUInt(Tag.command, UInt32.self))
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.uint(Tag.endpoint, endpoint?.rawValue)
        w.uint(Tag.cluster, cluster.rawValue)
        w.uint(Tag.command, command.rawValue)
        return w.list(tag)
    }

    public var description: String {
        "command \(endpoint.map { "\($0.rawValue)" } ?? "*")/\(cluster)/\(command)"
    }
}
