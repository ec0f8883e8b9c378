/// The kind of a TLV container (Matter Core A.11).
public enum TLVContainerKind: Hashable, Sendable {
    /// Members with distinct, non-anonymous tags; order carries no meaning.
    case structure
    /// Ordered, anonymous members.
    case array
    /// Ordered members, tagged or not.
    case list
}

/// The value of a TLV element.
///
/// Two values are equal when they are the same TLV on the wire: floating-point values compare
/// by bit pattern, so a NaN equals itself (IEEE `==` would make a decoded NaN unequal to its own
/// round trip) and 0.0 differs from -0.0.
public enum TLVValue: Hashable, Sendable {
    case signed(Int64)
    case unsigned(UInt64)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case utf8(String)
    case bytes([UInt8])
    case null
    case container(TLVContainerKind, [TLVElement])
}

extension TLVValue {
    public static func == (lhs: TLVValue, rhs: TLVValue) -> Bool {
        switch (lhs, rhs) {
        case (.signed(let a), .signed(let b)): a == b
        case (.unsigned(let a), .unsigned(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.float(let a), .float(let b)): a.bitPattern == b.bitPattern
        case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
        case (.utf8(let a), .utf8(let b)): a == b
        case (.bytes(let a), .bytes(let b)): a == b
        case (.null, .null): true
        case (.container(let k1, let m1), .container(let k2, let m2)): k1 == k2 && m1 == m2
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .signed(let v): hasher.combine(0); hasher.combine(v)
        case .unsigned(let v): hasher.combine(1); hasher.combine(v)
        case .bool(let v): hasher.combine(2); hasher.combine(v)
        case .float(let v): hasher.combine(3); hasher.combine(v.bitPattern)
        case .double(let v): hasher.combine(4); hasher.combine(v.bitPattern)
        case .utf8(let v): hasher.combine(5); hasher.combine(v)
        case .bytes(let v): hasher.combine(6); hasher.combine(v)
        case .null: hasher.combine(7)
        case .container(let kind, let members): hasher.combine(8); hasher.combine(kind); hasher.combine(members)
        }
    }
}

/// One TLV element: a tag and a value. Containers hold their members in order.
public struct TLVElement: Hashable, Sendable {
    public var tag: TLVTag
    public var value: TLVValue

    public init(tag: TLVTag = .anonymous, _ value: TLVValue) {
        self.tag = tag
        self.value = value
    }
}

// MARK: - Building element trees

extension TLVElement {
    public static func structure(_ tag: TLVTag, _ members: [TLVElement]) -> TLVElement {
        TLVElement(tag: tag, .container(.structure, members))
    }
    public static func array(_ tag: TLVTag, _ members: [TLVElement]) -> TLVElement {
        TLVElement(tag: tag, .container(.array, members))
    }
    public static func list(_ tag: TLVTag, _ members: [TLVElement]) -> TLVElement {
        TLVElement(tag: tag, .container(.list, members))
    }
    /// An anonymous structure.
    public static func structure(_ members: [TLVElement]) -> TLVElement {
        TLVElement(tag: .anonymous, .container(.structure, members))
    }
    /// An anonymous array.
    public static func array(_ members: [TLVElement]) -> TLVElement {
        TLVElement(tag: .anonymous, .container(.array, members))
    }
    /// An anonymous list.
    public static func list(_ members: [TLVElement]) -> TLVElement {
        TLVElement(tag: .anonymous, .container(.list, members))
    }
    public static func unsigned<T: FixedWidthInteger & UnsignedInteger>(_ tag: TLVTag, _ v: T) -> TLVElement {
        TLVElement(tag: tag, .unsigned(UInt64(v)))
    }
    public static func signed<T: FixedWidthInteger & SignedInteger>(_ tag: TLVTag, _ v: T) -> TLVElement {
        TLVElement(tag: tag, .signed(Int64(v)))
    }
    public static func bytes(_ tag: TLVTag, _ v: [UInt8]) -> TLVElement {
        TLVElement(tag: tag, .bytes(v))
    }
    public static func utf8(_ tag: TLVTag, _ v: String) -> TLVElement {
        TLVElement(tag: tag, .utf8(v))
    }
    public static func bool(_ tag: TLVTag, _ v: Bool) -> TLVElement {
        TLVElement(tag: tag, .bool(v))
    }
    public static func null(_ tag: TLVTag) -> TLVElement {
        TLVElement(tag: tag, .null)
    }
    // Anonymous forms (array members, top-level values).
    public static func unsigned<T: FixedWidthInteger & UnsignedInteger>(_ v: T) -> TLVElement {
        TLVElement(.unsigned(UInt64(v)))
    }
    public static func signed<T: FixedWidthInteger & SignedInteger>(_ v: T) -> TLVElement {
        TLVElement(.signed(Int64(v)))
    }
    public static func bytes(_ v: [UInt8]) -> TLVElement { TLVElement(.bytes(v)) }
    public static func utf8(_ v: String) -> TLVElement { TLVElement(.utf8(v)) }
    public static func bool(_ v: Bool) -> TLVElement { TLVElement(.bool(v)) }
    public static var null: TLVElement { TLVElement(.null) }
}

// MARK: - Reading element trees with typed errors

extension TLVElement {
    /// The members of a container, or an empty array for a scalar.
    public var members: [TLVElement] {
        if case .container(_, let m) = value { return m }
        return []
    }

