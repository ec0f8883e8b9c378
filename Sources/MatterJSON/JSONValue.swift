/// A JSON value (RFC 8259) that keeps what the Matter Server API needs exact: integers are
/// 64-bit and never pass through `Double`, and object members keep the order they were written in.
///
/// Integers in the `Int64` range are always `.int`; `.uint` holds only values above `Int64.max`
/// (up to `UInt64.max`, e.g. a node id or fabric id). Use ``integer(_:)`` to build either.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    /// An integer above `Int64.max`.
    case uint(UInt64)
    /// A number written with a fraction or an exponent.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The integer `v`, as `.int` when it fits `Int64` and `.uint` otherwise.
    public static func integer<T: BinaryInteger>(_ v: T) -> JSONValue {
        if let small = Int64(exactly: v) { return .int(small) }
        return .uint(UInt64(v))
    }

    /// An object with the given members, in order.
    public static func object(_ members: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(JSONObject(members.map { JSONObject.Member(key: $0.key, value: $0.value) }))
    }

    /// The value as a `UInt64` when it is a non-negative integer.
    public var uint64: UInt64? {
        switch self {
        case .int(let v): return UInt64(exactly: v)
        case .uint(let v): return v
        default: return nil
        }
    }

    /// The value as an `Int64` when it is an integer in range.
    public var int64: Int64? {
        if case .int(let v) = self { return v }
        return nil
    }

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var array: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// The member `key` of an object (nil for other values or a missing key).
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The JSON type name, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .uint: return "integer"
        case .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

/// A JSON object: members in the order they were written. Keys are unique when parsed.
public struct JSONObject: Hashable, Sendable, RandomAccessCollection {
    public struct Member: Hashable, Sendable {
        public var key: String
        public var value: JSONValue
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public private(set) var members: [Member]

    public init(_ members: [Member] = []) { self.members = members }

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> Member { members[position] }

    /// The value of `key` (linear search: API objects are small); setting replaces it in place or
    /// appends it; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            if let i = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// Appends a member without looking for an existing one with that key.
    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append(Member(key: key, value: value))
    }

    public var keys: [String] { members.map(\.key) }
}
