import MatterTLV

/// The fields of a cluster command (a request or a response), as a TLV structure.
public protocol CommandFields: TLVCodable where Failure == InteractionError {
    static var cluster: ClusterID { get }
    static var command: CommandID { get }
}

/// A request command with its typed response. Commands answered by a bare status use
/// `StatusOnlyResponse`.
public protocol CommandRequest: CommandFields {
    associatedtype Response: CommandFields
    /// Whether the spec requires a timed invoke for this command.
    static var requiresTimedInvoke: Bool { get }
}

extension CommandRequest {
    public static var requiresTimedInvoke: Bool { false }
}

extension CommandFields {
    /// The fields as an anonymous structure, ready for `CommandDataIB.fields`.
    public var fields: TLVElement { element(tag: .anonymous) }
}

/// The "response" of a command that answers with a status only (e.g. AddTrustedRootCertificate).
public struct StatusOnlyResponse: CommandFields {
    public static let cluster = ClusterID(0)
    public static let command = CommandID(0)
    public init() {}
    public init(element: TLVElement) throws(InteractionError) {}
    public func element(tag: TLVTag) -> TLVElement { .structure(tag, []) }
}

/// A command without fields.
public protocol EmptyCommandFields: CommandFields {
    init()
}

extension EmptyCommandFields {
    public init(element: TLVElement) throws(InteractionError) {
        _ = try FieldReader(element, .structure, "\(Self.self)")
        self.init()
    }
    public func element(tag: TLVTag) -> TLVElement { .structure(tag, []) }
}
