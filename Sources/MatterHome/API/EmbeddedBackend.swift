import MatterCertificates
import MatterClusters
import MatterCommissioning
import MatterInteraction
import MatterServerAPI
import MatterTLV

/// The Home API in this process: the store, the fabric and the sessions of a `Hub`.
struct EmbeddedBackend: HomeBackend {
    let hub: Hub

    var mode: Home.Mode { .embedded }

    func structures() async throws(HomeError) -> [StructureRecord] {
        do {
            _ = try hub.store.defaultStructure()
            return try hub.store.structures()
        } catch {
            throw HomeError("cannot read the structures", store: error)
        }
    }

    func rooms(in structure: StructureID) async throws(HomeError) -> [Room] {
        do { return try hub.store.rooms(in: structure).map { Room(id: $0.id, name: $0.name) } } catch {
            throw HomeError("cannot read the rooms", store: error)
        }
    }

    func addRoom(name: String, in structure: StructureID) async throws(HomeError) -> Room {
        do {
            let r = try hub.store.addRoom(name: name, in: structure)
            return Room(id: r.id, name: r.name)
        } catch {
            throw HomeError("cannot add room '\(name)'", store: error)
        }
    }

    func devices() async throws(HomeError) -> [(NodeRecord, RoomRecord?)] {
        do {
            let rooms = Dictionary(uniqueKeysWithValues: try hub.store.rooms().map { ($0.id, $0) })
            return try hub.store.nodes().map { ($0, $0.roomID.flatMap { rooms[$0] }) }
        } catch {
            throw HomeError("cannot read the devices", store: error)
        }
    }

    /// Checks that commissioning can start: the caller can write the store, the hub is up
    /// (fabric loaded, avahi-daemon reachable), and no other session is active, in this process
    /// or another.
    func beginCommissioning(in structure: StructureID) async throws(HomeError) -> any HomeCommissioningSession {
        guard hub.store.canWrite() else {
            throw HomeError(.storeNotWritable, "the hub's state directory \(hub.stateDirectory) is not writable by this user")
        }
        _ = try await hub.fabric()
        try await hub.checkDiscovery()
        do {
            return EmbeddedSession(hub: hub, session: try hub.store.beginCommissioningSession(in: structure))
        } catch {
            if case .commissioningSessionActive = error {
                throw HomeError(.commissioningSessionActive, "another commissioning session is active: \(error)", underlying: error)
            }
            throw HomeError("cannot start a commissioning session", store: error)
        }
    }

    func read(_ node: NodeRecord, endpoint: UInt16?, cluster: UInt32?, attribute: UInt32?) async throws(HomeError) -> [AttributeValue] {
        let client = try await hub.client(for: node.nodeID)
        let path = AttributePathIB(endpoint: endpoint.map { EndpointID($0) }, cluster: cluster.map { ClusterID($0) },
                                   attribute: attribute.map { AttributeID($0) })
        do {
            var values: [AttributeValue] = []
            for report in try await client.read(paths: [path]) {
                switch report.outcome {
                case .value(let v):
                    guard let p = report.path.concrete else { continue }
                    values.append(AttributeValue(endpoint: p.endpoint.rawValue, cluster: p.cluster.rawValue,
                                                 attribute: p.attribute.rawValue, value: v))
                case .status(let s):
                    if path.concrete != nil, let e = s.error(at: .attribute(report.path)) { throw e }
                }
            }
            return values.sorted()
        } catch {
            throw HomeError(Self.code(of: error), "reading \(path) from \(node.name) failed: \(error)", underlying: error)
        }
    }

    func write(_ node: NodeRecord, endpoint: UInt16, cluster: UInt32, attribute: UInt32, value: TLVElement,
               timedTimeoutMs: UInt16?) async throws(HomeError) {
        let client = try await hub.client(for: node.nodeID)
        do {
            try await client.writeAttribute(ConcreteAttributePath(EndpointID(endpoint), ClusterID(cluster), AttributeID(attribute)),
                                            value: value, timedTimeout: timedTimeoutMs)
        } catch {
            throw HomeError(Self.code(of: error), "writing \(cluster)/\(attribute) on \(node.name) failed: \(error)", underlying: error)
        }
    }

