import MatterClusters
import MatterTLV

/// The NetworkCommissioning cluster's commands (Matter Core 11.9.7), with the field tags of
/// connectedhomeip's network-commissioning-cluster.xml. The credentials of
/// AddOrUpdateWiFiNetwork and the dataset of AddOrUpdateThreadNetwork (it holds the network key)
/// are printed `<redacted>`.
extension Clusters.NetworkCommissioning {
    /// ScanNetworks (0x00): a directed scan for one SSID (Wi-Fi), or all networks in range.
    public struct ScanNetworks: CommandRequest {
        public typealias Response = ScanNetworksResponse
        public typealias Tag = Clusters.NetworkCommissioning.ScanNetworksTag
        public static var cluster: ClusterID { Clusters.NetworkCommissioning.id }
        public static var command: CommandID { Command.scanNetworks }
        /// The SSID of a directed Wi-Fi scan; nil scans for every network (always nil for Thread).
        public var ssid: [UInt8]?
        public var breadcrumb: UInt64?

        public init(ssid: [UInt8]? = nil, breadcrumb: UInt64? = nil) {
            self.ssid = ssid
            self.breadcrumb = breadcrumb
        }

        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "ScanNetworks")
            ssid = f.optional(Tag.ssid)?.isNull == true ? nil : try f.bytes(Tag.ssid)
            breadcrumb = try f.uint(Tag.breadcrumb)
        }

        public func element(tag: TLVTag) -> TLVElement {
            var w = FieldWriter()
            w.bytes(Tag.ssid, ssid)
            w.uint(Tag.breadcrumb, breadcrumb)
            return w.structure(tag)
        }
    }

    /// ScanNetworksResponse (0x01).
    public struct ScanNetworksResponse: CommandFields {
        public typealias Tag = Clusters.NetworkCommissioning.ScanNetworksResponseTag
        public static var cluster: ClusterID { Clusters.NetworkCommissioning.id }
        public static var command: CommandID { Command.scanNetworksResponse }
        public var networkingStatus: Status
        public var debugText: String?
        public var wifiScanResults: [WiFiScanResult]?
        public var threadScanResults: [ThreadScanResult]?

        public init(networkingStatus: Status, debugText: String? = nil, wifiScanResults: [WiFiScanResult]? = nil,
                    threadScanResults: [ThreadScanResult]? = nil) {
            self.networkingStatus = networkingStatus
            self.debugText = debugText
            self.wifiScanResults = wifiScanResults
            self.threadScanResults = threadScanResults
        }

        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "ScanNetworksResponse")
            networkingStatus = Status(rawValue: try f.requiredUInt(Tag.networkingStatus))
            debugText = try f.string(Tag.debugText)
            wifiScanResults = try f.array(Tag.wiFiScanResults) { e throws(InteractionError) in try WiFiScanResult(element: e) }
            threadScanResults = try f.array(Tag.threadScanResults) { e throws(InteractionError) in try ThreadScanResult(element: e) }
        }

        public func element(tag: TLVTag) -> TLVElement {
            var w = FieldWriter()
            w.uint(Tag.networkingStatus, networkingStatus.rawValue)
            w.string(Tag.debugText, debugText)
            w.array(Tag.wiFiScanResults, wifiScanResults?.map { $0.element(tag: .anonymous) })
            w.array(Tag.threadScanResults, threadScanResults?.map { $0.element(tag: .anonymous) })
            return w.structure(tag)
        }
    }

    /// AddOrUpdateWiFiNetwork (0x02). PDC fields (3-5) are not sent and are skipped on decode.
    public struct AddOrUpdateWiFiNetwork: CommandRequest {
        public typealias Response = NetworkConfigResponse
        public typealias Tag = Clusters.NetworkCommissioning.AddOrUpdateWiFiNetworkTag
        public static var cluster: ClusterID { Clusters.NetworkCommissioning.id }
        public static var command: CommandID { Command.addOrUpdateWiFiNetwork }
        public var ssid: [UInt8]
        /// The passphrase (8-63 characters), a 64-hex-digit PSK, or empty for an open network.
        public var credentials: [UInt8]
        public var breadcrumb: UInt64?

        public init(ssid: [UInt8], credentials: [UInt8], breadcrumb: UInt64? = nil) {
            self.ssid = ssid
            self.credentials = credentials
            self.breadcrumb = breadcrumb
        }

        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "AddOrUpdateWiFiNetwork")
            ssid = try f.requiredBytes(Tag.ssid)
            credentials = try f.requiredBytes(Tag.credentials)
            breadcrumb = try f.uint(Tag.breadcrumb)
        }

        public func element(tag: TLVTag) -> TLVElement {
            var w = FieldWriter()
            w.bytes(Tag.ssid, ssid)
            w.bytes(Tag.credentials, credentials)
            w.uint(Tag.breadcrumb, breadcrumb)
            return w.structure(tag)
        }
    }

    /// AddOrUpdateThreadNetwork (0x03): the operational dataset (MeshCoP TLVs); its extended
    /// PAN ID is the NetworkID.
    public struct AddOrUpdateThreadNetwork: CommandRequest {
        public typealias Response = NetworkConfigResponse
        public typealias Tag = Clusters.NetworkCommissioning.AddOrUpdateThreadNetworkTag
        public static var cluster: ClusterID { Clusters.NetworkCommissioning.id }
        public static var command: CommandID { Command.addOrUpdateThreadNetwork }
        public var operationalDataset: [UInt8]
        public var breadcrumb: UInt64?

        public init(operationalDataset: [UInt8], breadcrumb: UInt64? = nil) {
            self.operationalDataset = operationalDataset
            self.breadcrumb = breadcrumb
        }

        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "AddOrUpdateThreadNetwork")
            operationalDataset = try f.requiredBytes(Tag.operationalDataset)
            breadcrumb = try f.uint(Tag.breadcrumb)
        }

        public func element(tag: TLVTag) -> TLVElement {
            var w = FieldWriter()
            w.bytes(Tag.operationalDataset, operationalDataset)
            w.uint(Tag.breadcrumb, breadcrumb)
            return w.structure(tag)
        }
    }

    /// NetworkConfigResponse (0x05): the answer to AddOrUpdate*, RemoveNetwork, ReorderNetwork.
    public struct NetworkConfigResponse: CommandFields {
        public typealias Tag = Clusters.NetworkCommissioning.NetworkConfigResponseTag
        public static var cluster: ClusterID { Clusters.NetworkCommissioning.id }
        public static var command: CommandID { Command.networkConfigResponse }
        public var networkingStatus: Status
        public var debugText: String?
        /// The entry's index in Networks, on success.
        public var networkIndex: UInt8?

        public init(networkingStatus: Status, debugText: String? = nil, networkIndex: UInt8? = nil) {
            self.networkingStatus = networkingStatus
            self.debugText = debugText
            self.networkIndex = networkIndex
        }

        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "NetworkConfigResponse")
            networkingStatus = Status(rawValue: try f.requiredUInt(Tag.networkingStatus))
            debugText = try f.string(Tag.debugText)
            networkIndex = try f.uint(Tag.networkIndex)
        }

        public func element(tag: TLVTag) -> TLVElement {
            var w = FieldWriter()
            w.uint(Tag.networkingStatus, networkingStatus.rawValue)
            w.string(Tag.debugText, debugText)
            w.uint(Tag.networkIndex, networkIndex)
            return w.structure(tag)
        }
    }

    /// ConnectNetwork (0x06): join a configured network (by SSID, or extended PAN ID for Thread).
    public struct ConnectNetwork: CommandRequest {
        public typealias Response = ConnectNetworkResponse
        public typealias Tag = Clusters.NetworkCommissioning.ConnectNetworkTag
        public static var cluster: ClusterID { Clusters.NetworkCommissioning.id }
        public static var command: CommandID { Command.connectNetwork }
        public var networkID: [UInt8]
        public var breadcrumb: UInt64?

        public init(networkID: [UInt8], breadcrumb: UInt64? = nil) {
            self.networkID = networkID
            self.breadcrumb = breadcrumb
        }

        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "ConnectNetwork")
            networkID = try f.requiredBytes(Tag.networkID)
            breadcrumb = try f.uint(Tag.breadcrumb)
        }

        public func element(tag: TLVTag) -> TLVElement {
            var w = FieldWriter()
            w.bytes(Tag.networkID, networkID)
            w.uint(Tag.breadcrumb, breadcrumb)
            return w.structure(tag)
        }
    }

    /// ConnectNetworkResponse (0x07).
    public struct ConnectNetworkResponse: CommandFields {
        public typealias Tag = Clusters.NetworkCommissioning.ConnectNetworkResponseTag
        public static var cluster: ClusterID { Clusters.NetworkCommissioning.id }
        public static var command: CommandID { Command.connectNetworkResponse }
        public var networkingStatus: Status
        public var debugText: String?
        /// The interface's own error code (e.g. an 802.11 status), or nil (encoded as null).
        public var errorValue: Int32?

        public init(networkingStatus: Status, debugText: String? = nil, errorValue: Int32? = nil) {
            self.networkingStatus = networkingStatus
            self.debugText = debugText
            self.errorValue = errorValue
        }

        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "ConnectNetworkResponse")
            networkingStatus = Status(rawValue: try f.requiredUInt(Tag.networkingStatus))
            debugText = try f.string(Tag.debugText)
            errorValue = f.optional(Tag.errorValue)?.isNull == true ? nil : try f.int(Tag.errorValue)
        }

        public func element(tag: TLVTag) -> TLVElement {
            var w = FieldWriter()
            w.uint(Tag.networkingStatus, networkingStatus.rawValue)
            w.string(Tag.debugText, debugText)
            w.add(errorValue.map { .signed(.context(Tag.errorValue), $0) } ?? .null(.context(Tag.errorValue)))
            return w.structure(tag)
        }
    }
}

extension Clusters.NetworkCommissioning.AddOrUpdateWiFiNetwork: CustomStringConvertible, CustomDebugStringConvertible {
    /// Keeps the passphrase out of logs.
    public var description: String {
        "AddOrUpdateWiFiNetwork(ssid: \(ssid.count) bytes, credentials: <redacted>, breadcrumb: \(breadcrumb.map(String.init) ?? "none"))"
    }
    public var debugDescription: String { description }
}

extension Clusters.NetworkCommissioning.AddOrUpdateThreadNetwork: CustomStringConvertible, CustomDebugStringConvertible {
    /// Keeps the dataset (and its network key) out of logs.
    public var description: String {
        "AddOrUpdateThreadNetwork(operationalDataset: <redacted>, breadcrumb: \(breadcrumb.map(String.init) ?? "none"))"
    }
    public var debugDescription: String { description }
}
