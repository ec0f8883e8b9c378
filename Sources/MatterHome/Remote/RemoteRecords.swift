import FoundationEssentials
import MatterCertificates
import MatterCommissioning
import MatterServerAPI
import MatterTLV

/// The records of `matterhub/...` results (MatterServerAPI's `Hub...` types), read back into
/// the Home API's types. A result without the expected shape is `hubUnavailable`, naming it.
enum RemoteRecords {
    static func malformed(_ what: String, _ why: String = "") -> HomeError {
        HomeError(.hubUnavailable, "the hub sent a malformed \(what)\(why.isEmpty ? "" : " (\(why))"); "
                  + "is it the same MatterHub version as this client?")
    }

    /// Decodes with one of MatterServerAPI's strict readers.
    static func decode<T>(_ what: String, _ body: () throws(APIError) -> T) throws(HomeError) -> T {
        do { return try body() } catch { throw malformed(what, error.details) }
    }

    static func list(_ json: JSONValue?, _ what: String) throws(HomeError) -> [JSONValue] {
        guard let items = json?.array else { throw malformed(what) }
        return items
    }

    static func structure(_ s: HubStructure) -> StructureRecord {
        StructureRecord(id: StructureID(rawValue: s.id), name: s.name, createdAt: Date(timeIntervalSince1970: 0))
    }

    static func room(_ r: HubRoom) -> RoomRecord {
        RoomRecord(id: RoomID(rawValue: r.id), structureID: StructureID(rawValue: r.structureID), name: r.name,
                   createdAt: Date(timeIntervalSince1970: 0))
    }

    /// A device with its room (from `rooms`).
    static func device(_ d: HubDevice, rooms: [RoomID: RoomRecord]) throws(HomeError) -> (NodeRecord, RoomRecord?) {
        let addresses = d.addresses.map { NodeAddress(host: $0.host, port: $0.port, interfaceIndex: $0.interfaceIndex) }
        let roomID = d.roomID.map(RoomID.init(rawValue:))
        guard let commissioned = isoDate(d.commissionedAt) else {
            throw malformed("device", "commissioned_at '\(d.commissionedAt)' is not ISO 8601")
        }
        let record = NodeRecord(nodeID: NodeID(d.nodeID), vendorID: d.vendorID, productID: d.productID, name: d.name, roomID: roomID,
                                addresses: addresses, commissionedAt: commissioned, nocSerial: [], sessionID: nil)
        return (record, roomID.flatMap { rooms[$0] })
    }

    /// ISO 8601 UTC, with or without fractional seconds.
    static func isoDate(_ text: String) -> Date? {
        if let d = try? Date.ISO8601FormatStyle().parse(text) { return d }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
    }

    /// One device outcome of `matterhub/perform_commissioning`.
    static func outcome(_ o: HubDeviceOutcome) throws(HomeError) -> Result<CommissionedDevice, CommissioningError> {
        switch o {
        case .failure(_, let f):
            guard let e = commissioningError(f) else { throw malformed("commissioning failure", "unknown step '\(f.step)'") }
            return .failure(e)
        case .success(_, let node, let vendor, let product, let address, let timings, let warnings):
            var steps: [StepTiming] = []
            for t in timings {
                guard let step = CommissioningStep(rawValue: t.step) else { throw malformed("step timing", "unknown step '\(t.step)'") }
                steps.append(StepTiming(step: step, milliseconds: t.milliseconds))
            }
            return .success(CommissionedDevice(nodeID: NodeID(node), vendorID: vendor, productID: product, address: address,
                                               timings: steps, warnings: warnings))
        }
    }

    static func commissioningError(_ f: HubCommissioningFailure) -> CommissioningError? {
        guard let step = CommissioningStep(rawValue: f.step) else { return nil }
        return CommissioningError(step: step, device: f.device, code: CommissioningError.Code(rawValue: f.code), reason: f.reason, hint: f.hint)
    }

    /// A finished step as the Home API's `onStep` hears it (device index, timing).
    static func step(_ s: HubCommissioningStep) -> (Int, StepTiming)? {
        guard s.result == .ok, let step = CommissioningStep(rawValue: s.step) else { return nil }
        return (s.device, StepTiming(step: step, milliseconds: s.stepMilliseconds))
    }

    /// The hub's error envelope as the `HomeError` the hub raised.
    static func homeError(_ frame: JSONValue) -> HomeError {
        guard let (_, e) = try? HubAPIError.parse(frame) else { return malformed("error result") }
        if let name = e.homeError, let code = HomeError.Code(rawValue: name) {
            return HomeError(code, e.details, commissioningError: e.commissioning.flatMap(commissioningError))
        }
        switch e.code {
        case .updateCheckError, .updateError: return HomeError(.updateFailed, e.details)
        case .nodeNotExists: return HomeError(.deviceNotFound, e.details)
        default: break
        }
        // A plain OHF error (bad arguments, or a command this hub does not know).
        return HomeError(.hubUnavailable, "the hub answered \(e.code.name): \(e.details)")
    }
}
