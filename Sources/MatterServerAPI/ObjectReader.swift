/// A type a JSON argument can be read as, strictly: integers must be JSON integers in range
/// (never `1.0` or `"1"`), booleans must be `true`/`false`, strings must be strings.
public protocol JSONReadable: Sendable {
    /// The value, or nil when `json` is not of this type or out of range.
    static func read(_ json: JSONValue) -> Self?
    /// What the argument must be, for error messages ("an integer 0...65535").
    static var expected: String { get }
}

extension JSONReadable where Self: FixedWidthInteger {
    public static func read(_ json: JSONValue) -> Self? {
        switch json {
        case .int(let v): return Self(exactly: v)
        case .uint(let v): return Self(exactly: v)
        default: return nil
        }
    }
    public static var expected: String { "an integer \(Self.min)...\(Self.max)" }
}

extension Int: JSONReadable {}
extension Int64: JSONReadable {}
extension UInt64: JSONReadable {}
extension UInt32: JSONReadable {}
extension UInt16: JSONReadable {}
extension UInt8: JSONReadable {}

extension Bool: JSONReadable {
    public static func read(_ json: JSONValue) -> Bool? { json.bool }
    public static var expected: String { "true or false" }
}

extension String: JSONReadable {
    public static func read(_ json: JSONValue) -> String? { json.string }
    public static var expected: String { "a string" }
}

extension JSONValue: JSONReadable {
    public static func read(_ json: JSONValue) -> JSONValue? { json }
    public static var expected: String { "any JSON value" }
}

extension Array: JSONReadable where Element: JSONReadable {
    public static func read(_ json: JSONValue) -> [Element]? {
        guard let items = json.array else { return nil }
        var out: [Element] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard let e = Element.read(item) else { return nil }
            out.append(e)
        }
        return out
    }
    public static var expected: String { "a list, each element \(Element.expected)" }
}

/// Reads the members of a JSON object (command arguments, messages) with error 8
/// (InvalidArguments) naming the member and what it must be. Unknown members are ignored.
public struct ObjectReader: Sendable {
    public let object: JSONObject
    /// What is being read, for messages ("device_command", "server info").
    public let context: String

    /// `null` (as `start_listening` sends) reads as an empty object.
    public init(_ json: JSONValue?, context: String) throws(APIError) {
        self.context = context
        switch json {
        case nil, .null?: object = JSONObject()
        case .object(let o)?: object = o
        case let other?: throw .invalidArguments("\(context): arguments must be an object, not \(other.typeName)")
        }
    }

    /// A member that must be present and not null.
    public func required<T: JSONReadable>(_ key: String, _: T.Type = T.self) throws(APIError) -> T {
        guard let value = object[key], !value.isNull else {
            throw .invalidArguments("\(context): argument '\(key)' is missing; it must be \(T.expected)")
        }
        guard let v = T.read(value) else { throw mismatch(key, value, T.self) }
        return v
    }

    /// A member that may be absent or null (then nil).
    public func optional<T: JSONReadable>(_ key: String, _: T.Type = T.self) throws(APIError) -> T? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let v = T.read(value) else { throw mismatch(key, value, T.self) }
        return v
    }

    /// The raw member, nil when absent.
    public func raw(_ key: String) -> JSONValue? { object[key] }

    func mismatch<T: JSONReadable>(_ key: String, _ value: JSONValue, _: T.Type) -> APIError {
        let shown = value.typeName == "integer" || value.typeName == "number" ? "\(value)" : value.typeName
        return .invalidArguments("\(context): argument '\(key)' must be \(T.expected), not \(shown)")
    }
}
