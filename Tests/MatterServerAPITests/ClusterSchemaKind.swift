import MatterClusters
import MatterServerAPI

/// A data type in the notation of scripts/gen-cluster-schema.py (what the CHIP SDK's cluster
/// objects declare: no widths, enums and bitmaps as uint).
enum ClusterSchemaKind {
    static func of(_ type: MatterDataType) -> String {
        switch type {
        case .bool: return "bool"
        case .unsigned: return "uint"
        case .signed: return "int"
        case .float: return "float"
        case .double: return "double"
        case .string: return "string"
        case .bytes: return "bytes"
        case .list(let inner): return "list<\(of(inner))>"
        case .nullable(let inner): return "nullable<\(of(inner))>"
        case .structure(let fields): return "struct{" + fields.map(field).joined(separator: ",") + "}"
        case .any: return "any"
        }
    }

    static func field(_ f: MatterField) -> String {
        "\(f.name)/\(f.tag)\(f.isOptional ? "?" : ""):\(of(f.type))"
    }
}
