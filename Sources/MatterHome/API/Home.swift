import MatterCertificates
import MatterClusters
import MatterCommissioning
import MatterServerAPI
import MatterSetupPayload
import MatterInteraction
import MatterTLV

/// The hub's home, opened on a state directory (the Linux counterpart of Google Home APIs'
/// app group): structures, rooms and devices, and the Matter commissioning flow.
///
/// ```swift
/// let home = try await Home.open(stateDirectory: dir)
/// let structure = try await home.structures()[0]
/// try await structure.prepareForMatterCommissioning()
/// let request = structure.matterCommissioningRequest(
///     topology: CommissioningTopology(ecosystemName: "MatterHub", homes: [.init(id: structure.id, name: structure.name)]),
///     onboardingPayload: "MT:...")
/// try await request.perform()
/// let added = try await structure.completeMatterCommissioning()
/// ```
public final class Home: Sendable {
    /// Where the home's calls run.
    public enum Mode: Sendable, Hashable, CustomStringConvertible {
        /// In this process, on the state directory (no hub serves it).
        case embedded
        /// Through the hub at this address (`unix:<state>/hub.sock`, `ws://host:port/ws`).
        case remote(String)

        public var description: String {
            switch self {
            case .embedded: "embedded"
            case .remote(let url): "through the hub at \(url)"
            }
        }
    }

    let backend: any HomeBackend

    init(backend: any HomeBackend) {
        self.backend = backend
    }

    /// A home over an existing hub in this process (tests inject DNS-SD through the hub).
    public convenience init(hub: Hub) {
        self.init(backend: EmbeddedBackend(hub: hub))
    }

    /// The in-process hub in embedded mode; nil when this home is a client of a running hub.
    public var hub: Hub? { (backend as? EmbeddedBackend)?.hub }

    public var mode: Home.Mode { backend.mode }

    /// The home of a state directory: through the hub that serves it when one runs (its
    /// owner-only Unix socket `<state>/hub.sock`), else in this process. A hub that holds the
    /// directory's lock but does not answer on its socket is an error (two writers would be wrong).
    public static func open(stateDirectory: String) async throws(HomeError) -> Home {
        if let remote = try await LocalHub.connect(stateDirectory: stateDirectory) { return Home(backend: remote) }
        return Home(hub: try Hub(stateDirectory: stateDirectory))
    }

    /// The home of a hub elsewhere: `ws://host:port/ws` (with its API token, 'matterctl hub
    /// token' on the hub's machine) or `unix:/path/hub.sock`.
    public static func connect(url: String, token: String? = nil) async throws(HomeError) -> Home {
        Home(backend: try await RemoteBackend.connect(url: url, token: token))
    }

    public func structures() async throws(HomeError) -> [Structure] {
        try await backend.structures().map { Structure(backend: backend, record: $0) }
    }

    /// Every commissioned device, with its room.
    public func devices() async throws(HomeError) -> [Device] {
        try await backend.devices().map { Device(backend: backend, record: $0.0, room: $0.1) }
    }

    public func device(_ nodeID: NodeID) async throws(HomeError) -> Device {
        guard let d = try await devices().first(where: { $0.id == nodeID }) else {
            throw HomeError(.deviceNotFound, "no device with node ID 0x\(nodeID.paddedHex) in this home (see 'matterctl devices')")
        }
        return d
    }

    public func close() async { await backend.close() }
}

/// A structure (a home) holding rooms; commissioning happens into a structure.
public final class Structure: Sendable {
    let backend: any HomeBackend
    public let id: StructureID
    public let name: String
    private let session = LockedValue<(any HomeCommissioningSession)?>(nil)

    init(backend: any HomeBackend, record: StructureRecord) {
        self.backend = backend
        id = record.id
        name = record.name
    }

    /// The in-process hub in embedded mode; nil through a hub.
    public var hub: Hub? { (backend as? EmbeddedBackend)?.hub }

    public func rooms() async throws(HomeError) -> [Room] {
        try await backend.rooms(in: id)
    }

    @discardableResult
    public func addRoom(name: String) async throws(HomeError) -> Room {
        try await backend.addRoom(name: name, in: id)
    }

    /// Checks that commissioning can start and takes the commissioning session: the caller can
    /// write the store, the hub is up (fabric loaded, avahi-daemon reachable), and no other
    /// commissioning session is active, in this process, another, or another client of the hub.
    public func prepareForMatterCommissioning() async throws(HomeError) {
        session.set(try await backend.beginCommissioning(in: id))
    }

