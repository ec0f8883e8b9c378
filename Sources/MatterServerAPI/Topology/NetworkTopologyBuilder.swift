import MatterTLV

/// A Thread border router as the topology needs it (from the hub's `_meshcop._udp` browse).
public struct TopologyBorderRouter: Hashable, Sendable {
    /// The border agent's Thread extended address, 16 hex digits.
    public var extAddress: String
    public var extendedPanID: String?
    public var networkName: String?
    /// The mDNS host (`Cuisine.local.`).
    public var hostName: String?
    public var vendorName: String?
    public var modelName: String?
    public var lastSeen: Int64?

    public init(extAddress: String, extendedPanID: String? = nil, networkName: String? = nil, hostName: String? = nil,
                vendorName: String? = nil, modelName: String? = nil, lastSeen: Int64? = nil) {
        self.extAddress = extAddress.uppercased()
        self.extendedPanID = extendedPanID?.uppercased()
        self.networkName = networkName
        self.hostName = hostName
        self.vendorName = vendorName
        self.modelName = modelName
        self.lastSeen = lastSeen
    }
}

/// Derives the network graph from what the nodes report about themselves, as matterjs-server's
/// first topology does: each Thread node's ThreadNetworkDiagnostics neighbour and route tables
/// (0/53/7, 0/53/8) give the mesh links, General Diagnostics' NetworkInterfaces (0/51/0) its own
/// extended address, Wi-Fi Network Diagnostics (0/54/0, 0/54/4) the access point and signal of a
/// Wi-Fi node; a neighbour that is none of the hub's nodes is a border router when the
/// `_meshcop._udp` browse knows its address, otherwise an unknown Thread device. Pure: the same
/// attribute cache gives the same graph.
public enum NetworkTopologyBuilder {
    /// The attributes the graph is built from, read again on a refresh (by network type).
    public static let threadPaths = ["0/53/7", "0/53/8", "0/51/0", "0/53/64", "0/53/1", "0/53/2", "0/53/4"]
        .compactMap(AttributePathPattern.init)
    public static let wifiPaths = ["0/54/0", "0/54/3", "0/54/4", "0/49/1"].compactMap(AttributePathPattern.init)
    /// Clusters whose changes can change the graph: NetworkCommissioning, General Diagnostics,
    /// Thread and Wi-Fi Network Diagnostics.
    public static let clusters: Set<UInt32> = [0x31, 0x33, 0x35, 0x36]

