import MatterTLV

/// The data type of a Matter value, as far as JSON <-> TLV conversion needs it (Matter Core 7.19):
/// which TLV element a JSON value becomes, and the range it must be in.
public indirect enum MatterDataType: Hashable, Sendable {
    case bool
    /// uint8...uint64, and the enums (enum8/16) and bitmaps (map8...map64) of that width.
    case unsigned(bits: Int)
    /// int8...int64.
    case signed(bits: Int)
    case float
    case double
    /// A UTF-8 character string.
    case string
    /// An octet string (base64 in JSON).
    case bytes
    case list(MatterDataType)
    case structure([MatterField])
    /// The value may also be null.
    case nullable(MatterDataType)
    /// No schema: integers become unsigned (signed when negative), strings UTF-8, objects with
    /// decimal keys structures, arrays arrays. Octet strings cannot be told from strings here.
    case any

    public static let uint8 = MatterDataType.unsigned(bits: 8)
    public static let uint16 = MatterDataType.unsigned(bits: 16)
    public static let uint32 = MatterDataType.unsigned(bits: 32)
    public static let uint64 = MatterDataType.unsigned(bits: 64)
    public static let int8 = MatterDataType.signed(bits: 8)
    public static let int16 = MatterDataType.signed(bits: 16)
    public static let int32 = MatterDataType.signed(bits: 32)
    public static let int64 = MatterDataType.signed(bits: 64)
    /// enum8 and map8 are uint8 on the wire.
    public static let enum8 = uint8
    public static let enum16 = uint16
    public static let map8 = uint8
    public static let map16 = uint16
    public static let map32 = uint32
    public static let fabricIndex = uint8

    /// The value a mandatory field takes when a payload leaves it out: zero, false, empty, null.
    package var defaultElement: TLVElement {
        switch self {
        case .bool: return .bool(false)
        case .unsigned: return TLVElement(.unsigned(0))
        case .signed: return TLVElement(.signed(0))
        case .float: return TLVElement(.float(0))
        case .double: return TLVElement(.double(0))
        case .string: return .utf8("")
        case .bytes: return .bytes([])
        case .list: return .array([])
        case .structure(let fields):
            return .structure(fields.filter { !$0.isOptional }.map { f in
                var e = f.type.defaultElement
                e.tag = .context(f.tag)
                return e
            })
        case .nullable, .any: return .null
        }
    }

    package var typeDescription: String {
        switch self {
        case .bool: return "a boolean"
        case .unsigned(let b) where b >= 64: return "a non-negative integer"
        case .unsigned(let b): return "an integer 0...\((UInt64(1) << UInt64(b)) - 1)"
        case .signed(let b) where b >= 64: return "an integer"
        case .signed(let b):
            let max = (Int64(1) << Int64(b - 1)) - 1
            return "an integer \(-max - 1)...\(max)"
        case .float, .double: return "a number"
        case .string: return "a string"
        case .bytes: return "a base64 string"
        case .list: return "a list"
        case .structure: return "an object"
        case .nullable(let t): return "\(t.typeDescription) or null"
        case .any: return "a JSON value"
        }
    }
}

/// One field of a structure or command: its name as the chip Python classes spell it, its
/// context tag, type, and whether it may be left out.
public struct MatterField: Hashable, Sendable {
    public var name: String
    public var tag: UInt8
    public var type: MatterDataType
    public var isOptional: Bool

    public init(_ name: String, tag: UInt8, _ type: MatterDataType, optional: Bool = false) {
        self.name = name
        self.tag = tag
        self.type = type
        self.isOptional = optional
    }
}

extension MatterDataType {
    /// The type as listings show it: "uint8" (an enum), "uint", "nullable<string>", "list<struct>".
    public var shortName: String {
        switch self {
        case .bool: return "bool"
        // The model's plain integers carry no width (the SDK's objects have none): 64 bits here.
        case .unsigned(let bits): return bits >= 64 ? "uint" : "uint\(bits)"
        case .signed(let bits): return bits >= 64 ? "int" : "int\(bits)"
        case .float: return "single"
        case .double: return "double"
        case .string: return "string"
        case .bytes: return "bytes"
        case .list(let inner): return "list<\(inner.shortName)>"
        case .structure: return "struct"
        case .nullable(let inner): return "nullable<\(inner.shortName)>"
        case .any: return "any"
        }
    }
}
