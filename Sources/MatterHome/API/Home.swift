import Foundation
import MatterCertificates
import MatterCommissioning
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
    public let hub: Hub

    /// A home over an existing hub (tests inject DNS-SD through the hub).
    public init(hub: Hub) {
        self.hub = hub
    }

    public static func open(stateDirectory: String) async throws(HomeError) -> Home {
        Home(hub: try Hub(stateDirectory: stateDirectory))
    }

    public func structures() async throws(HomeError) -> [Structure] {
        do {
            _ = try hub.store.defaultStructure()
            return try hub.store.structures().map { Structure(hub: hub, record: $0) }
        } catch {
            throw HomeError(.storeNotWritable, "cannot read the structures: \(error)")
        }
    }

    /// Every commissioned device, with its room.
    public func devices() async throws(HomeError) -> [Device] {
        do {
            let rooms = Dictionary(uniqueKeysWithValues: try hub.store.rooms().map { ($0.id, $0) })
            return try hub.store.nodes().map { Device(hub: hub, record: $0, room: $0.roomID.flatMap { rooms[$0] }) }
        } catch {
            throw HomeError(.storeNotWritable, "cannot read the devices: \(error)")
        }
    }

    public func device(_ nodeID: UInt64) async throws(HomeError) -> Device {
        guard let d = try await devices().first(where: { $0.id == nodeID }) else {
            throw HomeError(.deviceNotFound, String(format: "no device with node ID 0x%016llX in this home (see 'matterctl devices')", nodeID))
        }
        return d
    }

    public func close() async { await hub.shutdown() }
}

/// A structure (a home) holding rooms; commissioning happens into a structure.
public final class Structure: Sendable {
    public let hub: Hub
    public let id: StructureID
    public let name: String
    private let session = LockedValue<CommissioningSession?>(nil)

    init(hub: Hub, record: StructureRecord) {
        self.hub = hub
        id = record.id
        name = record.name
    }

    public func rooms() async throws(HomeError) -> [Room] {
        do { return try hub.store.rooms(in: id).map { Room(id: $0.id, name: $0.name) } } catch {
            throw HomeError(.storeNotWritable, "cannot read the rooms: \(error)")
        }
    }

    @discardableResult
    public func addRoom(name: String) async throws(HomeError) -> Room {
        do {
            let r = try hub.store.addRoom(name: name, in: id)
            return Room(id: r.id, name: r.name)
        } catch {
            throw HomeError(.storeNotWritable, "cannot add room '\(name)': \(error)")
        }
    }

    /// Checks that commissioning can start and takes the commissioning session: the caller can
    /// write the store, the hub is up (fabric loaded, avahi-daemon reachable), and no other
    /// commissioning session is active, in this process or another.
    public func prepareForMatterCommissioning() async throws(HomeError) {
        guard hub.store.canWrite() else {
            throw HomeError(.storeNotWritable, "the hub's state directory \(hub.stateDirectory) is not writable by this user")
        }
        _ = try await hub.fabric()
        try await hub.checkDiscovery()
        do {
            session.set(try hub.store.beginCommissioningSession(in: id))
        } catch {
            throw HomeError(.commissioningSessionActive, "another commissioning session is active: \(error)")
        }
    }

    /// A commissioning request for this structure, to `perform()`.
    public func matterCommissioningRequest(topology: CommissioningTopology, onboardingPayload: String,
                                           options: CommissioningOptions? = nil) -> MatterCommissioningRequest {
        MatterCommissioningRequest(structure: self, topology: topology, payload: onboardingPayload, options: options)
    }

    func activeSession() throws(HomeError) -> CommissioningSession {
        guard let s = session.get(), s.isActive else {
            throw HomeError(.noCommissioningSession, "call prepareForMatterCommissioning() first")
        }
        return s
    }

