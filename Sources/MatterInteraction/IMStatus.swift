/// An Interaction Model status code (Matter Core 8.10.1).
///
/// An open set: codes this table does not name still round-trip and print as hex.
public struct IMStatus: RawRepresentable, Hashable, Sendable, Error, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = IMStatus(0x00)
    public static let failure = IMStatus(0x01)
    public static let invalidSubscription = IMStatus(0x7D)
    public static let unsupportedAccess = IMStatus(0x7E)
    public static let unsupportedEndpoint = IMStatus(0x7F)
    public static let invalidAction = IMStatus(0x80)
    public static let unsupportedCommand = IMStatus(0x81)
    public static let invalidCommand = IMStatus(0x85)
    public static let unsupportedAttribute = IMStatus(0x86)
    public static let constraintError = IMStatus(0x87)
    public static let unsupportedWrite = IMStatus(0x88)
    public static let resourceExhausted = IMStatus(0x89)
    public static let notFound = IMStatus(0x8B)
    public static let unreportableAttribute = IMStatus(0x8C)
    public static let invalidDataType = IMStatus(0x8D)
    public static let unsupportedRead = IMStatus(0x8F)
    public static let dataVersionMismatch = IMStatus(0x92)
    public static let timeout = IMStatus(0x94)
    public static let unsupportedNode = IMStatus(0x9B)
    public static let busy = IMStatus(0x9C)
    public static let accessRestricted = IMStatus(0x9D)
    public static let unsupportedCluster = IMStatus(0xC3)
    public static let noUpstreamSubscription = IMStatus(0xC5)
    public static let needsTimedInteraction = IMStatus(0xC6)
    public static let unsupportedEvent = IMStatus(0xC7)
    public static let pathsExhausted = IMStatus(0xC8)
    public static let timedRequestMismatch = IMStatus(0xC9)
    public static let failsafeRequired = IMStatus(0xCA)
    public static let invalidInState = IMStatus(0xCB)
    public static let noCommandResponse = IMStatus(0xCC)
    public static let termsAndConditionsChanged = IMStatus(0xCD)
    public static let maintenanceRequired = IMStatus(0xCE)
    public static let dynamicConstraintError = IMStatus(0xCF)
    public static let alreadyExists = IMStatus(0xD0)
    public static let invalidTransportType = IMStatus(0xD1)

    private static let table: [UInt8: (String, String)] = [
        0x00: ("Success", "the operation succeeded"),
        0x01: ("Failure", "the operation failed for an unspecified reason"),
        0x7D: ("InvalidSubscription", "the subscription ID is not active"),
        0x7E: ("UnsupportedAccess", "access denied: the requester lacks the privilege"),
        0x7F: ("UnsupportedEndpoint", "the endpoint does not exist on the node"),
        0x80: ("InvalidAction", "the message is malformed or not allowed in this interaction"),
        0x81: ("UnsupportedCommand", "the cluster does not support this command"),
        0x85: ("InvalidCommand", "the command fields are invalid"),
        0x86: ("UnsupportedAttribute", "the cluster does not have this attribute"),
        0x87: ("ConstraintError", "a value is out of its allowed range"),
        0x88: ("UnsupportedWrite", "the attribute is not writable"),
        0x89: ("ResourceExhausted", "the node ran out of resources for this request"),
        0x8B: ("NotFound", "the referenced item was not found"),
        0x8C: ("UnreportableAttribute", "the attribute cannot be reported"),
        0x8D: ("InvalidDataType", "the value has the wrong data type"),
        0x8F: ("UnsupportedRead", "the attribute is not readable"),
        0x92: ("DataVersionMismatch", "the cluster's data version did not match"),
        0x94: ("Timeout", "the interaction timed out"),
        0x9B: ("UnsupportedNode", "the node ID is not supported"),
        0x9C: ("Busy", "the node is busy; try again later"),
        0x9D: ("AccessRestricted", "access is restricted by the node's policy"),
        0xC3: ("UnsupportedCluster", "the endpoint does not have this cluster"),
        0xC5: ("NoUpstreamSubscription", "a proxy has no upstream subscription"),
        0xC6: ("NeedsTimedInteraction", "this action must be sent as a timed interaction"),
        0xC7: ("UnsupportedEvent", "the cluster does not have this event"),
        0xC8: ("PathsExhausted", "too many paths in the request"),
        0xC9: ("TimedRequestMismatch", "the timed flag does not match the preceding TimedRequest"),
        0xCA: ("FailsafeRequired", "the command needs an armed fail-safe"),
        0xCB: ("InvalidInState", "the command is not valid in the current state"),
        0xCC: ("NoCommandResponse", "the command produced no response"),
        0xCD: ("TermsAndConditionsChanged", "the terms and conditions changed"),
        0xCE: ("MaintenanceRequired", "the node needs maintenance"),
        0xCF: ("DynamicConstraintError", "a value violates a constraint that depends on state"),
        0xD0: ("AlreadyExists", "the item already exists"),
        0xD1: ("InvalidTransportType", "the transport type is not valid for this action"),
    ]

    /// The spec's name of the code, or nil for an unassigned code.
    public var name: String? { Self.table[rawValue]?.0 }
    /// A short human explanation of the code.
    public var message: String { Self.table[rawValue]?.1 ?? "unknown status" }
    public var isSuccess: Bool { self == .success }

    public var description: String {
        let hex = "0x" + String(rawValue, radix: 16, uppercase: true)
        return "\(name ?? "Status") (\(hex))"
    }
}
