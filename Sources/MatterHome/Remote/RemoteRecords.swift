import Foundation
import MatterCertificates
import MatterCommissioning
import MatterServerAPI

/// The records of `matterhub/...` results, read back into the Home API's types. A result that
/// does not have the expected shape is a `hubUnavailable` error naming what was wrong.
enum RemoteRecords {
    static func malformed(_ what: String) -> HomeError {
        HomeError(.hubUnavailable, "the hub sent a malformed \(what); is the hub the same MatterHub version as this client?")
    }

    static func list(_ json: JSONValue, _ what: String) throws(HomeError) -> [JSONValue] {
        guard let items = json.array else { throw malformed(what) }
        return items
    }

    static func structure(_ json: JSONValue) throws(HomeError) -> StructureRecord {
        guard let id = json["id"]?.int64, let name = json["name"]?.string else { throw malformed("structure") }
        return StructureRecord(id: StructureID(rawValue: id), name: name, createdAt: date(json["created_at"]))
    }

    static func room(_ json: JSONValue) throws(HomeError) -> Room {
        guard let id = json["id"]?.int64, let name = json["name"]?.string else { throw malformed("room") }
        return Room(id: RoomID(rawValue: id), name: name)
    }

    static func roomRecord(_ json: JSONValue) throws(HomeError) -> RoomRecord {
        let r = try room(json)
        guard let s = json["structure_id"]?.int64 else { throw malformed("room") }
        return RoomRecord(id: r.id, structureID: StructureID(rawValue: s), name: r.name, createdAt: date(json["created_at"]))
    }

    static func device(_ json: JSONValue) throws(HomeError) -> (NodeRecord, RoomRecord?) {
        guard let node = json["node_id"]?.uint64, let name = json["name"]?.string,
              let vendor = json["vendor_id"].flatMap(UInt16.read), let product = json["product_id"].flatMap(UInt16.read) else {
            throw malformed("device")
        }
        var addresses: [NodeAddress] = []
        for a in json["addresses"]?.array ?? [] {
            guard let host = a["host"]?.string, let port = a["port"].flatMap(UInt16.read) else { throw malformed("device address") }
            addresses.append(NodeAddress(host: host, port: port, interfaceIndex: a["interface_index"].flatMap(UInt32.read)))
        }
        var room: RoomRecord?
        if let r = json["room"], !r.isNull { room = try roomRecord(r) }
        return (NodeRecord(nodeID: NodeID(node), vendorID: vendor, productID: product, name: name, roomID: room?.id,
                           addresses: addresses, commissionedAt: date(json["commissioned_at"]), nocSerial: [], sessionID: nil), room)
    }

    /// One outcome of `matterhub/perform_commissioning`.
    static func outcome(_ json: JSONValue) throws(HomeError) -> Result<CommissionedDevice, CommissioningError> {
        if json["result"]?.string == "failed" {
            guard let e = json["error"].flatMap(RemoteErrors.commissioningError) else { throw malformed("commissioning failure") }
            return .failure(e)
        }
        guard let node = json["node_id"]?.uint64, let vendor = json["vendor_id"].flatMap(UInt16.read),
              let product = json["product_id"].flatMap(UInt16.read) else { throw malformed("commissioned device") }
        var timings: [StepTiming] = []
        for t in json["timings"]?.array ?? [] {
            guard let s = t["step"]?.string, let step = CommissioningStep(rawValue: s), let ms = number(t["ms"]) else {
                throw malformed("step timing")
            }
            timings.append(StepTiming(step: step, milliseconds: ms))
        }
        return .success(CommissionedDevice(nodeID: node, vendorID: vendor, productID: product, address: json["address"]?.string ?? "",
                                           timings: timings, warnings: (json["warnings"]?.array ?? []).compactMap(\.string)))
    }

    /// A `matterhub/commissioning_step` event with result "ok" as (device index, timing).
    static func step(_ json: JSONValue) -> (Int, StepTiming)? {
        guard json["result"]?.string == "ok", let device = json["device"].flatMap(Int.read),
              let s = json["step"]?.string, let step = CommissioningStep(rawValue: s), let ms = number(json["elapsed_ms"]) else { return nil }
        return (device, StepTiming(step: step, milliseconds: ms))
    }

    static func number(_ json: JSONValue?) -> Double? {
        switch json {
        case .int(let v)?: Double(v)
        case .uint(let v)?: Double(v)
        case .double(let v)?: v
        default: nil
        }
    }

    /// Seconds since 1970 (whole seconds, as the store keeps them); the epoch when absent.
    static func date(_ json: JSONValue?) -> Date {
        Date(timeIntervalSince1970: number(json) ?? 0)
    }
}
