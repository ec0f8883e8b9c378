import MatterJSON

/// The CLI's `--json` output is MatterJSON's value (object members keep the order written, so
/// the output has the exact shape the documentation shows), with the shorthands the commands use.
typealias JSON = JSONValue

extension JSONValue {
    /// An object with members in this order.
    static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject(members.map { JSONObject.Member(key: $0.0, value: $0.1) }))
    }

    static func from<T: BinaryInteger>(_ v: T?) -> JSONValue { v.map { .integer($0) } ?? .null }

    static func from(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }

    /// Compact, one line.
    var text: String { JSONWriter.string(self) }
}