    /// Ends the session and returns the node IDs commissioned in it.
    public func completeMatterCommissioning() async throws(HomeError) -> [UInt64] {
        let s = try activeSession()
        do {
            try s.finish(.completed)
            let records = try hub.store.nodes().filter { $0.sessionID == s.id }
            session.set(nil)
            return records.map(\.nodeID.rawValue)
        } catch {
            throw HomeError(.storeNotWritable, "cannot complete the commissioning session: \(error)")
        }
    }

    /// Ends the session without keeping anything still in progress.
    public func cancelMatterCommissioning() async throws(HomeError) {
        let s = try activeSession()
        try? s.finish(.cancelled)
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

/// One commissioning request: `perform()` commissions every device of the payload.
public final class MatterCommissioningRequest: Sendable {
    public let structure: Structure
    public let topology: CommissioningTopology
    public let payload: String
    let options: CommissioningOptions?

    init(structure: Structure, topology: CommissioningTopology, payload: String, options: CommissioningOptions?) {
        self.structure = structure
        self.topology = topology
        self.payload = payload
        self.options = options
    }

    /// Commissions; `onStep` hears each step with its time (device index, step). Devices that
    /// fail are reported in the results; the call throws only when nothing could start.
    public func perform(name: String? = nil, room: Room? = nil,
                        onStep: @escaping @Sendable (Int, StepTiming) -> Void = { _, _ in }) async throws(HomeError)
        -> [Result<CommissioningResult, CommissioningError>] {
        let session = try structure.activeSession()
        try? session.markPerforming()
        let opts: CommissioningOptions
        if let options { opts = options } else { opts = try CommissioningOptions.defaultTrustStore(stateDirectory: structure.hub.stateDirectory) }
        return try await structure.hub.commission(code: payload, session: session, name: name, room: room?.id, options: opts,
                                                  onStep: onStep)
    }
}

public struct Room: Sendable, Hashable {
    public let id: RoomID
    public let name: String
}

/// A commissioned device: its record, and control over CASE.
public struct Device: Sendable {
    let hub: Hub
    public let record: NodeRecord
    public let room: RoomRecord?

    init(hub: Hub, record: NodeRecord, room: RoomRecord?) {
        self.hub = hub
        self.record = record
        self.room = room
    }

    public var id: UInt64 { record.nodeID.rawValue }
    public var name: String { record.name }

    /// Reads one attribute (endpoint, cluster, attribute) over CASE.
    public func read(endpoint: UInt16, cluster: UInt32, attribute: UInt32) async throws(HomeError) -> TLVElement {
        let client = try await hub.client(for: id)
        do {
            return try await client.readAttribute(ConcreteAttributePath(EndpointID(endpoint), ClusterID(cluster), AttributeID(attribute)))
        } catch {
            throw HomeError(.deviceRefused, "reading \(cluster)/\(attribute) from \(name) failed: \(error)")
        }
    }

    /// Invokes a command with fields over CASE; a non-success status throws.
    public func invoke(endpoint: UInt16, cluster: UInt32, command: UInt32, fields: TLVElement = .structure([])) async throws(HomeError) {
        let client = try await hub.client(for: id)
        do {
            let r = try await client.invoke(commandPath: CommandPathIB(EndpointID(endpoint), ClusterID(cluster), CommandID(command)),
                                            fields: fields)
            if case .status(let s) = r, let e = s.error(at: .command(CommandPathIB(EndpointID(endpoint), ClusterID(cluster), CommandID(command)))) {
                throw e
            }
        } catch let e as HomeError {
            throw e
        } catch {
            throw HomeError(.deviceRefused, "command \(cluster)/\(command) on \(name) failed: \(error)")
        }
    }

    /// Writes NodeLabel (BasicInformation) on the device.
    public func writeNodeLabel(_ label: String) async throws(HomeError) {
        let client = try await hub.client(for: id)
        do {
            try await client.writeAttribute(ConcreteAttributePath(0, Clusters.BasicInformation.id, Clusters.BasicInformation.Attribute.nodeLabel),
                                            value: .utf8(label))
        } catch {
            throw HomeError(.deviceRefused, "writing the name on \(name) failed: \(error)")
        }
    }
}
