import MatterTLV

/// What a command handler answers.
public enum CommandOutcome: Hashable, Sendable {
    /// A response command (its ID in the same cluster) with its fields.
    case response(CommandID, TLVElement)
    /// A status only (success for commands without a response command).
    case status(StatusIB)
}

/// The device behind an `InteractionServer`: it owns attribute values and command behaviour.
/// Paths given to it exist in the server's `DataModel`; it decides access and values.
public protocol InteractionDevice: Sendable {
    /// The value of one attribute, or the status that replaces it (e.g. UnsupportedAccess).
    func readAttribute(_ path: ConcreteAttributePath, fabricFiltered: Bool, context: IMSessionContext) async throws(IMStatus) -> TLVElement
    /// Writes one attribute (a whole value, or one item when `listIndex` is `.append`).
    func writeAttribute(_ path: ConcreteAttributePath, value: TLVElement, listIndex: ListIndex?, context: IMSessionContext) async throws(IMStatus)
    /// Runs one command; `path.endpoint` is set.
    func invokeCommand(_ path: CommandPathIB, fields: TLVElement?, context: IMSessionContext) async -> CommandOutcome
    /// The cluster's data version, for AttributeDataIB and DataVersionFilterIB.
    func dataVersion(_ endpoint: EndpointID, _ cluster: ClusterID) async -> UInt32?
}