    /// The first member with the given tag.
    public func member(_ tag: TLVTag) -> TLVElement? {
        members.first { $0.tag == tag }
    }

    /// The first member with the given context tag.
    public subscript(context tag: UInt8) -> TLVElement? {
        member(.context(tag))
    }

    /// The member with the given context tag, or `missingField`.
    public func required(_ tag: UInt8) throws(TLVError) -> TLVElement {
        guard let m = member(.context(tag)) else { throw .missingField(.context(tag)) }
        return m
    }

    private var typeName: String {
        switch value {
        case .signed: return "signed integer"
        case .unsigned: return "unsigned integer"
        case .bool: return "boolean"
        case .float: return "float"
        case .double: return "double"
        case .utf8: return "UTF-8 string"
        case .bytes: return "octet string"
        case .null: return "null"
        case .container(let k, _): return "\(k)"
        }
    }

    private func wrongType(_ expected: String) -> TLVError {
        .wrongType(tag: tag, expected: expected, found: typeName)
    }

    /// The value as an unsigned integer of type `T`; a signed non-negative value is accepted too.
    public func unsigned<T: FixedWidthInteger & UnsignedInteger>(as _: T.Type = UInt64.self) throws(TLVError) -> T {
        switch value {
        case .unsigned(let v):
            guard let r = T(exactly: v) else { throw .outOfRange(tag: tag) }
            return r
        case .signed(let v):
            guard let r = T(exactly: v) else { throw .outOfRange(tag: tag) }
            return r
        default: throw wrongType("unsigned integer")
        }
    }

    /// The value as a signed integer of type `T`; an unsigned value that fits is accepted too.
    public func signed<T: FixedWidthInteger & SignedInteger>(as _: T.Type = Int64.self) throws(TLVError) -> T {
        switch value {
        case .signed(let v):
            guard let r = T(exactly: v) else { throw .outOfRange(tag: tag) }
            return r
        case .unsigned(let v):
            guard let r = T(exactly: v) else { throw .outOfRange(tag: tag) }
            return r
        default: throw wrongType("signed integer")
        }
    }

    public func bool() throws(TLVError) -> Bool {
        guard case .bool(let v) = value else { throw wrongType("boolean") }
        return v
    }

    public func bytes() throws(TLVError) -> [UInt8] {
        guard case .bytes(let v) = value else { throw wrongType("octet string") }
        return v
    }

    public func utf8() throws(TLVError) -> String {
        guard case .utf8(let v) = value else { throw wrongType("UTF-8 string") }
        return v
    }

    public func double() throws(TLVError) -> Double {
        switch value {
        case .double(let v): return v
        case .float(let v): return Double(v)
        default: throw wrongType("floating point")
        }
    }

    public var isNull: Bool {
        if case .null = value { return true }
        return false
    }

    /// The members, checking that this is a container of the given kind.
    public func members(of kind: TLVContainerKind) throws(TLVError) -> [TLVElement] {
        guard case .container(let k, let m) = value, k == kind else { throw wrongType("\(kind)") }
        return m
    }
}
