import MatterTLV

/// Everything the model knows about one cluster: what the hub, the CLI and the API codecs look
/// names, types and fields up in. Generated per cluster (`Clusters.OnOff.definition`).
public struct ClusterDefinition: Sendable {
    public let id: ClusterID
    /// The name as the CHIP SDK's cluster objects spell it ("OnOff", "LevelControl").
    public let name: String
    public let attributes: [AttributeDefinition]
    /// The commands a client sends (client -> server), each with its response.
    public let commands: [ClusterCommand]
    /// The commands a server answers with (server -> client).
    public let responses: [CommandResponse]
    public let events: [ClusterEvent]
    public let enums: [NamedValues]
    public let bitmaps: [NamedValues]

    public init(id: ClusterID, name: String, attributes: [AttributeDefinition], commands: [ClusterCommand],
                responses: [CommandResponse], events: [ClusterEvent], enums: [NamedValues], bitmaps: [NamedValues]) {
        self.id = id
        self.name = name
        self.attributes = attributes
        self.commands = commands
        self.responses = responses
        self.events = events
        self.enums = enums
        self.bitmaps = bitmaps
    }

    public func attribute(id: UInt32) -> AttributeDefinition? { attributes.first { $0.id.rawValue == id } }
    public func command(id: UInt32) -> ClusterCommand? { commands.first { $0.id == id } }
    public func event(id: UInt32) -> ClusterEvent? { events.first { $0.id == id } }

    /// Name lookups match the SDK's spelling exactly ("OnOff", as `device_command` takes it), or
    /// ignoring case (as the CLI takes it).
    public func attribute(named name: String, ignoringCase: Bool = false) -> AttributeDefinition? {
        attributes.first { Self.matches($0.name, name, ignoringCase) }
    }
    public func command(named name: String, ignoringCase: Bool = false) -> ClusterCommand? {
        commands.first { Self.matches($0.name, name, ignoringCase) }
    }
    public func event(named name: String, ignoringCase: Bool = false) -> ClusterEvent? {
        events.first { Self.matches($0.name, name, ignoringCase) }
    }

    static func matches(_ a: String, _ b: String, _ ignoringCase: Bool) -> Bool { ignoringCase ? a.lowercased() == b.lowercased() : a == b }
}

/// One attribute of a cluster.
public struct AttributeDefinition: Hashable, Sendable {
    public let id: AttributeID
    public let name: String
    public let type: MatterDataType
    /// Whether a client may write it (Write Interaction).
    public let isWritable: Bool
    /// Whether a write must be timed (Matter Core 8.7.2).
    public let requiresTimedWrite: Bool
    /// Whether a cluster server may leave it out.
    public let isOptional: Bool
    /// Whether its value is per fabric (a list of structures with a fabric index): each
    /// administrator reads and writes only its own entries.
    public let isFabricScoped: Bool

    public init(id: AttributeID, _ name: String, _ type: MatterDataType, writable: Bool = false, timedWrite: Bool = false,
                optional: Bool = false, fabricScoped: Bool = false) {
        self.id = id
        self.name = name
        self.type = type
        self.isWritable = writable
        self.requiresTimedWrite = timedWrite
        self.isOptional = optional
        self.isFabricScoped = fabricScoped
    }

    public var isNullable: Bool {
        if case .nullable = type { return true }
        return false
    }
}

/// An enum's values or a bitmap's bits, by name, for listing and for parsing names.
public struct NamedValues: Hashable, Sendable {
    public let name: String
    public let values: [Value]

    public struct Value: Hashable, Sendable {
        public let name: String
        public let value: UInt64
    }

    public init(_ name: String, _ values: KeyValuePairs<String, UInt64>) {
        self.name = name
        self.values = values.map { Value(name: $0.key, value: $0.value) }
    }
}

/// A client -> server command: the CHIP SDK's class name (what `device_command` names it), the
/// command ID, its fields (name <-> tag <-> type), the response it answers with, and whether the
/// spec requires a timed invoke for it.
public struct ClusterCommand: Hashable, Sendable {
    public var clusterID: UInt32
    public var name: String
    public var id: UInt32
    public var fields: [MatterField]
    /// The response command, nil when the device answers with a status only.
    public var response: CommandResponse?
    /// Whether the spec requires a timed invoke (Matter Core 8.7.2), e.g. DoorLock.LockDoor.
    public var requiresTimedInvoke: Bool

    public init(cluster: UInt32, _ name: String, id: UInt32, _ fields: [MatterField] = [], response: CommandResponse? = nil,
                timed: Bool = false) {
        self.clusterID = cluster
        self.name = name
        self.id = id
        self.fields = fields
        self.response = response
        self.requiresTimedInvoke = timed
    }
}

/// A server -> client command, e.g. OperationalCredentials NOCResponse or DoorLock GetUserResponse.
public struct CommandResponse: Hashable, Sendable {
    public var name: String
    public var id: UInt32
    public var fields: [MatterField]

    public init(_ name: String, id: UInt32, _ fields: [MatterField]) {
        self.name = name
        self.id = id
        self.fields = fields
    }
}

/// A cluster event: its ID and its fields (name <-> tag <-> type).
public struct ClusterEvent: Hashable, Sendable {
    public var clusterID: UInt32
    public var name: String
    public var id: UInt32
    public var fields: [MatterField]

    public init(cluster: UInt32, _ name: String, id: UInt32, _ fields: [MatterField] = []) {
        self.clusterID = cluster
        self.name = name
        self.id = id
        self.fields = fields
    }
}

/// A cluster enum (generated): open, since a device may send a value this model does not know,
/// with the spec's name of each value it does.
public protocol ClusterEnum: RawRepresentable, Hashable, Sendable, CustomStringConvertible
where RawValue: FixedWidthInteger & Sendable {
    /// The spec's name of each defined value ("AuthFailure").
    static var names: [RawValue: String] { get }
}

extension ClusterEnum {
    /// The spec's name of the value ("AuthFailure"), or "NetworkCommissioningStatusEnum 42" for
    /// a value the model does not define.
    public var name: String { Self.names[rawValue] ?? "\(Self.self) \(rawValue)" }

    /// Every value the model defines, in order.
    public static var allDefined: [Self] { names.keys.sorted().compactMap(Self.init(rawValue:)) }

    /// "AuthFailure (7)", or "NetworkCommissioningStatusEnum 42" for an unknown value.
    public var description: String { Self.names[rawValue] == nil ? name : "\(name) (\(rawValue))" }
}