    /// A commissioning request for this structure, to `perform()`. Through a hub, `options` is
    /// ignored: the hub attests with its own policy ('matterctl hub serve --paa-store ...').
    public func matterCommissioningRequest(topology: CommissioningTopology, onboardingPayload: String,
                                           options: CommissioningOptions? = nil) -> MatterCommissioningRequest {
        MatterCommissioningRequest(structure: self, topology: topology, onboarding: .payload(onboardingPayload), options: options)
    }

    /// A request for the device that opens with `setupPIN` alone: a device shared from another
    /// ecosystem, whose app shows only the passcode. Every device whose commissioning window is
    /// open is tried, the one at `address` only when given (``PINOnlySearch``), and the first
    /// that accepts the PIN is commissioned.
    public func matterCommissioningRequest(topology: CommissioningTopology, setupPIN: UInt32, address: String? = nil,
                                           options: CommissioningOptions? = nil) -> MatterCommissioningRequest {
        MatterCommissioningRequest(structure: self, topology: topology, onboarding: .setupPIN(setupPIN, address: address),
                                   options: options)
    }

    func activeSession() throws(HomeError) -> any HomeCommissioningSession {
        guard let s = session.get(), s.isActive else {
            throw HomeError(.noCommissioningSession, "call prepareForMatterCommissioning() first")
        }
        return s
    }

    /// Ends the session and returns the node IDs commissioned in it.
    public func completeMatterCommissioning() async throws(HomeError) -> [NodeID] {
        let s = try activeSession()
        let added = try await s.complete()
        session.set(nil)
        return added
    }

    /// Ends the session without keeping anything still in progress.
    public func cancelMatterCommissioning() async throws(HomeError) {
        let s = try activeSession()
        await s.cancel()
        session.set(nil)
    }
}

/// Which ecosystem is commissioning and into which homes (the Home APIs' topology).
public struct CommissioningTopology: Sendable {
    public struct HomeEntry: Sendable {
        public var id: StructureID
        public var name: String
        public init(id: StructureID, name: String) {
            self.id = id
            self.name = name
        }
    }
    public var ecosystemName: String
    public var homes: [HomeEntry]
    public init(ecosystemName: String, homes: [HomeEntry]) {
        self.ecosystemName = ecosystemName
        self.homes = homes
    }
}

/// One commissioning request: `perform()` commissions every device of the payload, or the one
/// device that accepts the setup PIN.
public final class MatterCommissioningRequest: Sendable {
    /// What names the devices to commission.
    public enum Onboarding: Sendable, Hashable {
        /// A QR code or manual pairing code (a QR code may name several devices).
        case payload(String)
        /// A setup PIN alone, and the device's address when known.
        case setupPIN(UInt32, address: String?)
    }

    public let structure: Structure
    public let topology: CommissioningTopology
    public let onboarding: Onboarding
    let options: CommissioningOptions?

    init(structure: Structure, topology: CommissioningTopology, onboarding: Onboarding, options: CommissioningOptions?) {
        self.structure = structure
        self.topology = topology
        self.onboarding = onboarding
        self.options = options
    }

    /// How many devices the request names, when that is known before it runs.
    public var deviceCount: Int? {
        switch onboarding {
        case .payload(let code): (try? SetupPayload.parse(code))?.count
        case .setupPIN: 1
        }
    }

    /// Commissions; `onStep` hears each step with its time (device index, step). Devices that
    /// fail are reported in the results; the call throws only when nothing could start.
    public func perform(name: String? = nil, room: Room? = nil,
                        onStep: @escaping @Sendable (Int, StepTiming) -> Void = { _, _ in }) async throws(HomeError)
        -> [Result<CommissionedDevice, CommissioningError>] {
        let session = try structure.activeSession()
        return try await session.perform(onboarding, name: name, room: room?.id, options: options, onStep: onStep)
    }
}

public struct Room: Sendable, Hashable {
    public let id: RoomID
    public let name: String
}

/// A commissioned device: its record, and control over CASE (from this process, or through the hub).
public struct Device: Sendable {
    let backend: any HomeBackend
    public let record: NodeRecord
    public let room: RoomRecord?

    init(backend: any HomeBackend, record: NodeRecord, room: RoomRecord?) {
        self.backend = backend
        self.record = record
        self.room = room
    }

    public var id: NodeID { record.nodeID }
    public var name: String { record.name }

    /// Reads one attribute (endpoint, cluster, attribute) over CASE.
    public func read(endpoint: UInt16, cluster: UInt32, attribute: UInt32) async throws(HomeError) -> TLVElement {
        let values = try await backend.read(record, endpoint: endpoint, cluster: cluster, attribute: attribute)
        guard let value = values.first, values.count == 1 else {
            throw HomeError(.deviceRefused, "\(name) answered \(values.count) values for \(endpoint)/\(cluster)/\(attribute)")
        }
        return value.value
    }