    func invoke(_ node: NodeRecord, endpoint: UInt16, cluster: UInt32, command: UInt32, fields: TLVElement,
                timedTimeoutMs: UInt16?) async throws(HomeError) -> TLVElement? {
        let client = try await hub.client(for: node.nodeID)
        let path = CommandPathIB(EndpointID(endpoint), ClusterID(cluster), CommandID(command))
        do {
            switch try await client.invoke(commandPath: path, fields: fields, timedTimeout: timedTimeoutMs) {
            case .status(let s):
                if let e = s.error(at: .command(path)) { throw e }
                return nil
            case .response(let data):
                return data.fields ?? .structure([])
            }
        } catch {
            throw HomeError(Self.code(of: error), "command \(cluster)/\(command) on \(node.name) failed: \(error)", underlying: error)
        }
    }

    func share(_ node: NodeRecord, timeoutSeconds: UInt16) async throws(HomeError) -> (qr: String, manual: String) {
        try await hub.share(node, timeoutSeconds: timeoutSeconds)
    }

    func unpair(_ node: NodeRecord) async throws(HomeError) {
        try await hub.unpair(node)
    }

    func configure(_ node: NodeID, name: String, roomName: String, in structure: StructureID) async throws(HomeError) {
        let room = try await self.room(named: roomName, in: structure)
        guard let record = try? hub.store.node(node) else {
            throw HomeError(.deviceNotFound, "no device with node ID \(node.rawValue) in this home (see 'matterctl devices')")
        }
        try await write(record, endpoint: 0, cluster: Clusters.BasicInformation.id.rawValue,
                        attribute: Clusters.BasicInformation.Attribute.nodeLabel.rawValue, value: .utf8(name), timedTimeoutMs: nil)
        do {
            try hub.store.renameNode(node, to: name)
            try hub.store.assignNode(node, to: room.id)
        } catch {
            throw HomeError("cannot record the name and room", store: error)
        }
    }

    /// A device that did not answer is unreachable; one that answered with an error refused.
    static func code(of error: any Error) -> HomeError.Code {
        if case InteractionError.exchangeFailed = error { return .deviceUnreachable }
        return .deviceRefused
    }

    func defaultOptions() throws(HomeError) -> CommissioningOptions? {
        try CommissioningOptions.defaultTrustStore(stateDirectory: hub.stateDirectory)
    }

    func close() async { await hub.shutdown() }
}

/// The commissioning session of the store (the cross-process lock), with the hub that commissions.
final class EmbeddedSession: HomeCommissioningSession {
    let hub: Hub
    let session: CommissioningSession

    init(hub: Hub, session: CommissioningSession) {
        self.hub = hub
        self.session = session
    }

    var isActive: Bool { session.isActive }

    func perform(_ onboarding: MatterCommissioningRequest.Onboarding, name: String?, room: RoomID?,
                 options: CommissioningOptions?, onStep: @escaping @Sendable (Int, StepTiming) -> Void) async throws(HomeError)
        -> [Result<CommissionedDevice, CommissioningError>] {
        try? session.markPerforming()
        let opts: CommissioningOptions
        if let options { opts = options } else { opts = try CommissioningOptions.defaultTrustStore(stateDirectory: hub.stateDirectory) }
        let (hub, session) = (self.hub, self.session)
        @Sendable func commission(_ code: String, _ opts: CommissioningOptions) async throws(HomeError)
            -> [Result<CommissionedDevice, CommissioningError>] {
            try await hub.commission(code: code, session: session, name: name, room: room, options: opts, onStep: onStep)
                .map { $0.map(CommissionedDevice.init) }
        }
        switch onboarding {
        case .payload(let code):
            return try await commission(code, opts)
        case .setupPIN(let pin, let address):
            let search: PINOnlySearch
            do { search = try PINOnlySearch(pin: pin, address: address) } catch { return [.failure(error)] }
            let result = try await search.run(finder: DeviceFinder(discovery: hub.discovery), timeout: opts.discoveryTimeout) {
                code, candidate throws(HomeError) in
                // (a code for one device gives one result)
                try await commission(code, PINOnlySearch.attemptOptions(opts)).first ?? .failure(CommissioningError(
                    step: .discovery, device: "\(candidate)", code: .deviceNotFound, reason: "no result", hint: "Retry."))
            }
            return [result]
        }
    }

    func complete() async throws(HomeError) -> [NodeID] {
        do {
            try session.finish(.completed)
            return try hub.store.nodes().filter { $0.sessionID == session.id }.map(\.nodeID)
        } catch {
            throw HomeError("cannot complete the commissioning session", store: error)
        }
    }

    func cancel() async { try? session.finish(.cancelled) }
}
