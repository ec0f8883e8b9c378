/// Data-model identifiers as newtypes, so an endpoint cannot be passed as a cluster.

/// An endpoint number on a node.
public struct EndpointID: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt16) { self.rawValue = value }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "0x" + String(rawValue, radix: 16, uppercase: true) }
}

/// A cluster ID (Matter Core 7.10): a 32-bit manufacturer-extensible identifier.
public struct ClusterID: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt32) { self.rawValue = value }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "0x" + String(rawValue, radix: 16, uppercase: true) }
}

/// An attribute ID within a cluster.
public struct AttributeID: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt32) { self.rawValue = value }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "0x" + String(rawValue, radix: 16, uppercase: true) }
}

/// A command ID within a cluster.
public struct CommandID: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt32) { self.rawValue = value }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "0x" + String(rawValue, radix: 16, uppercase: true) }
}

/// An event ID within a cluster.
public struct EventID: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt32) { self.rawValue = value }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "0x" + String(rawValue, radix: 16, uppercase: true) }
}
