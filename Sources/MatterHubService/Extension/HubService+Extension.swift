import MatterCertificates
#if canImport(Glibc)
import Glibc
#endif
import MatterHome
import MatterMessaging
import MatterPlatform
import MatterQRCode
import MatterServerAPI
import MatterTLV

/// MatterHub's own commands (docs/matterhub-api.md) over the Home API: structures and rooms,
/// devices with name and room, read/write/invoke with exact TLV, share, unpair, discovery. Errors are
/// the Home API's, carried whole (``HubAPIError``).
extension HubService: HubExtensionBackend {
    public func handle(_ command: HubCommand, context: HubRequestContext) async throws(HubAPIError) -> JSONValue {
        do throws(HomeError) {
            switch command {
            case .enable:
                return .object(["api_version": .integer(HubCommand.apiVersion), "state_directory": .string(await hub.stateDirectory),
                                "pid": .integer(getpid())])
            case .hubStatus:
                return await status().json
            case .structures:
                return .array(try await home.structures().map { HubStructure(id: $0.id.rawValue, name: $0.name).json })
            case .rooms(let id):
                let structure = try await structure(id)
                return .array(try await structure.rooms().map { HubRoom($0, in: structure).json })
            case .addRoom(let name, let id):
                let structure = try await structure(id)
                let room = HubRoom(try await structure.addRoom(name: name), in: structure)
                extensionState.publish(.roomAdded(room))
                return room.json
            case .devices:
                var out: [JSONValue] = []
                for device in try await home.devices() { out.append(await record(device).json) }
                return .array(out)
            case .configureDevice(let id, let name, let roomID, let roomName):
                return try await configure(id, name: name, roomID: roomID, roomName: roomName).json
            case .prepareCommissioning(let id):
                try await prepareCommissioning(id, connection: context.connectionID)
                return .object([:])
            case .performCommissioning(let payload, let pin, let ipAddress, let name, let roomID, let ecosystem):
                let onboarding: MatterCommissioningRequest.Onboarding
                if let payload { onboarding = .payload(payload) } else { onboarding = .setupPIN(pin ?? 0, address: ipAddress) }
                return try await performCommissioning(onboarding, name: name, roomID: roomID, ecosystem: ecosystem,
                                                      connection: context.connectionID)
            case .completeCommissioning:
                return .object(["node_ids": .array(try await completeCommissioning(connection: context.connectionID).map { .integer($0) })])
            case .cancelCommissioning:
                try await cancelCommissioning(connection: context.connectionID)
                return .object([:])
            case .read(let id, let endpoint, let cluster, let attribute):
                let values = try await home.device(NodeID(id)).read(endpoint: endpoint, cluster: cluster, attribute: attribute)
                var result = JSONObject()
                // A concrete path's value also as "tlv" alone, as API version 1 answered it.
                if endpoint != nil, cluster != nil, attribute != nil, let only = values.first {
                    result.append("tlv", .string(Base16.encode(TLVWriter.encode(only.value))))
                }
                result.append("attributes", .array(values.map { v in
                    .object(["endpoint": .integer(v.endpoint), "cluster": .integer(v.cluster), "attribute": .integer(v.attribute),
                             "tlv": .string(Base16.encode(TLVWriter.encode(v.value)))])
                }))
                return .object(result)
            case .write(let id, let endpoint, let cluster, let attribute, let value, let timed):
                try await home.device(NodeID(id)).write(endpoint: endpoint, cluster: cluster, attribute: attribute, value: value,
                                                        timedTimeoutMs: timed)
                return .object([:])
            case .invoke(let id, let endpoint, let cluster, let commandID, let fields, let timed):
                let response = try await home.device(NodeID(id)).invoke(endpoint: endpoint, cluster: cluster, command: commandID,
                                                                        fields: fields, timedTimeoutMs: timed)
                return .object(response.map { ["response_tlv": .string(Base16.encode(TLVWriter.encode($0)))] } ?? [:])
            case .share(let id, let timeout):
                let codes = try await home.device(NodeID(id)).share(timeoutSeconds: timeout)
                // The QR code drawn here (libqrencode), so the dashboard needs no encoder of its own.
                let svg = (try? QRCode(codes.qr).svg()).map { JSONValue.string($0) } ?? .null
                return .object(["qr": .string(codes.qr), "manual": .string(codes.manual), "qr_svg": svg])
            case .unpair(let id):
                try await unpair(id)
                return .object([:])
            case .importHome(let kind, let path, let fabricID, let confirm):
                return try await importHome(kind, path: path, fabricID: fabricID, confirm: confirm, connection: context.connectionID)
            case .deviceHistory(let id, let limit):
                _ = try await home.device(NodeID(id))  // deviceNotFound for an unknown node
                let events: [ConnectivityEvent]
                do { events = try hub.store.connectivityHistory(of: NodeID(id), limit: limit) } catch {
                    throw HomeError("cannot read node \(id)'s connectivity history", store: error)
                }
                return .array(events.map { e in
                    .object(["at": .string(NodeDataBuilder.isoTimestamp(e.at) + "Z"), "available": .bool(e.available), "reason": .string(e.reason)])
                })
            case .subscribe(let id, let path):
                _ = try await home.device(NodeID(id))  // deviceNotFound for an unknown node
                let ended = reportSubscriptions.follow(connection: context.connectionID, requestID: context.messageID, nodeID: id,
                                                       path: path, send: context.send)
                // The first report: every current value at the path, from the node's cache (a
                // change meanwhile comes after it, as its own report).
                let current = path.kind == .attribute ? ReportSubscriptions.matching(await runtime.attributes(of: NodeID(id)), path) : []
                context.send(.report(HubReport(requestID: context.messageID, nodeID: id, attributes: current, events: [])))
                for await _ in ended {}
                return .object([:])
            case .discover(let seconds):
                return .array(await discoverCommissionable(for: seconds) { node in
                    context.send(.discovered(requestID: context.messageID, node: node))
                })
            }
        } catch {
            throw HubAPIError(error)
        }
    }