    public static func build(nodes: [MatterNodeData], borderRouters: [TopologyBorderRouter], collectedAt: Int64) -> NetworkTopology {
        var routersByAddress: [String: TopologyBorderRouter] = [:]
        var networkNames: [String: String] = [:]
        for router in borderRouters {
            routersByAddress[router.extAddress] = router
            if let xp = router.extendedPanID, let name = router.networkName { networkNames[xp] = name }
        }

        var out: [NetworkTopology.Node] = []
        var connections: [NetworkTopology.Connection] = []
        var threadNodes: [ThreadNode] = []
        var stations: [(id: String, ssid: String?, bssid: String?, rssi: Int?)] = []

        for node in nodes {
            let view = NodeView(node.attributes)
            let id = String(node.nodeID)
            var entry = NetworkTopology.Node(id: id, kind: .matter, networkType: view.networkType)
            entry.nodeID = node.nodeID
            entry.available = node.available
            entry.isBridge = node.isBridge ? true : nil
            switch view.networkType {
            case .thread:
                let thread = ThreadNode(id: id, view: view)
                threadNodes.append(thread)
                entry.role = view.threadRole
                entry.extAddress = thread.extAddress.map(hex16)
                entry.rloc16 = thread.rloc16
                entry.extPanID = thread.extPanID
                entry.networkName = view.string("0/53/2") ?? thread.extPanID.flatMap { networkNames[$0] }
            case .wifi:
                let bssid = view.bssid, ssid = view.ssid
                stations.append((id, ssid, bssid, view.int("0/54/4")))
                entry.role = .station
                entry.ssid = ssid
                entry.bssid = bssid
            case .ethernet, .unknown:
                break
            }
            out.append(entry)
        }

        // Thread: neighbours that are none of the hub's nodes, then one link per pair.
        let byAddress = Dictionary(threadNodes.compactMap { n in n.extAddress.map { ($0, n.id) } }, uniquingKeysWith: { a, _ in a })
        let byRloc16 = Dictionary(threadNodes.compactMap { n in n.rloc16.map { ($0, n.id) } }, uniquingKeysWith: { _, b in b })
        let externals = externalDevices(threadNodes, byAddress: byAddress, byRloc16: byRloc16,
                                        routers: routersByAddress, networkNames: networkNames)
        let externalIDs = Dictionary(externals.map { ($0.address, $0.id) }, uniquingKeysWith: { a, _ in a })
        func resolve(_ address: UInt64, _ rloc16: UInt16) -> String? {
            byAddress[address] ?? (rloc16 != 0 ? byRloc16[rloc16] : nil) ?? externalIDs[address]
        }
        var pairs: [String: Pair] = [:]
        var pairOrder: [String] = []
        func record(_ from: String, _ to: String, _ edge: Edge) {
            guard from != to else { return }
            let (a, b) = from < to ? (from, to) : (to, from)
            let key = a + "|" + b
            if pairs[key] == nil { pairs[key] = Pair(a: a, b: b); pairOrder.append(key) }
            if from == a { if pairs[key]!.ab == nil { pairs[key]!.ab = edge } } else if pairs[key]!.ba == nil { pairs[key]!.ba = edge }
        }
        for node in threadNodes {
            var routeTo: [UInt64: Route] = [:]
            for route in node.routes where route.linkEstablished && routeTo[route.extAddress] == nil { routeTo[route.extAddress] = route }
            for n in node.neighbors {
                guard let to = resolve(n.extAddress, n.rloc16) else { continue }
                record(node.id, to, Edge(strength: strength(lqi: n.lqi), lqi: n.lqi, rssi: n.rssi,
                                         pathCost: routeTo[n.extAddress]?.pathCost, fromRouteTable: false))
            }
            for route in node.routes where route.linkEstablished && route.allocated {
                guard let to = resolve(route.extAddress, route.rloc16) else { continue }
                let lqi = route.bidirectionalLQI
                record(node.id, to, Edge(strength: lqi.map(strength(lqi:)) ?? .none, lqi: lqi ?? 0, rssi: nil,
                                         pathCost: route.pathCost, fromRouteTable: true))
            }
        }
        var linked: Set<String> = []
        for key in pairOrder {
            guard let connection = pairs[key]!.connection else { continue }
            connections.append(connection)
            linked.insert(connection.source)
            linked.insert(connection.target)
        }
        // A neighbour seen only over dead links would be a node without edges.
        out += externals.filter { linked.contains($0.id) }.map(\.node)

        // Wi-Fi: one access point per BSSID, each station linked to its own.
        var accessPoints: [String: Int] = [:]
        for station in stations {
            guard let bssid = station.bssid else { continue }
            let apID = "ap_" + bssid.filter { $0 != ":" }
            if let index = accessPoints[apID] {
                if out[index].ssid == nil { out[index].ssid = station.ssid }
            } else {
                var ap = NetworkTopology.Node(id: apID, kind: .wifiAccessPoint, networkType: .wifi)
                ap.role = .accessPoint
                ap.networkName = bssid
                ap.bssid = bssid
                ap.ssid = station.ssid
                accessPoints[apID] = out.count
                out.append(ap)
            }
            let s = strength(rssi: station.rssi)
            connections.append(NetworkTopology.Connection(
                source: station.id, target: apID, network: .wifi, strength: s,
                sourceToTarget: station.rssi.map { NetworkTopology.Direction(strength: s, rssi: $0) }))
        }
        return NetworkTopology(collectedAt: collectedAt, nodes: out, connections: connections)
    }

    // MARK: - Strength

    /// Thread LQI as OpenThread reports it (0-3): 0 is a dead link.
    static func strength(lqi: Int) -> NetworkTopology.Strength {
        lqi <= 0 ? .none : lqi > 2 ? .strong : lqi > 1 ? .medium : .weak
    }

    /// Wi-Fi RSSI (matterjs-server's -70/-85 dBm thresholds); no measurement is `unknown`.
    static func strength(rssi: Int?) -> NetworkTopology.Strength {
        guard let rssi else { return .unknown }
        return rssi > -70 ? .strong : rssi > -85 ? .medium : .weak
    }

