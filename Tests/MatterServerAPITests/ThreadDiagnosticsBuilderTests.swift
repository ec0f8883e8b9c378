import MatterServerAPI
import Testing

/// The diagnostics batches of schema 12's `get_thread_diagnostics` from the nodes' own
/// ThreadNetworkDiagnostics: grouping by network, the mode a routing role implies, and the MAC
/// counters as OpenThread fills the diagnostic TLV from the counters ThreadNetworkDiagnostics
/// reports one by one (`NetworkDiagnostic::FillMacCountersTlv`, openthread src/core/thread/network_diagnostic.cpp).
@Suite struct ThreadDiagnosticsBuilderTests {
    typealias T = NetworkTopologyBuilderTests

    @Test func macCountersFollowOpenThreadsMapping() throws {
        var attributes: [String: JSONValue] = ["0/49/65532": .integer(2), "0/53/1": .integer(2), "0/53/4": .integer(0x1122_3344_5566_7788),
                                               "0/53/2": .string("Mesh"), "0/53/64": .integer(0x0401)]
        // Each counter its own ID, so any crossed wire shows: TxUnicast 0x17 = 23, ... RxErrOther 0x37 = 55.
        for id in 0x16...0x37 { attributes["0/53/\(id)"] = .integer(id) }
        let batches = ThreadDiagnosticsBuilder.batches(nodes: [T.node(1, attributes)], collectedAt: 5)
        let batch = try #require(batches.first)
        #expect(batch["extPanIdHex"]?.string == "1122334455667788" && batch["networkName"]?.string == "Mesh")
        let node = try #require(batch["nodes"]?.array?.first)
        #expect(node["mode"] == .object(["rxOnWhenIdle": .bool(false), "ftd": .bool(false), "fullNetworkData": .bool(false)]))
        #expect(node["rloc16"]?.int64 == 0x0401)
        let c = try #require(node["macCounters"])
        #expect(c["ifInUnknownProtos"]?.int64 == 0x2E)                            // RxOther
        let rxErrors: Int64 = [0x32, 0x33, 0x34, 0x35, 0x36, 0x37].reduce(0, +)  // RxErrNoFrame ... RxErrOther
        #expect(c["ifInErrors"]?.int64 == rxErrors)
        #expect(c["ifOutErrors"]?.int64 == 0x24)                                  // TxErrCca
        #expect(c["ifInUcastPkts"]?.int64 == 0x28 && c["ifInBroadcastPkts"]?.int64 == 0x29)
        let discards: Int64 = 0x2F + 0x30 + 0x31  // address filtered, destination filtered, duplicated
        #expect(c["ifInDiscards"]?.int64 == discards)
        #expect(c["ifOutUcastPkts"]?.int64 == 0x17 && c["ifOutBroadcastPkts"]?.int64 == 0x18)
        #expect(c["ifOutDiscards"]?.int64 == 0x26)                                // TxErrBusyChannel
    }

    @Test func networksAreGroupedAndUnavailableNodesMakeABatchPartial() throws {
        let nodes = [T.thread(1, address: T.a, rloc16: 0x400), T.thread(2, address: T.b, rloc16: 0x800, role: 3),
                     T.thread(3, address: T.b, rloc16: 0xC00, xp: 0xAB), T.node(4, ["0/49/65532": .integer(1)])]
        var batches = ThreadDiagnosticsBuilder.batches(nodes: nodes, collectedAt: 1)
        #expect(batches.map { $0["extPanIdHex"]?.string } == ["39758EC8144B07FB", "00000000000000AB"])
        #expect(batches[0]["nodes"]?.array?.map { $0["extMacAddress"]?.string } == ["000000000000000A", "000000000000000B"])
        #expect(batches[0]["partialReason"] == nil)
        // No MAC counters, no leader data reported: those fields are left out, not invented.
        #expect(batches[0]["nodes"]?.array?.first?["macCounters"] == nil && batches[0]["nodes"]?.array?.first?["leaderData"] == nil)

        let down = T.node(2, available: false, nodes[1].attributes.reduce(into: [:]) { $0[$1.key.description] = $1.value })
        batches = ThreadDiagnosticsBuilder.batches(nodes: [nodes[0], down], collectedAt: 1)
        #expect(batches[0]["nodes"]?.array?.count == 1 && batches[0]["partialReason"]?.string == "timeout")
    }
}