    public func connectionClosed(_ connectionID: UInt64) async {
        await endClientSubscriptions(of: connectionID)
        reportSubscriptions.end(connection: connectionID)
        if let structure = extensionState.releaseSession(of: connectionID) {
            try? await structure.cancelMatterCommissioning()
        }
    }

    /// Where extension events go (the API server); set once it exists.
    public func setHubEventSink(_ publish: @escaping @Sendable (HubEvent) -> Void) { extensionState.setSink(publish) }

    /// The addresses clients reach the hub at, and its live connection count, for `hub_status`.
    public func setServerDetails(addresses: [String], connections: @escaping @Sendable () -> Int) {
        extensionState.details.withLock { $0 = .init(addresses: addresses, connections: connections) }
    }

    func status() async -> HubStatus {
        let records = (try? hub.store.nodes()) ?? []
        var available = 0
        for r in records where await runtime.isAvailable(r.nodeID) { available += 1 }
        let details = extensionState.details.withLock { $0 }
        var messaging: HubMessagingStatus?
        if let manager = try? await hub.messaging() {
            let (held, done) = (await manager.occupancy, await manager.statistics)
            messaging = HubMessagingStatus(secureSessions: held.secureSessions, unsecuredSessions: held.unsecuredSessions,
                                           exchanges: held.exchanges, reservedSessionIDs: held.reservedSessionIDs,
                                           unacknowledged: held.unacknowledged, sent: done.sent, received: done.received,
                                           retransmitted: done.retransmitted)
        }
        let memory = ProcessMemory.current()
        return HubStatus(pid: Int(getpid()), stateDirectory: await hub.stateDirectory, addresses: details.addresses, nodes: records.count,
                         available: available, uptimeSeconds: (ContinuousClock.now - extensionState.started).milliseconds / 1000,
                         connections: details.connections(), messaging: messaging,
                         memory: HubMemoryStatus(residentKB: memory.residentKB, residentAnonymousKB: memory.residentAnonymousKB,
                                                 heapInUseKB: memory.heapInUseKB, heapFreeKB: memory.heapFreeKB,
                                                 sqliteKB: HubStore.sqliteMemoryKB))
    }

