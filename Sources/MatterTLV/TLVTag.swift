/// The tag of a TLV element (Matter Core A.7 and A.8).
///
/// Profile tags carry their number only; the encoded width (2 or 4 bytes, or the 6/8-byte
/// fully qualified forms) is chosen by the writer as the shortest that holds the number.
public enum TLVTag: Hashable, Sendable {
    /// No tag: members of arrays, top-level elements, list members.
    case anonymous
    /// A context-specific tag, the usual form inside Matter structures.
    case context(UInt8)
    /// A tag in the Matter common profile (profile 0).
    case commonProfile(UInt32)
    /// A tag in the implicit profile of the surrounding protocol.
    case implicitProfile(UInt32)
    /// A tag qualified by vendor and profile numbers.
    case fullyQualified(vendorID: UInt16, profile: UInt16, tag: UInt32)
}

extension TLVTag: CustomStringConvertible {
    public var description: String {
        switch self {
        case .anonymous: return "anonymous"
        case .context(let n): return "\(n)"
        case .commonProfile(let n): return "common:\(n)"
        case .implicitProfile(let n): return "implicit:\(n)"
        case .fullyQualified(let v, let p, let t): return "\(v):\(p):\(t)"
        }
    }
}

/// The tag-control field: the top three bits of an element's control byte.
enum TagControl: UInt8 {
    case anonymous = 0
    case context = 1
    case commonProfile2 = 2
    case commonProfile4 = 3
    case implicitProfile2 = 4
    case implicitProfile4 = 5
    case fullyQualified6 = 6
    case fullyQualified8 = 7

    /// The number of tag bytes that follow the control byte.
    var tagLength: Int {
        switch self {
        case .anonymous: return 0
        case .context: return 1
        case .commonProfile2, .implicitProfile2: return 2
        case .commonProfile4, .implicitProfile4: return 4
        case .fullyQualified6: return 6
        case .fullyQualified8: return 8
        }
    }
}