    static func hex16(_ v: UInt64) -> String {
        let digits = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// `Cuisine.local.` -> `Cuisine`; nil when nothing is left.
    static func displayHost(_ host: String?) -> String? {
        guard var h = host else { return nil }
        if h.hasSuffix(".") { h.removeLast() }
        if h.lowercased().hasSuffix(".local") { h.removeLast(6) }
        return h.isEmpty ? nil : h
    }

    // MARK: - Thread

    struct Neighbor {
        var extAddress: UInt64
        var rloc16: UInt16
        var lqi: Int
        var rssi: Int?
        var rxOnWhenIdle: Bool
    }

    struct Route {
        var extAddress: UInt64
        var rloc16: UInt16
        var pathCost: Int
        var lqiIn: Int
        var lqiOut: Int
        var allocated: Bool
        var linkEstablished: Bool

        /// Both directions' LQI averaged, or the one that is not zero.
        var bidirectionalLQI: Int? {
            if lqiIn > 0 && lqiOut > 0 { return Int((Double(lqiIn + lqiOut) / 2).rounded()) }
            if lqiIn > 0 { return lqiIn }
            if lqiOut > 0 { return lqiOut }
            return nil
        }
    }

    struct ThreadNode {
        var id: String
        var extAddress: UInt64?
        var rloc16: UInt16?
        var extPanID: String?
        var neighbors: [Neighbor]
        var routes: [Route]

        init(id: String, view: NodeView) {
            self.id = id
            extAddress = view.threadExtendedAddress
            rloc16 = view.int("0/53/64").flatMap(UInt16.init(exactly:))
            extPanID = view.uint("0/53/4").map(hex16)
            neighbors = view.structs("0/53/7").map { e in
                Neighbor(extAddress: NodeView.address(e["0"]), rloc16: UInt16(exactly: e["2"]?.int64 ?? 0) ?? 0,
                         lqi: Int(e["5"]?.int64 ?? 0), rssi: (e["6"]?.int64 ?? e["7"]?.int64).map { Int($0) },
                         rxOnWhenIdle: e["10"]?.bool ?? false)
            }
            routes = view.structs("0/53/8").map { e in
                Route(extAddress: NodeView.address(e["0"]), rloc16: UInt16(exactly: e["1"]?.int64 ?? 0) ?? 0,
                      pathCost: Int(e["4"]?.int64 ?? 0), lqiIn: Int(e["5"]?.int64 ?? 0), lqiOut: Int(e["6"]?.int64 ?? 0),
                      allocated: e["8"]?.bool ?? false, linkEstablished: e["9"]?.bool ?? false)
            }
        }
    }

    struct External {
        var id: String
        var address: UInt64
        var node: NetworkTopology.Node
    }

    /// Neighbours that match none of the hub's Thread nodes (by extended address, else RLOC16),
    /// one per address, in the order first seen.
    static func externalDevices(_ nodes: [ThreadNode], byAddress: [UInt64: String], byRloc16: [UInt16: String],
                                routers: [String: TopologyBorderRouter], networkNames: [String: String]) -> [External] {
        var seen: [UInt64: (isRouter: Bool, extPanID: String?)] = [:]
        var order: [UInt64] = []
        for node in nodes {
            for n in node.neighbors {
                if byAddress[n.extAddress] != nil || (n.rloc16 != 0 && byRloc16[n.rloc16] != nil) { continue }
                if seen[n.extAddress] == nil { order.append(n.extAddress); seen[n.extAddress] = (false, node.extPanID) }
                if n.rxOnWhenIdle { seen[n.extAddress]!.isRouter = true }
                if seen[n.extAddress]!.extPanID == nil { seen[n.extAddress]!.extPanID = node.extPanID }
            }
        }
        return order.map { address in
            let hex = hex16(address), info = seen[address]!
            if let br = routers[hex] {
                var node = NetworkTopology.Node(id: "br_" + hex, kind: .borderRouter, networkType: .thread)
                node.role = .router
                node.extAddress = hex
                node.extPanID = br.extendedPanID
                node.networkName = br.networkName
                node.hostName = displayHost(br.hostName)
                node.vendorName = br.vendorName
                node.modelName = br.modelName
                node.lastSeen = br.lastSeen
                return External(id: node.id, address: address, node: node)
            }
            var node = NetworkTopology.Node(id: "unknown_" + hex, kind: .threadUnknown, networkType: .thread)
            node.role = info.isRouter ? .router : nil
            node.extAddress = hex
            node.extPanID = info.extPanID
            node.networkName = info.extPanID.flatMap { networkNames[$0] }
            return External(id: node.id, address: address, node: node)
        }
    }

    struct Edge {
        var strength: NetworkTopology.Strength
        var lqi: Int
        var rssi: Int?
        var pathCost: Int?
        var fromRouteTable: Bool

        var direction: NetworkTopology.Direction { .init(strength: strength, lqi: lqi, rssi: rssi) }
    }

    /// Two nodes and what each reported about the other (`ab`: a's report of b).
    struct Pair {
        var a: String
        var b: String
        var ab: Edge?
        var ba: Edge?

        /// Nil when every report says the link is dead.
        var connection: NetworkTopology.Connection? {
            let levels = [ab?.strength, ba?.strength].compactMap { $0 }
            guard levels.contains(where: { $0 != .none }) else { return nil }
            return NetworkTopology.Connection(
                source: a, target: b, network: .thread, strength: levels.reduce(NetworkTopology.Strength.none) { max($0, $1) },
                sourceToTarget: ab?.direction, targetToSource: ba?.direction,
                viaRouteTable: (ab?.fromRouteTable == true || ba?.fromRouteTable == true) ? true : nil,
                pathCost: ab?.pathCost ?? ba?.pathCost)
        }
    }

    // MARK: - Reading the attribute cache

    /// A node's endpoint-0 attributes in the API's JSON form (struct fields keyed by tag number,
    /// octet strings in base64).
    struct NodeView {
        let attributes: [AttributePath: JSONValue]

        init(_ attributes: [AttributePath: JSONValue]) { self.attributes = attributes }

        subscript(_ path: String) -> JSONValue? { AttributePath(path).flatMap { attributes[$0] } }
        func int(_ path: String) -> Int? { self[path]?.int64.map { Int($0) } }
        func uint(_ path: String) -> UInt64? { self[path]?.uint64 }
        func string(_ path: String) -> String? { self[path]?.string.flatMap { $0.isEmpty ? nil : $0 } }
        func structs(_ path: String) -> [JSONObject] { self[path]?.array?.compactMap(\.objectValue) ?? [] }

        /// From NetworkCommissioning's FeatureMap: Thread before Wi-Fi before Ethernet.
        var networkType: NetworkTopology.NetworkType {
            guard let features = uint("0/49/65532") else { return .unknown }
            if features & 0x2 != 0 { return .thread }
            if features & 0x1 != 0 { return .wifi }
            if features & 0x4 != 0 { return .ethernet }
            return .unknown
        }

        var threadRole: NetworkTopology.Role? {
            switch int("0/53/1") {
            case 6: .leader
            case 5: .router
            case 4: .reed
            case 3: .endDevice
            case 2: .sleepyEndDevice
            case 1: .unassigned
            default: nil
            }
        }

        /// The hardware address of the Thread interface (type 4) in NetworkInterfaces, else of the first.
        var threadExtendedAddress: UInt64? {
            let interfaces = structs("0/51/0")
            guard let interface = interfaces.first(where: { $0["7"]?.int64 == 4 }) ?? interfaces.first else { return nil }
            let address = Self.address(interface["4"])
            return address == 0 ? nil : address
        }

        /// An extended address as a number or as base64 bytes (the last 8, big-endian).
        static func address(_ value: JSONValue?) -> UInt64 {
            if let v = value?.uint64 { return v }
            guard let text = value?.string, let bytes = Base64.decode(text) else { return 0 }
            return bytes.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }
        }

        /// `AA:BB:CC:DD:EE:FF` from Wi-Fi Network Diagnostics' BSSID.
        var bssid: String? {
            guard let text = string("0/54/0"), let bytes = Base64.decode(text), !bytes.isEmpty else { return nil }
            return Base16.encode(bytes, uppercase: true, separator: ":")
        }

        /// The connected network's ID from NetworkCommissioning's Networks, when it reads as an SSID
        /// (1-32 bytes of UTF-8 without control characters; some devices leave it empty).
        var ssid: String? {
            guard let connected = structs("0/49/1").first(where: { $0["1"]?.bool == true }),
                  let text = connected["0"]?.string, let bytes = Base64.decode(text), (1...32).contains(bytes.count),
                  let ssid = String(validating: bytes, as: UTF8.self),
                  !ssid.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
            return ssid
        }
    }
}