    /// The structure with `id`, or the first one.
    func structure(_ id: Int64?) async throws(HomeError) -> Structure {
        let all = try await home.structures()
        guard let structure = id.map({ id in all.first { $0.id.rawValue == id } }) ?? all.first else {
            throw HomeError(.structureNotFound, id.map { "no structure with id \($0) in this home (matterhub/structures lists them)" }
                            ?? "the home has no structure")
        }
        return structure
    }

    func record(_ device: Device) async -> HubDevice {
        HubDevice(nodeID: device.id.rawValue, name: device.name, roomID: device.room?.id.rawValue, room: device.room?.name,
                  available: await runtime.isAvailable(device.record.nodeID), vendorID: device.record.vendorID,
                  productID: device.record.productID,
                  addresses: device.record.addresses.map { .init(host: $0.host, port: $0.port, interfaceIndex: $0.interfaceIndex) },
                  commissionedAt: NodeDataBuilder.isoTimestamp(device.record.commissionedAt) + "Z",
                  connection: Self.connection(await runtime.connection(of: device.record.nodeID)))
    }

    static func connection(_ c: NodeConnection) -> HubDevice.Connection {
        switch c {
        case .stopped: HubDevice.Connection(state: "stopped")
        case .live: HubDevice.Connection(state: "live")
        case .connecting(let attempt): HubDevice.Connection(state: "connecting", attempt: attempt)
        case .retrying(let at, let attempt):
            HubDevice.Connection(state: "retrying", attempt: attempt, retryAt: NodeDataBuilder.isoTimestamp(at) + "Z")
        case .asleep(let next, let missed):
            HubDevice.Connection(state: "asleep", nextCheckIn: NodeDataBuilder.isoTimestamp(next) + "Z", missedCheckIns: missed)
        }
    }

    /// The device's current record, announced to extension clients.
    func announceDevice(_ nodeID: UInt64) async {
        if let device = try? await home.device(NodeID(nodeID)) { extensionState.publish(.deviceUpdated(await record(device))) }
    }

    /// Names the device (NodeLabel written on it first) and moves it to a room.
    func configure(_ nodeID: UInt64, name: String?, roomID: Int64?, roomName: String?) async throws(HomeError) -> HubDevice {
        let device = try await home.device(NodeID(nodeID))
        var room: RoomID?
        if let roomID {
            guard let found = ((try? hub.store.rooms()) ?? []).first(where: { $0.id.rawValue == roomID }) else {
                throw HomeError(.roomNotFound, "no room with id \(roomID) in this home (matterhub/rooms lists them)")
            }
            room = found.id
        } else if let roomName {
            let structure = try await structure(device.room?.structureID.rawValue)
            if let existing = try await structure.rooms().first(where: { $0.name.lowercased() == roomName.lowercased() }) {
                room = existing.id
            } else {
                let created = try await structure.addRoom(name: roomName)
                extensionState.publish(.roomAdded(HubRoom(created, in: structure)))
                room = created.id
            }
        }
        if let name { try await device.writeNodeLabel(name) }
        do {
            if let name { try hub.store.renameNode(device.record.nodeID, to: name) }
            if let room { try hub.store.assignNode(device.record.nodeID, to: room) }
        } catch {
            throw HomeError("cannot record the name and room", store: error)
        }
        let updated = await record(try await home.device(NodeID(nodeID)))
        extensionState.publish(.deviceUpdated(updated))
        return updated
    }

    /// RemoveFabric on the device, then the hub forgets it (an unreachable device stays).
    func unpair(_ nodeID: UInt64) async throws(HomeError) {
        let device = try await home.device(NodeID(nodeID))
        try await device.unpair()
        await runtime.remove(device.record.nodeID)
        publish(.nodeRemoved(nodeID: nodeID))
        extensionState.publish(.deviceRemoved(nodeID: nodeID))
    }
}

extension HubRoom {
    init(_ room: Room, in structure: Structure) {
        self.init(id: room.id.rawValue, name: room.name, structureID: structure.id.rawValue)
    }
}
