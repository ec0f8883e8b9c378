import MatterServerAPI
import Testing

/// The rules of the network graph (schema 13's `get_network_topology`, as matterjs-server derives
/// it), each on attribute values in the API's JSON form (struct fields keyed by tag number, octet
/// strings in base64), the form the hub's cache and python-matter-server's node dumps have.
@Suite struct NetworkTopologyBuilderTests {
    static func node(_ id: UInt64, available: Bool = true, _ attributes: [String: JSONValue]) -> MatterNodeData {
        var attrs: [AttributePath: JSONValue] = [:]
        for (path, value) in attributes { attrs[AttributePath(path)!] = value }
        return MatterNodeData(nodeID: id, dateCommissioned: "", lastInterview: "", available: available, attributes: attrs)
    }

    /// A Thread node: its extended address in NetworkInterfaces (base64, as octet strings are sent).
    static func thread(_ id: UInt64, address: String, rloc16: Int, role: Int = 5, neighbors: [JSONValue] = [],
                       routes: [JSONValue] = [], xp: UInt64 = 0x3975_8EC8_144B_07FB) -> MatterNodeData {
        node(id, ["0/49/65532": .integer(2), "0/53/1": .integer(role), "0/53/4": .integer(xp), "0/53/64": .integer(rloc16),
                  "0/53/7": .array(neighbors), "0/53/8": .array(routes),
                  "0/51/0": .array([.object(["0": .string("thread0"), "4": .string(address), "7": .integer(4)])])])
    }

    static func neighbor(_ address: JSONValue, rloc16: Int = 0, lqi: Int, rssi: JSONValue = .null, router: Bool = true) -> JSONValue {
        .object(["0": address, "2": .integer(rloc16), "5": .integer(lqi), "6": rssi, "7": .null, "10": .bool(router)])
    }

    static func route(_ address: UInt64, rloc16: Int = 0, lqiIn: Int, lqiOut: Int, cost: Int = 1) -> JSONValue {
        .object(["0": .integer(address), "1": .integer(rloc16), "4": .integer(cost), "5": .integer(lqiIn), "6": .integer(lqiOut),
                 "8": .bool(true), "9": .bool(true)])
    }

    // base64 of 00 00 00 00 00 00 00 0A / 0B and of a 9-byte form with a leading type byte.
    static let a = "AAAAAAAAAAo=", b = "AAAAAAAAAAs="

    func build(_ nodes: [MatterNodeData], _ routers: [TopologyBorderRouter] = []) -> NetworkTopology {
        NetworkTopologyBuilder.build(nodes: nodes, borderRouters: routers, collectedAt: 1)
    }

    func link(_ t: NetworkTopology, _ x: String, _ y: String) -> NetworkTopology.Connection? {
        t.connections.first { Set([$0.source, $0.target]) == [x, y] }
    }

    @Test func eachSideKeepsItsOwnReportAndTheSummaryIsTheStronger() throws {
        let t = build([Self.thread(1, address: Self.a, rloc16: 0x400, neighbors: [Self.neighbor(.integer(0xB), lqi: 1, rssi: .integer(-90))]),
                       Self.thread(2, address: Self.b, rloc16: 0x800, role: 3, neighbors: [Self.neighbor(.integer(0xA), lqi: 3)])])
        let c = try #require(link(t, "1", "2"))
        #expect(c.source == "1" && c.target == "2" && c.network == .thread && c.strength == .strong)
        #expect(c.sourceToTarget == NetworkTopology.Direction(strength: .weak, lqi: 1, rssi: -90))
        #expect(c.targetToSource == NetworkTopology.Direction(strength: .strong, lqi: 3))
        #expect(t.connections.count == 1)
        #expect(t.nodes.map(\.role) == [.router, .endDevice])
        #expect(t.nodes.map(\.extAddress) == ["000000000000000A", "000000000000000B"])
        #expect(t.nodes[0].extPanID == "39758EC8144B07FB")
    }

    @Test func anRLOC16MatchesWhenTheAddressDoesNot() throws {
        // The neighbour's address is unknown to the hub (a randomised MAC) but its RLOC16 is node 2's.
        let t = build([Self.thread(1, address: Self.a, rloc16: 0x400, neighbors: [Self.neighbor(.integer(0xFFFF), rloc16: 0x800, lqi: 2)]),
                       Self.thread(2, address: Self.b, rloc16: 0x800)])
        #expect(link(t, "1", "2")?.strength == .medium)
        #expect(!t.nodes.contains { $0.kind == .threadUnknown })
    }

