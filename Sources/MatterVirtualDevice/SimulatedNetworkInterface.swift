import MatterClusters
import MatterCrypto
import MatterInteraction
import MatterNetworkCredentials
import MatterTLV

/// The radio a virtual device simulates with `--network wifi|thread`: the NetworkCommissioning
/// cluster's server side (Matter Core 11.9) over a pretend Wi-Fi or Thread interface. Every
/// network is in range and every credential is accepted, unless a fault says otherwise
/// (`wrong-network-credentials`: ConnectNetwork fails with AuthFailure; `network-not-found`:
/// scans see nothing and ConnectNetwork fails with NetworkNotFound). Sans-I/O: the device core
/// calls it inside the fail-safe and publishes its operational adverts once it is connected.
struct SimulatedNetworkInterface: Sendable {
    typealias NC = Clusters.NetworkCommissioning

    /// One configured network: its NetworkID (SSID or extended PAN ID) and its credentials
    /// (passphrase or dataset TLVs), which never leave the device.
    struct Network: Sendable, Hashable {
        var id: [UInt8]
        var credentials: SecretBytes
    }

    /// What the fail-safe restores (Matter Core 11.9.7.5, 11.10.7.2.2).
    struct Snapshot: Sendable, Hashable {
        var networks: [Network]
        var connectedID: [UInt8]?
    }

    let kind: VirtualDeviceConfiguration.Network
    let rejectsCredentials: Bool
    let networkAbsent: Bool
    private(set) var networks: [Network] = []
    private(set) var connectedID: [UInt8]?
    private(set) var lastNetworkingStatus: NC.Status?
    private(set) var lastNetworkID: [UInt8]?
    private(set) var lastConnectErrorValue: Int32?

    static let maxNetworks: UInt8 = 1
    static let scanMaxTimeSeconds: UInt8 = 3
    static let connectMaxTimeSeconds: UInt8 = 5
    /// A network in range besides the ones the device is given (so scans are not trivially ours).
    static let neighbourName = "MatterHub-Neighbour"
    static let neighbourExtendedPANID: UInt64 = 0x4D48_0000_0000_0001
    /// The 802.11 reason code reported with AuthFailure (15: 4-way handshake timeout).
    static let wifiAuthFailureReason: Int32 = 15

    init(kind: VirtualDeviceConfiguration.Network, faults: Set<VirtualDeviceFault>) {
        self.kind = kind
        rejectsCredentials = faults.contains(.wrongNetworkCredentials)
        networkAbsent = faults.contains(.networkNotFound)
    }

    var featureMap: NC.Feature { kind == .wifi ? .wiFiNetworkInterface : .threadNetworkInterface }
    var isConnected: Bool { connectedID != nil }
    /// The dataset of the Thread network the device joined (nil on Wi-Fi or before joining).
    var joinedThreadDataset: ThreadDataset? {
        guard kind == .thread, let id = connectedID, let n = networks.first(where: { $0.id == id }) else { return nil }
        return try? ThreadDataset(tlvs: n.credentials.bytes)
    }
    var snapshot: Snapshot { Snapshot(networks: networks, connectedID: connectedID) }

    mutating func restore(_ s: Snapshot) {
        networks = s.networks
        connectedID = s.connectedID
    }

    // MARK: Commands

