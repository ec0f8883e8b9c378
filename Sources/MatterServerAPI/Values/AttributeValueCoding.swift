import MatterClusters
import MatterTLV

/// The tag-keyed attribute value encoding (ws-api.md section 5.2): the raw TLV value as JSON.
/// Structures become objects keyed by field tag in decimal (`{"0": 3, "1": 3}`), octet strings
/// padded base64, integers JSON integers (never floats), null stays null, lists arrays.
public enum AttributeValueCoding {
    /// The deepest TLV nesting converted (attribute values are shallow; this bounds recursion).
    public static let maxDepth = 32

    /// The JSON form of a TLV element (its own tag is ignored).
    public static func json(from element: TLVElement) throws(ValueCodingError) -> JSONValue {
        try json(from: element, depth: 0, path: "")
    }

    private static func json(from element: TLVElement, depth: Int, path: String) throws(ValueCodingError) -> JSONValue {
        guard depth <= maxDepth else { throw ValueCodingError(path: path, "nested deeper than \(maxDepth) levels") }
        switch element.value {
        case .signed(let v): return .int(v)
        case .unsigned(let v): return .integer(v)
        case .bool(let b): return .bool(b)
        case .float(let f): return .double(Double(f))
        case .double(let d): return .double(d)
        case .utf8(let s): return .string(s)
        case .bytes(let b): return .string(Base64.encode(b))
        case .null: return .null
        case .container(.structure, let members):
            var object = JSONObject()
            for m in members {
                guard case .context(let tag) = m.tag else {
                    throw ValueCodingError(path: path, "structure member with a non-context tag (\(m.tag))")
                }
                let key = String(tag)
                guard object[key] == nil else { throw ValueCodingError(path: path, "duplicate structure tag \(tag)") }
                object.append(key, try json(from: m, depth: depth + 1, path: path.isEmpty ? key : "\(path).\(key)"))
            }
            return .object(object)
        case .container(_, let members):
            var items: [JSONValue] = []
            items.reserveCapacity(members.count)
            for (i, m) in members.enumerated() {
                items.append(try json(from: m, depth: depth + 1, path: "\(path)[\(i)]"))
            }
            return .array(items)
        }
    }

    /// The TLV element (anonymous) for a JSON value of the given type. Structure keys may be
    /// field tags in decimal or field names (what python-matter-server accepts for writes).
    public static func tlv(from json: JSONValue, as type: MatterDataType) throws(ValueCodingError) -> TLVElement {
        try tlv(from: json, as: type, keys: .tagsOrNames, depth: 0, path: "")
    }

    enum Keys { case tagsOrNames, names }

    static func tlv(from json: JSONValue, as type: MatterDataType, keys: Keys, depth: Int, path: String)
        throws(ValueCodingError) -> TLVElement {
        guard depth <= maxDepth else { throw ValueCodingError(path: path, "nested deeper than \(maxDepth) levels") }
        func mismatch() -> ValueCodingError {
            ValueCodingError(path: path, "must be \(type.typeDescription), not \(json.typeName == "integer" ? "\(json)" : json.typeName)")
        }
        switch type {
        case .nullable(let inner):
            return json.isNull ? .null : try tlv(from: json, as: inner, keys: keys, depth: depth, path: path)
        case .bool:
            guard let b = json.bool else { throw mismatch() }
            return .bool(b)
        case .unsigned(let bits):
            guard let v = json.uint64, bits >= 64 || v >> UInt64(bits) == 0 else { throw mismatch() }
            return TLVElement(.unsigned(v))
        case .signed(let bits):
            guard let v = json.int64 else { throw mismatch() }
            if bits < 64 {
                let limit = Int64(1) << Int64(bits - 1)
                guard v >= -limit, v < limit else { throw mismatch() }
            }
            return TLVElement(.signed(v))
        case .float, .double:
            let d: Double
            switch json {
            case .double(let x): d = x
            case .int(let x): d = Double(x)
            case .uint(let x): d = Double(x)
            default: throw mismatch()
            }
            if case .float = type { return TLVElement(.float(Float(d))) }
            return TLVElement(.double(d))
        case .string:
            guard let s = json.string else { throw mismatch() }
            return .utf8(s)
        case .bytes:
            guard let s = json.string else { throw mismatch() }
            guard let b = Base64.decode(s) else { throw ValueCodingError(path: path, "is not valid padded base64") }
            return .bytes(b)
        case .list(let element):
            guard let items = json.array else { throw mismatch() }
            var members: [TLVElement] = []
            for (i, item) in items.enumerated() {
                members.append(try tlv(from: item, as: element, keys: keys, depth: depth + 1, path: "\(path)[\(i)]"))
            }
            return .array(members)
        case .structure(let fields):
            guard let object = json.objectValue else { throw mismatch() }
            return .structure(try structureMembers(object, fields: fields, keys: keys, depth: depth, path: path))
        case .any:
            return try untyped(json, depth: depth, path: path)
        }
    }

