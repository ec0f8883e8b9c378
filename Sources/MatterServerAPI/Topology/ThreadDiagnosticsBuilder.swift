import MatterTLV

/// Schema 12's `get_thread_diagnostics` batches (matterjs-server's `ThreadDiagnosticsBatch`, one
/// per Thread network by extended PAN ID), built from what the hub's own Thread nodes report in
/// ThreadNetworkDiagnostics (0/53) and General Diagnostics (0/51).
///
/// matterjs-server collects them from a border router (a MeshCoP commissioner petition or OTBR's
/// REST API), which also reaches Thread devices of other ecosystems; the hub has neither yet, so
/// its batches say `source: "matter"` and hold its commissioned nodes only. Each node carries only
/// the fields its attributes give truthfully (every field of a diagnostics node is optional on the
/// wire): its addresses, mode, leader data, MAC counters (OpenThread's mapping of its MAC counters
/// onto the diagnostic TLV's) and its vendor's names. Pure: the same cache gives the same batches.
public enum ThreadDiagnosticsBuilder {
    /// What a refresh reads from each Thread node.
    public static let paths = ["0/53/*", "0/51/0"].compactMap(AttributePathPattern.init)
    public static let source = "matter"

    /// One batch per extended PAN ID, in the order networks are first seen. `available` nodes only;
    /// a network one of whose nodes is unavailable gets `partialReason: "timeout"`.
    public static func batches(nodes: [MatterNodeData], collectedAt: Int64) -> [JSONValue] {
        var order: [String] = []
        var members: [String: (name: String?, nodes: [JSONValue], missing: Bool)] = [:]
        for node in nodes {
            let view = NetworkTopologyBuilder.NodeView(node.attributes)
            guard view.networkType == .thread, let xp = view.uint("0/53/4").map(NetworkTopologyBuilder.hex16) else { continue }
            if members[xp] == nil { order.append(xp); members[xp] = (nil, [], false) }
            if members[xp]!.name == nil { members[xp]!.name = view.string("0/53/2") }
            if node.available { members[xp]!.nodes.append(diagnosticsNode(view)) } else { members[xp]!.missing = true }
        }
        return order.map { xp in
            let m = members[xp]!
            return batch(extPanID: xp, networkName: m.name ?? "", nodes: m.nodes, collectedAt: collectedAt,
                         partialReason: m.missing ? "timeout" : nil)
        }
    }

    /// A batch for a network none of the hub's nodes is on (asked for by `ext_pan_id`).
    public static func emptyBatch(extPanID: String, collectedAt: Int64) -> JSONValue {
        batch(extPanID: extPanID.uppercased(), networkName: "", nodes: [], collectedAt: collectedAt, partialReason: "no_source",
              source: "none")
    }

    static func batch(extPanID: String, networkName: String, nodes: [JSONValue], collectedAt: Int64, partialReason: String?,
                      source: String = source) -> JSONValue {
        var o = JSONObject()
        o.append("extPanIdHex", .string(extPanID))
        o.append("networkName", .string(networkName))
        o.append("collectedAt", .integer(collectedAt))
        o.append("source", .string(source))
        o.append("nodes", .array(nodes))
        if let partialReason { o.append("partialReason", .string(partialReason)) }
        return .object(o)
    }

    static func diagnosticsNode(_ view: NetworkTopologyBuilder.NodeView) -> JSONValue {
        var o = JSONObject()
        if let address = view.uint("0/53/63") ?? view.threadExtendedAddress { o.append("extMacAddress", .string(NetworkTopologyBuilder.hex16(address))) }
        if let rloc16 = view.int("0/53/64") { o.append("rloc16", .integer(rloc16)) }
        if let mode = mode(role: view.int("0/53/1")) { o.append("mode", mode) }
        let leader = [9, 10, 11, 12, 13].map { view.int("0/53/\($0)") }
        if leader.allSatisfy({ $0 != nil }) {
            o.append("leaderData", .object(["partitionId": .integer(leader[0]!), "weighting": .integer(leader[1]!),
                                            "dataVersion": .integer(leader[2]!), "stableDataVersion": .integer(leader[3]!),
                                            "leaderRouterId": .integer(leader[4]!)]))
        }
        let addresses = threadInterface(view)?["6"]?.array?.compactMap { $0.string.flatMap(Base64.decode) }.filter { $0.count == 16 } ?? []
        if !addresses.isEmpty { o.append("ipv6Addresses", .array(addresses.map { .string(Base16.encode($0, uppercase: true)) })) }
        if let counters = macCounters(view) { o.append("macCounters", counters) }
        if let vendor = view.string("0/40/1") { o.append("vendorName", .string(vendor)) }
        if let model = view.string("0/40/3") { o.append("vendorModel", .string(model)) }
        if let version = view.string("0/40/10") { o.append("vendorSwVersion", .string(version)) }
        return .object(o)
    }

    /// Thread's link mode from the routing role: routers and leaders are full devices that keep
    /// their radio on, an end device keeps it on, a sleepy one does not.
    static func mode(role: Int?) -> JSONValue? {
        let (rxOn, ftd): (Bool, Bool)
        switch role {
        case 4, 5, 6: (rxOn, ftd) = (true, true)
        case 3: (rxOn, ftd) = (true, false)
        case 2: (rxOn, ftd) = (false, false)
        default: return nil
        }
        return .object(["rxOnWhenIdle": .bool(rxOn), "ftd": .bool(ftd), "fullNetworkData": .bool(ftd)])
    }

    /// The diagnostic TLV's MAC counters as OpenThread fills them from its MAC counters
    /// (`NetworkDiagnostic::FillMacCountersTlv`), which ThreadNetworkDiagnostics reports one by one
    /// (0/53/22-55); nil unless the node has them.
    static func macCounters(_ view: NetworkTopologyBuilder.NodeView) -> JSONValue? {
        func c(_ id: Int) -> Int? { view.int("0/53/\(id)") }
        guard let txUnicast = c(0x17), let txBroadcast = c(0x18), let txErrCca = c(0x24), let txErrBusy = c(0x26),
              let rxUnicast = c(0x28), let rxBroadcast = c(0x29), let rxOther = c(0x2E), let rxAddressFiltered = c(0x2F),
              let rxDestFiltered = c(0x30), let rxDuplicated = c(0x31) else { return nil }
        let rxErrors = [0x32, 0x33, 0x34, 0x35, 0x36, 0x37].map { c($0) ?? 0 }.reduce(0, +)
        return .object(["ifInUnknownProtos": .integer(rxOther), "ifInErrors": .integer(rxErrors), "ifOutErrors": .integer(txErrCca),
                        "ifInUcastPkts": .integer(rxUnicast), "ifInBroadcastPkts": .integer(rxBroadcast),
                        "ifInDiscards": .integer(rxAddressFiltered + rxDestFiltered + rxDuplicated),
                        "ifOutUcastPkts": .integer(txUnicast), "ifOutBroadcastPkts": .integer(txBroadcast),
                        "ifOutDiscards": .integer(txErrBusy)])
    }

    /// General Diagnostics' Thread interface (type 4).
    static func threadInterface(_ view: NetworkTopologyBuilder.NodeView) -> JSONObject? {
        view.structs("0/51/0").first { $0["7"]?.int64 == 4 }
    }
}