    /// ScanNetworks: a directed Wi-Fi scan sees the SSID asked for; otherwise the configured
    /// networks and the neighbour.
    mutating func scan(ssid: [UInt8]?) -> NC.ScanNetworksResponse {
        lastNetworkingStatus = .success
        if kind == .thread {
            guard ssid == nil else { return NC.ScanNetworksResponse(networkingStatus: .outOfRange, debugText: "SSID on a Thread scan") }
            if networkAbsent { return NC.ScanNetworksResponse(networkingStatus: .success, threadScanResults: []) }
            var results = [NC.ThreadScanResult(panID: 0x4D48, extendedPANID: Self.neighbourExtendedPANID, networkName: Self.neighbourName,
                                               channel: 15, version: 4, extendedAddress: [0x4D, 0x48, 0, 0, 0, 0, 0, 1], rssi: -70, lqi: 200)]
            for n in networks {
                let d = try? ThreadDataset(tlvs: n.credentials.bytes)
                results.append(NC.ThreadScanResult(panID: d?.panID, extendedPANID: n.id.reduce(UInt64(0)) { $0 << 8 | UInt64($1) },
                                                   networkName: d?.networkName, channel: d?.channel.map { UInt16($0.number) },
                                                   version: 4, rssi: -55, lqi: 230))
            }
            return NC.ScanNetworksResponse(networkingStatus: .success, threadScanResults: results)
        }
        if networkAbsent { return NC.ScanNetworksResponse(networkingStatus: .success, wifiScanResults: []) }
        let ssids = ssid.map { [$0] } ?? (networks.map(\.id) + [Array(Self.neighbourName.utf8)])
        return NC.ScanNetworksResponse(networkingStatus: .success, wifiScanResults: ssids.enumerated().map { i, s in
            NC.WiFiScanResult(security: 0x08, ssid: s, bssid: [0x02, 0x4D, 0x48, 0, 0, UInt8(i)], channel: 6, wifiBand: 0, rssi: -50)
        })
    }

    /// AddOrUpdateWiFiNetwork (validated as the spec says: SSID 1-32 bytes, credentials a
    /// passphrase, a hex PSK or empty).
    mutating func addOrUpdateWiFi(ssid: [UInt8], credentials: [UInt8]) -> NC.NetworkConfigResponse {
        guard kind == .wifi else { return NC.NetworkConfigResponse(networkingStatus: .unknownError) }
        guard (try? WiFiCredentials(ssid: ssid, passphrase: SecretBytes(credentials))) != nil else {
            return NC.NetworkConfigResponse(networkingStatus: .outOfRange, debugText: "invalid SSID or credentials")
        }
        return addOrUpdate(Network(id: ssid, credentials: SecretBytes(credentials)))
    }

    /// AddOrUpdateThreadNetwork: the dataset must decode and be complete; its extended PAN ID
    /// is the NetworkID.
    mutating func addOrUpdateThread(dataset: [UInt8]) -> NC.NetworkConfigResponse {
        guard kind == .thread else { return NC.NetworkConfigResponse(networkingStatus: .unknownError) }
        guard let d = try? ThreadDataset(tlvs: dataset), (try? d.checkComplete()) != nil, let xpan = d.extendedPANID else {
            return NC.NetworkConfigResponse(networkingStatus: .outOfRange, debugText: "invalid or incomplete operational dataset")
        }
        return addOrUpdate(Network(id: xpan, credentials: SecretBytes(dataset)))
    }

    private mutating func addOrUpdate(_ n: Network) -> NC.NetworkConfigResponse {
        if let i = networks.firstIndex(where: { $0.id == n.id }) {
            networks[i] = n
            return NC.NetworkConfigResponse(networkingStatus: .success, networkIndex: UInt8(i))
        }
        guard networks.count < Self.maxNetworks else { return NC.NetworkConfigResponse(networkingStatus: .boundsExceeded) }
        networks.append(n)
        return NC.NetworkConfigResponse(networkingStatus: .success, networkIndex: UInt8(networks.count - 1))
    }

    /// RemoveNetwork.
    mutating func remove(id: [UInt8]) -> NC.NetworkConfigResponse {
        guard let i = networks.firstIndex(where: { $0.id == id }) else {
            return NC.NetworkConfigResponse(networkingStatus: .networkIDNotFound)
        }
        networks.remove(at: i)
        if connectedID == id { connectedID = nil }
        return NC.NetworkConfigResponse(networkingStatus: .success, networkIndex: UInt8(i))
    }

