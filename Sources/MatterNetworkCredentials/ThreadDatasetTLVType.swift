/// The type byte of a MeshCoP TLV in a Thread operational dataset (Thread 1.3, 8.10). An open
/// set: types this module does not interpret are kept as `ThreadDataset.unknownTLVs`.
public struct ThreadDatasetTLVType: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let channel = Self(0)
    public static let panID = Self(1)
    public static let extendedPANID = Self(2)
    public static let networkName = Self(3)
    public static let pskc = Self(4)
    public static let networkKey = Self(5)
    public static let meshLocalPrefix = Self(7)
    public static let securityPolicy = Self(12)
    public static let activeTimestamp = Self(14)
    public static let pendingTimestamp = Self(51)
    public static let delayTimer = Self(52)
    public static let channelMask = Self(53)
    public static let wakeUpChannel = Self(74)

    /// The types this module decodes, in the order OpenThread writes a new dataset (pending
    /// timestamp and delay timer after the active timestamp, wake-up channel after the channel).
    static let canonicalOrder: [ThreadDatasetTLVType] = [
        .activeTimestamp, .pendingTimestamp, .delayTimer, .channel, .wakeUpChannel, .channelMask,
        .extendedPANID, .meshLocalPrefix, .networkKey, .networkName, .panID, .pskc, .securityPolicy,
    ]

    /// Whether this module decodes the type (the others are kept as unknown TLVs).
    public var isKnown: Bool { Self.canonicalOrder.contains(self) }

    /// The name used in errors, e.g. "channel TLV (type 0)".
    public var description: String {
        let name: String
        switch self {
        case .channel: name = "channel"
        case .panID: name = "PAN ID"
        case .extendedPANID: name = "extended PAN ID"
        case .networkName: name = "network name"
        case .pskc: name = "PSKc"
        case .networkKey: name = "network key"
        case .meshLocalPrefix: name = "mesh-local prefix"
        case .securityPolicy: name = "security policy"
        case .activeTimestamp: name = "active timestamp"
        case .pendingTimestamp: name = "pending timestamp"
        case .delayTimer: name = "delay timer"
        case .channelMask: name = "channel mask"
        case .wakeUpChannel: name = "wake-up channel"
        default: return "TLV type \(rawValue)"
        }
        return "\(name) TLV (type \(rawValue))"
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One TLV kept as it was received (a type this module does not interpret).
public struct ThreadDatasetTLV: Sendable, Hashable {
    public var type: ThreadDatasetTLVType
    public var value: [UInt8]
    public init(type: ThreadDatasetTLVType, value: [UInt8]) {
        self.type = type
        self.value = value
    }
}
