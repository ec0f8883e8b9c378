import FoundationEssentials
import MatterDiscovery
import MatterServerAPI
import MatterTLV

/// `get_thread_border_routers` (schema 12): the Thread border agents the hub's passive
/// `_meshcop._udp` browse holds (``BorderRouterRegistry``), in matterjs-server's BorderRouterEntry
/// shape (its TXT decoded; keys in camelCase as it sends them). No credentials are needed.
extension HubService {
    func threadBorderRouters() async -> JSONValue {
        .array(await borderRouters.routers.map { Self.entry($0.router, lastSeen: Int64($0.lastSeen.timeIntervalSince1970 * 1000)) })
    }

    static func entry(_ router: BorderRouter, lastSeen: Int64) -> JSONValue {
        let t = router.txt
        var o = JSONObject()
        func hex(_ bytes: [UInt8]?) -> JSONValue? { bytes.map { .string(Base16.encode($0, uppercase: true)) } }
        func hex<I: FixedWidthInteger>(_ value: I?) -> JSONValue? {
            value.map { v in .string(Base16.encode((0..<I.bitWidth / 8).reversed().map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) }).uppercased()) }
        }
        func put(_ key: String, _ value: JSONValue?) { if let value { o.append(key, value) } }
        put("extAddressHex", hex(t.extendedAddress) ?? .string(""))
        put("extendedPanIdHex", hex(t.extendedPANID))
        put("networkName", t.networkName.map { .string($0) })
        put("vendorName", t.vendorName.map { .string($0) })
        put("modelName", t.modelName.map { .string($0) })
        put("hostname", .string(router.service.host))
        put("addresses", .array(router.service.addresses.map(\.ip).sorted().map { .string($0) }))
        put("meshcopPort", .integer(router.service.port))
        put("threadVersion", t.threadVersion.map { .string($0) })
        put("recordVersion", t.recordVersion.map { .string($0) })
        put("borderAgentIdHex", hex(t.borderAgentID))
        put("stateBitmapHex", hex(t.stateBitmap?.rawValue))
        put("activeTimestampHex", hex(t.activeTimestamp))
        put("partitionIdHex", hex(t.partitionID))
        put("domainName", t.domainName.map { .string($0) })
        put("sources", .array([.string("meshcop")]))
        put("lastSeen", .integer(lastSeen))
        return .object(o)
    }
}