    /// Reads every attribute at a path with wildcards (nil: every endpoint, cluster or
    /// attribute), sorted by path. Paths the device cannot serve are left out.
    public func read(endpoint: UInt16?, cluster: UInt32?, attribute: UInt32?) async throws(HomeError) -> [AttributeValue] {
        try await backend.read(record, endpoint: endpoint, cluster: cluster, attribute: attribute)
    }

    /// Writes one attribute over CASE; `timedTimeoutMs` makes it a timed write (Matter Core
    /// 8.7.2), as attributes the model marks `requiresTimedWrite` need.
    public func write(endpoint: UInt16, cluster: UInt32, attribute: UInt32, value: TLVElement,
                      timedTimeoutMs: UInt16? = nil) async throws(HomeError) {
        try await backend.write(record, endpoint: endpoint, cluster: cluster, attribute: attribute, value: value,
                                timedTimeoutMs: timedTimeoutMs)
    }

    /// Invokes a command with fields over CASE and returns the response command's fields (nil
    /// when the device answered with a success status); a non-success status throws.
    /// `timedTimeoutMs` makes it a timed invoke, as commands the model marks
    /// `requiresTimedInvoke` need.
    @discardableResult
    public func invoke(endpoint: UInt16, cluster: UInt32, command: UInt32, fields: TLVElement = .structure([]),
                       timedTimeoutMs: UInt16? = nil) async throws(HomeError) -> TLVElement? {
        try await backend.invoke(record, endpoint: endpoint, cluster: cluster, command: command, fields: fields,
                                 timedTimeoutMs: timedTimeoutMs)
    }

    /// Reports of the attributes or events at `path` (nil parts are wildcards), the first with
    /// every current value, until the consumer stops. Embedded, this is a subscription of its own
    /// on the device with these intervals (seconds); through a hub, the hub's own subscription
    /// to the node (a device keeps only a few per fabric), whose intervals apply.
    public func subscribe(_ path: HubSubscriptionPath, minInterval: UInt16 = 0,
                          maxInterval: UInt16 = 60) -> AsyncThrowingStream<SubscriptionReport, any Error> {
        backend.subscribe(record, path, minInterval: minInterval, maxInterval: maxInterval)
    }

    /// Reads one attribute of the generated model (`Clusters.OnOff.id`, `Clusters.OnOff.Attribute.onOff`).
    public func read(endpoint: UInt16, _ cluster: ClusterID, _ attribute: AttributeID) async throws(HomeError) -> TLVElement {
        try await read(endpoint: endpoint, cluster: cluster.rawValue, attribute: attribute.rawValue)
    }

    /// Invokes a command of the generated model (`Clusters.command(cluster:name:)`) with its
    /// fields, timed when the spec requires it.
    @discardableResult
    public func invoke(endpoint: UInt16, _ command: ClusterCommand, fields: TLVElement = .structure([])) async throws(HomeError)
        -> TLVElement? {
        try await invoke(endpoint: endpoint, cluster: command.clusterID, command: command.id, fields: fields,
                         timedTimeoutMs: command.requiresTimedInvoke ? Self.defaultTimedTimeoutMs : nil)
    }

    /// How long a timed interaction the caller did not time itself may take (chip-tool's default
    /// is 10 s too).
    public static let defaultTimedTimeoutMs: UInt16 = 10_000

    /// Writes NodeLabel (BasicInformation) on the device.
    public func writeNodeLabel(_ label: String) async throws(HomeError) {
        try await write(endpoint: 0, cluster: Clusters.BasicInformation.id.rawValue,
                        attribute: Clusters.BasicInformation.Attribute.nodeLabel.rawValue, value: .utf8(label))
    }

    /// Removes the hub's fabric from the device (RemoveFabric with the fabric index the device
    /// gave us), then forgets the device. The device keeps its other fabrics.
    public func unpair() async throws(HomeError) {
        try await backend.unpair(record)
    }

    /// A commissioning window for another ecosystem (multi-admin): a fresh random passcode, a
    /// PAKE verifier (never the passcode) sent with OpenCommissioningWindow, and the codes the
    /// other ecosystem scans or types.
    public func share(timeoutSeconds: UInt16 = 300) async throws(HomeError) -> (qr: String, manual: String) {
        try await backend.share(record, timeoutSeconds: timeoutSeconds)
    }
}
