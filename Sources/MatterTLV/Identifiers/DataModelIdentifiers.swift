/// Data-model identifiers as newtypes, so an endpoint cannot be passed as a cluster.

/// An endpoint number on a node.
public struct EndpointID: MatterIdentifier, ExpressibleByIntegerLiteral {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
}

/// A cluster ID (Matter Core 7.10): a 32-bit manufacturer-extensible identifier.
public struct ClusterID: MatterIdentifier, ExpressibleByIntegerLiteral {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// An attribute ID within a cluster.
public struct AttributeID: MatterIdentifier, ExpressibleByIntegerLiteral {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// A command ID within a cluster.
public struct CommandID: MatterIdentifier, ExpressibleByIntegerLiteral {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// An event ID within a cluster.
public struct EventID: MatterIdentifier, ExpressibleByIntegerLiteral {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
}
