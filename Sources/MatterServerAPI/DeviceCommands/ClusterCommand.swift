import MatterClusters
import MatterTLV

/// The JSON side of a command: `device_command` payloads by field name.
extension ClusterCommand {
    /// The command fields (an anonymous TLV structure) from a name-keyed payload
    /// (`{"level": 128, "transitionTime": null, ...}`): keys are the field names; optional fields
    /// may be absent or null; nullable fields take null; bytes are base64.
    public func encodePayload(_ payload: JSONObject) throws(ValueCodingError) -> TLVElement {
        .structure(try AttributeValueCoding.structureMembers(payload, fields: fields, keys: .names, depth: 0, path: "payload"))
    }

    /// The name-keyed JSON of a payload this command carries (the reverse of ``encodePayload(_:)``).
    public func decodePayload(_ fieldsElement: TLVElement) throws(ValueCodingError) -> JSONValue {
        try NameKeyedCoding.json(from: fieldsElement, fields: fields, path: name)
    }
}

/// The JSON side of a response: what `device_command` returns.
extension CommandResponse {
    /// The name-keyed JSON object `device_command` returns: every field by name, null when the
    /// device left an optional field out; unknown tags are skipped.
    public func decode(_ fieldsElement: TLVElement) throws(ValueCodingError) -> JSONValue {
        try NameKeyedCoding.json(from: fieldsElement, fields: fields, path: name)
    }

    /// The response fields from a name-keyed object (what a device, e.g. a virtual one, sends).
    public func encode(_ object: JSONObject) throws(ValueCodingError) -> TLVElement {
        .structure(try AttributeValueCoding.structureMembers(object, fields: fields, keys: .names, depth: 0, path: name))
    }
}

/// TLV -> name-keyed JSON for command fields, responses and event data (ws-api.md section 5.3).
enum NameKeyedCoding {
    static func json(from element: TLVElement, fields: [MatterField], path: String) throws(ValueCodingError) -> JSONValue {
        try json(from: element, as: .structure(fields), depth: 0, path: path)
    }

    static func json(from element: TLVElement, as type: MatterDataType, depth: Int, path: String) throws(ValueCodingError) -> JSONValue {
        guard depth <= AttributeValueCoding.maxDepth else { throw ValueCodingError(path: path, "nested too deep") }
        func mismatch() -> ValueCodingError { ValueCodingError(path: path, "the device sent a value that is not \(type.typeDescription)") }
        switch type {
        case .nullable(let inner):
            if case .null = element.value { return .null }
            return try json(from: element, as: inner, depth: depth, path: path)
        case .structure(let fields):
            guard case .container(.structure, let members) = element.value else { throw mismatch() }
            var object = JSONObject()
            for field in fields {
                let fieldPath = "\(path).\(field.name)"
                if let m = members.first(where: { $0.tag == .context(field.tag) }) {
                    object.append(field.name, try json(from: m, as: field.type, depth: depth + 1, path: fieldPath))
                } else if field.isOptional {
                    object.append(field.name, .null)
                } else {
                    throw ValueCodingError(path: fieldPath, "the device left out this required field")
                }
            }
            return .object(object)
        case .list(let inner):
            guard case .container(let kind, let members) = element.value, kind != .structure else { throw mismatch() }
            var items: [JSONValue] = []
            for (i, m) in members.enumerated() { items.append(try json(from: m, as: inner, depth: depth + 1, path: "\(path)[\(i)]")) }
            return .array(items)
        case .bool:
            guard case .bool = element.value else { throw mismatch() }
        case .unsigned, .signed:
            switch element.value {
            case .unsigned, .signed: break
            default: throw mismatch()
            }
        case .float, .double:
            switch element.value {
            case .float, .double: break
            default: throw mismatch()
            }
        case .string:
            guard case .utf8 = element.value else { throw mismatch() }
        case .bytes:
            guard case .bytes = element.value else { throw mismatch() }
        case .any:
            break
        }
        return try AttributeValueCoding.json(from: element)
    }
}