    @Test func neighboursThatAreNotNodesAreBorderRoutersOrUnknown() throws {
        let router = TopologyBorderRouter(extAddress: "00000000000000c1", extendedPanID: "39758ec8144b07fb", networkName: "Home",
                                          hostName: "Cuisine.local.", vendorName: "Apple", modelName: "HomePod", lastSeen: 5)
        // The unknown's address arrives as 9 bytes (a leading type byte), as some stacks send it.
        let t = build([Self.thread(1, address: Self.a, rloc16: 0x400, neighbors: [
            Self.neighbor(.integer(0xC1), lqi: 3), Self.neighbor(.string("BwAAAAAAAADC"), lqi: 1, router: false),
            Self.neighbor(.integer(0xC3), lqi: 0),
        ])], [router])
        let br = try #require(t.nodes.first { $0.id == "br_00000000000000C1" })
        #expect(br.kind == .borderRouter && br.role == .router && br.hostName == "Cuisine" && br.networkName == "Home")
        #expect(br.vendorName == "Apple" && br.modelName == "HomePod" && br.lastSeen == 5 && br.extPanID == "39758EC8144B07FB")
        let unknown = try #require(t.nodes.first { $0.id == "unknown_00000000000000C2" })
        #expect(unknown.kind == .threadUnknown && unknown.role == nil && unknown.networkName == "Home")
        // Seen only over a dead link: neither the link nor the neighbour is drawn.
        #expect(!t.nodes.contains { $0.id.hasSuffix("C3") })
        #expect(t.connections.count == 2)
    }

    @Test func aLinkOnlyInTheRouteTableTakesBothDirectionsLQI() throws {
        let t = build([Self.thread(1, address: Self.a, rloc16: 0x400, routes: [Self.route(0xB, lqiIn: 3, lqiOut: 2, cost: 2)]),
                       Self.thread(2, address: Self.b, rloc16: 0x800)])
        let c = try #require(link(t, "1", "2"))
        #expect(c.viaRouteTable == true && c.pathCost == 2 && c.strength == .strong && c.sourceToTarget?.lqi == 3)
    }

    @Test func wifiStationsShareOneAccessPointPerBSSID() throws {
        func station(_ id: UInt64, rssi: JSONValue, ssid: String?) -> MatterNodeData {
            Self.node(id, ["0/49/65532": .integer(1), "0/54/0": .string("AkRIAAAB"), "0/54/4": rssi,
                           "0/49/1": .array(ssid.map { [.object(["0": .string(Base64.encode(Array($0.utf8))), "1": .bool(true)])] } ?? [])])
        }
        let t = build([station(1, rssi: .null, ssid: nil), station(2, rssi: .integer(-90), ssid: "Home"),
                       Self.node(3, ["0/49/65532": .integer(4)])])
        let aps = t.nodes.filter { $0.kind == .wifiAccessPoint }
        #expect(aps.map(\.id) == ["ap_024448000001"] && aps.first?.bssid == "02:44:48:00:00:01" && aps.first?.ssid == "Home")
        #expect(aps.first?.networkName == "02:44:48:00:00:01")
        // No RSSI: the link is there, its strength unknown, with no direction.
        #expect(link(t, "1", "ap_024448000001")?.strength == .unknown && link(t, "1", "ap_024448000001")?.sourceToTarget == nil)
        #expect(link(t, "2", "ap_024448000001")?.strength == .weak)
        #expect(t.nodes.first { $0.id == "3" }?.networkType == .ethernet && !t.connections.contains { $0.source == "3" || $0.target == "3" })
    }

    @Test func theGraphIgnoresTimeAndOrder() throws {
        let nodes = [Self.thread(1, address: Self.a, rloc16: 0x400, neighbors: [Self.neighbor(.integer(0xB), lqi: 2)]),
                     Self.thread(2, address: Self.b, rloc16: 0x800, neighbors: [Self.neighbor(.integer(0xA), lqi: 2)])]
        let one = NetworkTopologyBuilder.build(nodes: nodes, borderRouters: [], collectedAt: 1)
        let two = NetworkTopologyBuilder.build(nodes: nodes.reversed(), borderRouters: [], collectedAt: 2)
        #expect(one.graph == two.graph)
        #expect(one.json["collected_at"] == .integer(1))
        // Absent optional fields are left out, not sent as null.
        #expect(one.nodes[0].json["ssid"] == nil && one.nodes[0].json["node_id"] == .integer(1))
    }
}