    static func structureMembers(_ object: JSONObject, fields: [MatterField], keys: Keys, depth: Int, path: String)
        throws(ValueCodingError) -> [TLVElement] {
        // Match each JSON key to a field, by name or (for tag-keyed input) by decimal tag.
        var given: [UInt8: JSONValue] = [:]
        for member in object {
            let field = fields.first { $0.name == member.key }
                ?? (keys == .tagsOrNames ? fields.first { String($0.tag) == member.key } : nil)
            guard let field else {
                let names = fields.map(\.name).joined(separator: ", ")
                throw ValueCodingError(path: path, "unknown field '\(member.key)' (fields: \(names.isEmpty ? "none" : names))")
            }
            guard given[field.tag] == nil else { throw ValueCodingError(path: path, "field '\(field.name)' given twice") }
            given[field.tag] = member.value
        }
        var members: [TLVElement] = []
        for field in fields {
            let fieldPath = path.isEmpty ? field.name : "\(path).\(field.name)"
            let value = given[field.tag]
            var element: TLVElement
            if let value, !(value == .null && field.isOptional) {
                element = try tlv(from: value, as: field.type, keys: keys, depth: depth + 1, path: fieldPath)
            } else if field.isOptional {
                continue  // an unset optional field is left out; a null one too (the client sends unset as null)
            } else {
                // A missing mandatory field takes its type's default, as the python server's
                // dataclasses do (`MoveToLevelWithOnOff(level=128)` leaves optionsMask 0).
                element = field.type.defaultElement
            }
            element.tag = .context(field.tag)
            members.append(element)
        }
        return members
    }

    /// Best-effort conversion without a schema (see ``MatterDataType/any``).
    static func untyped(_ json: JSONValue, depth: Int, path: String) throws(ValueCodingError) -> TLVElement {
        guard depth <= maxDepth else { throw ValueCodingError(path: path, "nested deeper than \(maxDepth) levels") }
        switch json {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let v): return v < 0 ? TLVElement(.signed(v)) : TLVElement(.unsigned(UInt64(v)))
        case .uint(let v): return TLVElement(.unsigned(v))
        case .double(let d): return TLVElement(.double(d))
        case .string(let s): return .utf8(s)
        case .array(let items):
            var members: [TLVElement] = []
            for (i, item) in items.enumerated() { members.append(try untyped(item, depth: depth + 1, path: "\(path)[\(i)]")) }
            return .array(members)
        case .object(let object):
            var members: [TLVElement] = []
            for member in object {
                guard let tag = UInt8(member.key), String(tag) == member.key else {
                    throw ValueCodingError(path: path, "key '\(member.key)' is not a field tag 0...255 (no schema to map names)")
                }
                var element = try untyped(member.value, depth: depth + 1, path: path.isEmpty ? member.key : "\(path).\(member.key)")
                element.tag = .context(tag)
                members.append(element)
            }
            return .structure(members)
        }
    }
}
