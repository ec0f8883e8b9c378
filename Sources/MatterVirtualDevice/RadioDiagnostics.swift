import MatterClusters
import MatterInteraction
import MatterNetworkCredentials
import MatterTLV

/// What a simulated radio reports about its neighbourhood: Thread Network Diagnostics (Matter
/// Core 11.14) for `--network thread` and Wi-Fi Network Diagnostics (11.15) for `--network wifi`,
/// the attributes a hub draws the network map from. The mesh is given, not measured: the device's
/// own extended address and RLOC16, its role, and the neighbours (and the routes to the routers
/// among them) it reports.
public struct RadioDiagnostics: Sendable, Hashable {
    /// A Thread neighbour as this device reports it in its NeighborTable.
    public struct ThreadNeighbor: Sendable, Hashable {
        public var extendedAddress: UInt64
        public var rloc16: UInt16
        /// Link quality 0-3 (0: the link is dead).
        public var lqi: UInt8
        public var averageRSSI: Int8?
        /// A router (rx-on-when-idle) rather than a sleepy child; routers also get a RouteTable entry.
        public var isRouter: Bool

        public init(extendedAddress: UInt64, rloc16: UInt16 = 0, lqi: UInt8 = 3, averageRSSI: Int8? = -60, isRouter: Bool = true) {
            self.extendedAddress = extendedAddress
            self.rloc16 = rloc16
            self.lqi = lqi
            self.averageRSSI = averageRSSI
            self.isRouter = isRouter
        }

