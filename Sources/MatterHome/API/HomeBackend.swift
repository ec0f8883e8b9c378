import MatterCommissioning
import MatterServerAPI
import MatterTLV

/// What `Home`, `Structure`, `Device` and `HomeMatterCommissioner` run on: the hub in this
/// process (``EmbeddedBackend``, over `Hub`) or a hub in another process reached over the Matter
/// Server API with MatterHub's `matterhub/...` commands (``RemoteBackend``). Both give the same
/// results and the same `HomeError`s (code and message).
protocol HomeBackend: Sendable {
    var mode: Home.Mode { get }
    func structures() async throws(HomeError) -> [StructureRecord]
    func rooms(in structure: StructureID) async throws(HomeError) -> [Room]
    func addRoom(name: String, in structure: StructureID) async throws(HomeError) -> Room
    /// Every device with its room.
    func devices() async throws(HomeError) -> [(NodeRecord, RoomRecord?)]
    /// Takes the hub's single commissioning session (across every client of the hub).
    func beginCommissioning(in structure: StructureID) async throws(HomeError) -> any HomeCommissioningSession

    /// Every value at the path; nil parts are wildcards. A concrete path the device cannot serve
    /// throws its status; a wildcard's expansion leaves such paths out.
    func read(_ node: NodeRecord, endpoint: UInt16?, cluster: UInt32?, attribute: UInt32?) async throws(HomeError) -> [AttributeValue]
    /// `timedTimeoutMs`: a timed write (Matter Core 8.7.2) that must arrive within that time.
    func write(_ node: NodeRecord, endpoint: UInt16, cluster: UInt32, attribute: UInt32, value: TLVElement,
               timedTimeoutMs: UInt16?) async throws(HomeError)
    /// The response command's fields, nil when the device answered with a success status.
    func invoke(_ node: NodeRecord, endpoint: UInt16, cluster: UInt32, command: UInt32, fields: TLVElement,
                timedTimeoutMs: UInt16?) async throws(HomeError) -> TLVElement?
    /// Reports of the values or events at `path` until the stream's consumer stops (or the
    /// device or hub goes away, which ends it with an error).
    func subscribe(_ node: NodeRecord, _ path: HubSubscriptionPath, minInterval: UInt16,
                   maxInterval: UInt16) -> AsyncThrowingStream<SubscriptionReport, any Error>
    func share(_ node: NodeRecord, timeoutSeconds: UInt16) async throws(HomeError) -> (qr: String, manual: String)
    func unpair(_ node: NodeRecord) async throws(HomeError)
    /// Names a device (NodeLabel on the device, and in the home) and puts it in the room called
    /// `roomName` (created when new).
    func configure(_ node: NodeID, name: String, roomName: String, in structure: StructureID) async throws(HomeError)
    /// The default attestation policy when a caller gives none (embedded: the state directory's
    /// trust store; remote: the hub's own, so nil).
    func defaultOptions() throws(HomeError) -> CommissioningOptions?
    func close() async
}

/// A commissioning session held by one client: perform any number of requests, then complete
/// or cancel.
protocol HomeCommissioningSession: Sendable {
    var isActive: Bool { get }
    func perform(_ onboarding: MatterCommissioningRequest.Onboarding, name: String?, room: RoomID?, options: CommissioningOptions?,
                 onStep: @escaping @Sendable (Int, StepTiming) -> Void) async throws(HomeError)
        -> [Result<CommissionedDevice, CommissioningError>]
    /// Ends the session; the node IDs it commissioned.
    func complete() async throws(HomeError) -> [NodeID]
    func cancel() async
}
