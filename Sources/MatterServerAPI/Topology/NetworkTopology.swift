/// The Matter network as a graph (schema 13's `get_network_topology` and
/// `network_topology_updated`): commissioned nodes, the Thread neighbours and border routers they
/// see, one pseudo-node per Wi-Fi access point, and the links between them. The wire shapes are
/// matterjs-server's (`NetworkTopology` in its ws-client `models/model.ts`), which
/// matter-python-client parses into its dataclasses.
public struct NetworkTopology: Hashable, Sendable {
    /// Milliseconds since the epoch when the snapshot was built.
    public var collectedAt: Int64
    public var nodes: [Node]
    public var connections: [Connection]

    public init(collectedAt: Int64, nodes: [Node], connections: [Connection]) {
        self.collectedAt = collectedAt
        self.nodes = nodes
        self.connections = connections
    }

    public enum Kind: String, Hashable, Sendable {
        /// Commissioned on this hub's fabric (carries `node_id`).
        case matter
        case borderRouter = "border_router"
        /// A Thread neighbour that is not one of the hub's nodes (another fabric's, say).
        case threadUnknown = "thread_unknown"
        case wifiAccessPoint = "wifi_ap"
    }

    public enum NetworkType: String, Hashable, Sendable {
        case thread, wifi, ethernet, unknown
    }

    public enum Role: String, Hashable, Sendable {
        case leader, router, reed
        case endDevice = "end_device"
        case sleepyEndDevice = "sleepy_end_device"
        case unassigned, station
        case accessPoint = "ap"
    }

    /// A link's quality: Thread LQI 3/2/1/0 or Wi-Fi RSSI buckets. `none` is a link seen dead,
    /// `unknown` one with no measurement (still a link).
    public enum Strength: String, Hashable, Sendable, Comparable {
        case unknown, none, weak, medium, strong

        private var rank: Int {
            switch self {
            case .unknown: -1
            case .none: 0
            case .weak: 1
            case .medium: 2
            case .strong: 3
            }
        }

        public static func < (a: Strength, b: Strength) -> Bool { a.rank < b.rank }
    }

    /// What one side reported about a link.
    public struct Direction: Hashable, Sendable {
        public var strength: Strength
        public var lqi: Int?
        public var rssi: Int?

        public init(strength: Strength, lqi: Int? = nil, rssi: Int? = nil) {
            self.strength = strength
            self.lqi = lqi
            self.rssi = rssi
        }

        var json: JSONValue {
            var o = JSONObject()
            o.append("strength", .string(strength.rawValue))
            if let lqi { o.append("lqi", .integer(lqi)) }
            if let rssi { o.append("rssi", .integer(rssi)) }
            return .object(o)
        }
    }

    public struct Node: Hashable, Sendable {
        /// The graph id: the decimal node ID, `br_<EXTADDR>`, `unknown_<EXTADDR>` or `ap_<BSSID>`.
        public var id: String
        public var kind: Kind
        public var networkType: NetworkType
        public var nodeID: UInt64?
        public var role: Role?
        public var available: Bool?
        public var isBridge: Bool?
        /// 16 uppercase hex digits.
        public var extAddress: String?
        public var rloc16: UInt16?
        /// 16 uppercase hex digits.
        public var extPanID: String?
        /// The Thread network name, or the BSSID on a `wifi_ap` node (as matterjs-server keeps it).
        public var networkName: String?
        public var ssid: String?
        /// `AA:BB:CC:DD:EE:FF`.
        public var bssid: String?
        /// A border router's mDNS host, without `.local.`.
        public var hostName: String?
        public var vendorName: String?
        public var modelName: String?
        /// Milliseconds since the epoch (border routers).
        public var lastSeen: Int64?

        public init(id: String, kind: Kind, networkType: NetworkType) {
            self.id = id
            self.kind = kind
            self.networkType = networkType
        }

        public var json: JSONValue {
            var o = JSONObject()
            o.append("id", .string(id))
            o.append("kind", .string(kind.rawValue))
            o.append("network_type", .string(networkType.rawValue))
            func put(_ key: String, _ value: JSONValue?) { if let value { o.append(key, value) } }
            put("node_id", nodeID.map { .integer($0) })
            put("role", role.map { .string($0.rawValue) })
            put("available", available.map { .bool($0) })
            put("is_bridge", isBridge.map { .bool($0) })
            put("ext_address", extAddress.map { .string($0) })
            put("rloc16", rloc16.map { .integer($0) })
            put("ext_pan_id", extPanID.map { .string($0) })
            put("network_name", networkName.map { .string($0) })
            put("ssid", ssid.map { .string($0) })
            put("bssid", bssid.map { .string($0) })
            put("host_name", hostName.map { .string($0) })
            put("vendor_name", vendorName.map { .string($0) })
            put("model_name", modelName.map { .string($0) })
            put("last_seen", lastSeen.map { .integer($0) })
            return .object(o)
        }
    }

    public enum LinkNetwork: String, Hashable, Sendable {
        case thread, wifi
    }

    /// A link. Thread links keep what each side reported (they can differ); `strength` is the
    /// stronger of the two.
    public struct Connection: Hashable, Sendable {
        public var source: String
        public var target: String
        public var network: LinkNetwork
        public var strength: Strength
        public var sourceToTarget: Direction?
        public var targetToSource: Direction?
        /// Known only from a route table, not a neighbour table.
        public var viaRouteTable: Bool?
        public var pathCost: Int?

        public init(source: String, target: String, network: LinkNetwork, strength: Strength,
                    sourceToTarget: Direction? = nil, targetToSource: Direction? = nil,
                    viaRouteTable: Bool? = nil, pathCost: Int? = nil) {
            self.source = source
            self.target = target
            self.network = network
            self.strength = strength
            self.sourceToTarget = sourceToTarget
            self.targetToSource = targetToSource
            self.viaRouteTable = viaRouteTable
            self.pathCost = pathCost
        }

        public var json: JSONValue {
            var o = JSONObject()
            o.append("source", .string(source))
            o.append("target", .string(target))
            o.append("network", .string(network.rawValue))
            o.append("strength", .string(strength.rawValue))
            if let sourceToTarget { o.append("source_to_target", sourceToTarget.json) }
            if let targetToSource { o.append("target_to_source", targetToSource.json) }
            if let viaRouteTable { o.append("via_route_table", .bool(viaRouteTable)) }
            if let pathCost { o.append("path_cost", .integer(pathCost)) }
            return .object(o)
        }
    }

    public var json: JSONValue {
        .object(["collected_at": .integer(collectedAt), "nodes": .array(nodes.map(\.json)),
                 "connections": .array(connections.map(\.json))])
    }

    /// The graph without its timestamp, in an order that does not depend on how it was built:
    /// two snapshots with the same graph are equal here (so an unchanged rebuild is not sent).
    public var graph: Graph {
        Graph(nodes: Set(nodes), connections: Set(connections))
    }

    public struct Graph: Hashable, Sendable {
        public var nodes: Set<Node>
        public var connections: Set<Connection>
    }
}