        /// `EXTADDR[:LQI[:RSSI[:RLOC16]]]`: 16 hex digits, LQI 0-3, RSSI in dBm, RLOC16 in hex.
        public init?(_ text: String) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard (1...4).contains(parts.count), parts[0].count == 16, let address = UInt64(parts[0], radix: 16) else { return nil }
            self.init(extendedAddress: address)
            if parts.count > 1 { guard let v = UInt8(parts[1]), v <= 3 else { return nil }; lqi = v }
            if parts.count > 2 { guard let v = Int8(parts[2]), v < 0 else { return nil }; averageRSSI = v }
            if parts.count > 3 { guard let v = UInt16(parts[3], radix: 16) else { return nil }; rloc16 = v }
        }
    }

    /// The Thread device roles of RoutingRole (ThreadNetworkDiagnostics' RoutingRoleEnum).
    public enum ThreadRole: String, Sendable, Hashable, CaseIterable {
        case endDevice = "end-device"
        case sleepyEndDevice = "sleepy-end-device"
        case reed, router, leader

        var value: UInt8 {
            switch self {
            case .sleepyEndDevice: 2
            case .endDevice: 3
            case .reed: 4
            case .router: 5
            case .leader: 6
            }
        }
    }

    public var threadExtendedAddress: UInt64
    public var threadRLOC16: UInt16
    public var threadRole: ThreadRole
    public var threadNeighbors: [ThreadNeighbor]
    public var wifiBSSID: [UInt8]
    public var wifiRSSI: Int8?

    public init(threadExtendedAddress: UInt64, threadRLOC16: UInt16, threadRole: ThreadRole = .router,
                threadNeighbors: [ThreadNeighbor] = [], wifiBSSID: [UInt8] = [0x02, 0x4D, 0x48, 0x00, 0x00, 0x01],
                wifiRSSI: Int8? = -55) {
        self.threadExtendedAddress = threadExtendedAddress
        self.threadRLOC16 = threadRLOC16
        self.threadRole = threadRole
        self.threadNeighbors = threadNeighbors
        self.wifiBSSID = wifiBSSID
        self.wifiRSSI = wifiRSSI
    }

    /// A device's own defaults, distinct per discriminator: extended address `4D48564400000XXX`
    /// and a router's RLOC16 (router ID 1-62 in the top six bits).
    public static func defaults(discriminator: UInt16) -> RadioDiagnostics {
        RadioDiagnostics(threadExtendedAddress: 0x4D48_5644_0000_0000 | UInt64(discriminator),
                         threadRLOC16: (discriminator % 62 + 1) << 10)
    }

    typealias Thread = Clusters.ThreadNetworkDiagnostics.Attribute
    typealias WiFi = Clusters.WiFiNetworkDiagnostics.Attribute

    static let threadAttributes: [AttributeID] = [
        Thread.channel, Thread.routingRole, Thread.networkName, Thread.panId, Thread.extendedPanId, Thread.meshLocalPrefix,
        Thread.neighborTable, Thread.routeTable, Thread.partitionId, Thread.weighting, Thread.dataVersion,
        Thread.stableDataVersion, Thread.leaderRouterId, Thread.securityPolicy, Thread.channelPage0Mask,
        Thread.operationalDatasetComponents, Thread.activeNetworkFaultsList, Thread.extAddress, Thread.rloc16,
    ]
    static let wifiAttributes: [AttributeID] = [WiFi.bssid, WiFi.securityType, WiFi.wiFiVersion, WiFi.channelNumber, WiFi.rssi]

    /// The hardware address General Diagnostics' NetworkInterfaces gives the radio.
    func hardwareAddress(_ network: VirtualDeviceConfiguration.Network) -> [UInt8] {
        network == .thread ? (0..<8).reversed().map { UInt8(truncatingIfNeeded: threadExtendedAddress >> ($0 * 8)) } : wifiBSSID
    }

    /// A Thread Network Diagnostics attribute; network values from the dataset the device joined
    /// (null while it has joined none, as the spec has them).
    func thread(_ attribute: AttributeID, dataset: ThreadDataset?) -> TLVElement? {
        func nullable(_ value: TLVElement?) -> TLVElement { value ?? .null(.anonymous) }
        let joined = dataset != nil
        switch attribute {
        case Thread.channel: return nullable(dataset?.channel.map { .unsigned(UInt16($0.number)) })
        case Thread.routingRole: return .unsigned(joined ? threadRole.value : 1)
        case Thread.networkName: return nullable(dataset?.networkName.map { .utf8($0) })
        case Thread.panId: return nullable(dataset?.panID.map { .unsigned($0) })
        case Thread.extendedPanId: return nullable(dataset?.extendedPANID.map { bytes in .unsigned(bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }) })
        case Thread.meshLocalPrefix: return nullable(dataset?.meshLocalPrefix.map { .bytes([64] + $0.bytes) })
        case Thread.neighborTable: return .array(joined ? threadNeighbors.map(neighborEntry) : [])
        case Thread.routeTable: return .array(joined ? threadNeighbors.filter(\.isRouter).map(routeEntry) : [])
        case Thread.partitionId: return joined ? .unsigned(UInt32(0x4D48_0001)) : .null(.anonymous)
        case Thread.weighting: return joined ? .unsigned(UInt16(64)) : .null(.anonymous)
        case Thread.dataVersion, Thread.stableDataVersion: return joined ? .unsigned(UInt16(1)) : .null(.anonymous)
        case Thread.leaderRouterId: return joined ? .unsigned(UInt8(threadRLOC16 >> 10)) : .null(.anonymous)
        case Thread.securityPolicy, Thread.operationalDatasetComponents, Thread.channelPage0Mask: return .null(.anonymous)
        case Thread.activeNetworkFaultsList: return .array([])
        case Thread.extAddress: return .unsigned(threadExtendedAddress)
        case Thread.rloc16: return .unsigned(threadRLOC16)
        default: return nil
        }
    }

    func wifi(_ attribute: AttributeID, connected: Bool) -> TLVElement? {
        switch attribute {
        case WiFi.bssid: return connected ? .bytes(wifiBSSID) : .null(.anonymous)
        case WiFi.securityType: return connected ? .unsigned(UInt8(4)) : .null(.anonymous)  // WPA2-Personal
        case WiFi.wiFiVersion: return connected ? .unsigned(UInt8(3)) : .null(.anonymous)  // 802.11n
        case WiFi.channelNumber: return connected ? .unsigned(UInt16(6)) : .null(.anonymous)
        case WiFi.rssi: return connected ? (wifiRSSI.map { .signed($0) } ?? .null(.anonymous)) : .null(.anonymous)
        default: return nil
        }
    }

    private func neighborEntry(_ n: ThreadNeighbor) -> TLVElement {
        .structure([.unsigned(.context(0), n.extendedAddress), .unsigned(.context(1), UInt32(10)), .unsigned(.context(2), n.rloc16),
                    .unsigned(.context(3), UInt32(100)), .unsigned(.context(4), UInt32(100)), .unsigned(.context(5), n.lqi),
                    n.averageRSSI.map { .signed(.context(6), $0) } ?? .null(.context(6)),
                    n.averageRSSI.map { .signed(.context(7), $0) } ?? .null(.context(7)),
                    .unsigned(.context(8), UInt8(0)), .unsigned(.context(9), UInt8(0)), .bool(.context(10), n.isRouter),
                    .bool(.context(11), n.isRouter), .bool(.context(12), true), .bool(.context(13), !n.isRouter)])
    }

    private func routeEntry(_ n: ThreadNeighbor) -> TLVElement {
        .structure([.unsigned(.context(0), n.extendedAddress), .unsigned(.context(1), n.rloc16),
                    .unsigned(.context(2), UInt8(n.rloc16 >> 10)), .unsigned(.context(3), UInt8(n.rloc16 >> 10)),
                    .unsigned(.context(4), UInt8(1)), .unsigned(.context(5), n.lqi), .unsigned(.context(6), n.lqi),
                    .unsigned(.context(7), UInt8(10)), .bool(.context(8), true), .bool(.context(9), n.lqi > 0)])
    }
}
