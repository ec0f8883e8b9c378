import MatterCommissioning
import MatterServerAPI
import MatterTLV
import MatterWebSocket

/// The Home API as a client of a running hub: each call is one `matterhub/...` command on the
/// hub's WebSocket (docs/matterhub-api.md); the hub runs it on its embedded home, so results and
/// errors are those of embedded mode.
struct RemoteBackend: HomeBackend {
    let connection: HubConnection

    var mode: Home.Mode { .remote(connection.url) }

    static func connect(url: String, token: String?) async throws(HomeError) -> RemoteBackend {
        var target: WebSocketURL
        do { target = try WebSocketURL(url) } catch { throw HomeError(.hubUnavailable, "\(error)") }
        if let token { target = target.adding(token: token) }
        return RemoteBackend(connection: try await HubConnection.open(target))
    }

    func structures() async throws(HomeError) -> [StructureRecord] {
        var out: [StructureRecord] = []
        for s in try RemoteRecords.list(try await connection.call(.structures), "structure list") {
            out.append(RemoteRecords.structure(try RemoteRecords.decode("structure") { () throws(APIError) in try HubStructure(json: s) }))
        }
        return out
    }

    func roomRecords(in structure: StructureID) async throws(HomeError) -> [RoomRecord] {
        var out: [RoomRecord] = []
        let result = try await connection.call(.rooms(structureID: structure.rawValue))
        for r in try RemoteRecords.list(result, "room list") {
            out.append(RemoteRecords.room(try RemoteRecords.decode("room") { () throws(APIError) in try HubRoom(json: r) }))
        }
        return out
    }

    func rooms(in structure: StructureID) async throws(HomeError) -> [Room] {
        try await roomRecords(in: structure).map { Room(id: $0.id, name: $0.name) }
    }

    func addRoom(name: String, in structure: StructureID) async throws(HomeError) -> Room {
        let r = try await connection.call(.addRoom(name: name, structureID: structure.rawValue))
        let room = RemoteRecords.room(try RemoteRecords.decode("room") { () throws(APIError) in try HubRoom(json: r) })
        return Room(id: room.id, name: room.name)
    }

    func devices() async throws(HomeError) -> [(NodeRecord, RoomRecord?)] {
        let list = try RemoteRecords.list(try await connection.call(.devices), "device list")
        let devices = try list.map { raw throws(HomeError) in
            try RemoteRecords.decode("device") { () throws(APIError) in try HubDevice(json: raw) }
        }
        var rooms: [RoomID: RoomRecord] = [:]
        if devices.contains(where: { $0.roomID != nil }) {
            for s in try await structures() {
                for r in try await roomRecords(in: s.id) { rooms[r.id] = r }
            }
        }
        return try devices.map { d throws(HomeError) in try RemoteRecords.device(d, rooms: rooms) }
    }

    func beginCommissioning(in structure: StructureID) async throws(HomeError) -> any HomeCommissioningSession {
        _ = try await connection.call(.prepareCommissioning(structureID: structure.rawValue))
        return RemoteSession(connection: connection)
    }

    func read(_ node: NodeRecord, endpoint: UInt16?, cluster: UInt32?, attribute: UInt32?) async throws(HomeError) -> [AttributeValue] {
        let r = try await connection.call(.read(nodeID: node.nodeID.rawValue, endpoint: endpoint, cluster: cluster, attribute: attribute))
        guard let list = r["attributes"]?.array else { throw RemoteRecords.malformed("attribute values") }
        var values: [AttributeValue] = []
        for item in list {
            guard let e = item["endpoint"]?.uint64, let c = item["cluster"]?.uint64, let a = item["attribute"]?.uint64,
                  let hex = item["tlv"]?.string, let bytes = Base16.decode(hex), let element = try? TLVDecoder.decode(bytes) else {
                throw RemoteRecords.malformed("attribute value")
            }
            values.append(AttributeValue(endpoint: UInt16(truncatingIfNeeded: e), cluster: UInt32(truncatingIfNeeded: c),
                                         attribute: UInt32(truncatingIfNeeded: a), value: element))
        }
        return values
    }

    func write(_ node: NodeRecord, endpoint: UInt16, cluster: UInt32, attribute: UInt32, value: TLVElement,
               timedTimeoutMs: UInt16?) async throws(HomeError) {
        _ = try await connection.call(.write(nodeID: node.nodeID.rawValue, endpoint: endpoint, cluster: cluster, attribute: attribute,
                                             value: value, timedTimeoutMs: timedTimeoutMs))
    }

