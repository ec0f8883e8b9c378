import MatterClusters
import MatterTLV

/// The type a `write_attribute` value is converted to: the attribute's type in the generated
/// cluster model; for an attribute the model does not know (a vendor cluster), the type of the
/// value the node last reported for it (``inferred(from:)``: an octet string stays one, an
/// integer keeps its sign); with no value known either, ``MatterDataType/any``.
public enum AttributeSchema {
    public static func type(cluster: UInt32, attribute: UInt32) -> MatterDataType? {
        Clusters.attribute(cluster: cluster, id: attribute)?.type
    }

    /// The type of an attribute whose schema is unknown, from a value of it: unsigned and signed
    /// integers at 64 bits, structures by their tags, lists by their first element, null as any.
    public static func inferred(from element: TLVElement) -> MatterDataType {
        switch element.value {
        case .bool: return .bool
        case .unsigned: return .uint64
        case .signed: return .int64
        case .float: return .float
        case .double: return .double
        case .utf8: return .string
        case .bytes: return .bytes
        case .null: return .any
        case .container(.structure, let members):
            return .structure(members.compactMap { m in
                guard case .context(let tag) = m.tag else { return nil }
                return MatterField(String(tag), tag: tag, inferred(from: m), optional: true)
            })
        case .container(_, let members):
            return .list(members.first.map(inferred) ?? .any)
        }
    }
}