    /// ConnectNetwork: joins a configured network, or fails as the faults say. Sets the Last*
    /// attributes before answering (Matter Core 11.9.7.9).
    mutating func connect(id: [UInt8]) -> NC.ConnectNetworkResponse {
        let response: NC.ConnectNetworkResponse
        if !networks.contains(where: { $0.id == id }) {
            response = NC.ConnectNetworkResponse(networkingStatus: .networkIDNotFound)
        } else if networkAbsent {
            response = NC.ConnectNetworkResponse(networkingStatus: .networkNotFound, debugText: "no such network in range")
        } else if rejectsCredentials {
            response = NC.ConnectNetworkResponse(networkingStatus: .authFailure, debugText: "authentication failed",
                                                 errorValue: kind == .wifi ? Self.wifiAuthFailureReason : nil)
        } else {
            connectedID = id
            response = NC.ConnectNetworkResponse(networkingStatus: .success)
        }
        lastNetworkingStatus = response.networkingStatus
        lastNetworkID = id
        lastConnectErrorValue = response.errorValue
        return response
    }

    // MARK: Attributes

    /// The cluster's attribute values (Matter Core 11.9.6).
    func attribute(_ id: AttributeID) -> TLVElement? {
        typealias A = Clusters.NetworkCommissioning.Attribute
        return switch id {
        case A.maxNetworks: .unsigned(Self.maxNetworks)
        case A.networks: .array(networks.map { NC.NetworkInfo(networkID: $0.id, connected: $0.id == connectedID).element(tag: .anonymous) })
        case A.scanMaxTimeSeconds: .unsigned(Self.scanMaxTimeSeconds)
        case A.connectMaxTimeSeconds: .unsigned(Self.connectMaxTimeSeconds)
        case A.interfaceEnabled: .bool(true)
        case A.lastNetworkingStatus: lastNetworkingStatus.map { .unsigned($0.rawValue) } ?? .null(.anonymous)
        case A.lastNetworkID: lastNetworkID.map { .bytes($0) } ?? .null(.anonymous)
        case A.lastConnectErrorValue: lastConnectErrorValue.map { .signed($0) } ?? .null(.anonymous)
        default: nil
        }
    }

    /// The attribute IDs the interface implements.
    static let attributeIDs: [AttributeID] = {
        typealias A = Clusters.NetworkCommissioning.Attribute
        return [A.maxNetworks, A.networks, A.scanMaxTimeSeconds, A.connectMaxTimeSeconds, A.interfaceEnabled,
                A.lastNetworkingStatus, A.lastNetworkID, A.lastConnectErrorValue]
    }()
    /// Accepted commands: ScanNetworks, AddOrUpdate{WiFi|Thread}Network, RemoveNetwork, ConnectNetwork.
    static func acceptedCommands(_ kind: VirtualDeviceConfiguration.Network) -> [CommandID] {
        typealias C = Clusters.NetworkCommissioning.Command
        return [C.scanNetworks, kind == .wifi ? C.addOrUpdateWiFiNetwork : C.addOrUpdateThreadNetwork, C.removeNetwork,
                C.connectNetwork]
    }
    static let generatedCommands: [CommandID] = [Clusters.NetworkCommissioning.Command.scanNetworksResponse,
                                                 Clusters.NetworkCommissioning.Command.networkConfigResponse,
                                                 Clusters.NetworkCommissioning.Command.connectNetworkResponse]
}

/// The networks a commissioned device keeps across restarts (state.json, mode 0600).
struct NetworkRecord: Codable, Sendable, Hashable {
    var id: [UInt8]
    var credentials: [UInt8]
    var connected: Bool
}

extension SimulatedNetworkInterface {
    var records: [NetworkRecord] {
        networks.map { NetworkRecord(id: $0.id, credentials: $0.credentials.bytes, connected: $0.id == connectedID) }
    }

    mutating func load(_ records: [NetworkRecord]) {
        networks = records.map { Network(id: $0.id, credentials: SecretBytes($0.credentials)) }
        connectedID = records.first(where: \.connected)?.id
    }
}

extension NetworkRecord: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Keeps the passphrase or network key out of logs and `dump`.
    var description: String { "Network(id: \(id.count) bytes, credentials: <redacted>, connected: \(connected))" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }
}