    func invoke(_ node: NodeRecord, endpoint: UInt16, cluster: UInt32, command: UInt32, fields: TLVElement,
                timedTimeoutMs: UInt16?) async throws(HomeError) -> TLVElement? {
        let r = try await connection.call(.invoke(nodeID: node.nodeID.rawValue, endpoint: endpoint, cluster: cluster, command: command,
                                                  fields: fields, timedTimeoutMs: timedTimeoutMs))
        guard let hex = r["response_tlv"]?.string else { return nil }
        guard let bytes = Base16.decode(hex), let element = try? TLVDecoder.decode(bytes) else {
            throw RemoteRecords.malformed("command response")
        }
        return element
    }

    /// The hub's reports (`matterhub/subscribe`): the call stays open, each report an event to it.
    func subscribe(_ node: NodeRecord, _ path: HubSubscriptionPath, minInterval: UInt16,
                   maxInterval: UInt16) -> AsyncThrowingStream<SubscriptionReport, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: SubscriptionReport.self, throwing: (any Error).self)
        let connection = self.connection
        let task = Task {
            do throws(HomeError) {
                _ = try await connection.call(.subscribe(nodeID: node.nodeID.rawValue, path: path),
                                              timeout: .seconds(10 * 365 * 86_400)) { messageID, event, data in
                    guard event == HubEvent.Name.report.rawValue, let decoded = try? HubEvent.decode(name: event, data: data),
                          case .report(let r) = decoded, r.requestID == messageID else { return }
                    continuation.yield(SubscriptionReport(r))
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    func share(_ node: NodeRecord, timeoutSeconds: UInt16) async throws(HomeError) -> (qr: String, manual: String) {
        let r = try await connection.call(.share(nodeID: node.nodeID.rawValue, timeoutSeconds: timeoutSeconds))
        guard let qr = r["qr"]?.string, let manual = r["manual"]?.string else { throw RemoteRecords.malformed("sharing codes") }
        return (qr, manual)
    }

    func unpair(_ node: NodeRecord) async throws(HomeError) {
        _ = try await connection.call(.unpair(nodeID: node.nodeID.rawValue))
    }

    func configure(_ node: NodeID, name: String, roomName: String, in structure: StructureID) async throws(HomeError) {
        _ = try await connection.call(.configureDevice(nodeID: node.rawValue, name: name, roomID: nil, roomName: roomName))
    }

    func defaultOptions() throws(HomeError) -> CommissioningOptions? { nil }

    func close() async { await connection.close() }
}

/// The commissioning session this connection holds on the hub (the hub cancels it if the
/// connection drops).
final class RemoteSession: HomeCommissioningSession {
    let connection: HubConnection
    private let active = LockedValue(true)

    init(connection: HubConnection) { self.connection = connection }

    var isActive: Bool { active.get() && connection.isOpen }

    func perform(_ onboarding: MatterCommissioningRequest.Onboarding, name: String?, room: RoomID?,
                 options: CommissioningOptions?, onStep: @escaping @Sendable (Int, StepTiming) -> Void) async throws(HomeError)
        -> [Result<CommissionedDevice, CommissioningError>] {
        let command: HubCommand = switch onboarding {
        case .payload(let payload):
            .performCommissioning(onboardingPayload: payload, setupPINCode: nil, ipAddress: nil, name: name, roomID: room?.rawValue,
                                  ecosystemName: nil)
        case .setupPIN(let pin, let address):
            .performCommissioning(onboardingPayload: nil, setupPINCode: pin, ipAddress: address, name: name, roomID: room?.rawValue,
                                  ecosystemName: nil)
        }
        // The hub names its request in commissioning_started; only one session runs at a time on a
        // hub and this connection holds it, so the MatterHub request that starts during this call is ours.
        let request = LockedValue<String?>(nil)
        let result = try await connection.call(command, timeout: .seconds(600)) { id, event, data in
            switch HubEvent.Name(rawValue: event) {
            case .commissioningStarted?:
                if data["source"]?.string == HubEvent.Source.matterhub.rawValue, request.get() == nil {
                    request.set(data["request_id"]?.string)
                }
            case .commissioningStep?:
                guard let step = try? HubCommissioningStep(json: data), step.requestID == request.get() || step.requestID == id,
                      let (device, timing) = RemoteRecords.step(step) else { return }
                onStep(device, timing)
            default: break
            }
        }
        var out: [Result<CommissionedDevice, CommissioningError>] = []
        for raw in try RemoteRecords.list(result["results"], "commissioning result") {
            let o = try RemoteRecords.decode("device outcome") { () throws(APIError) in try HubDeviceOutcome(json: raw) }
            out.append(try RemoteRecords.outcome(o))
        }
        return out
    }

    func complete() async throws(HomeError) -> [NodeID] {
        let r = try await connection.call(.completeCommissioning)
        active.set(false)
        guard let ids = r["node_ids"]?.array?.compactMap(\.uint64) else { throw RemoteRecords.malformed("completion") }
        return ids.map(NodeID.init(rawValue:))
    }

    func cancel() async {
        _ = try? await connection.call(.cancelCommissioning)
        active.set(false)
    }
}
