/// A JSON value with ordered object keys, for `--json` output (one object per line).
enum JSONValue {
    case string(String)
    case number(Int64)
    case unsigned(UInt64)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    var text: String {
        switch self {
        case .string(let s): return Self.quote(s)
        case .number(let n): return String(n)
        case .unsigned(let n): return String(n)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array(let a): return "[" + a.map(\.text).joined(separator: ",") + "]"
        case .object(let o): return "{" + o.map { Self.quote($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
