import MatterClusters
import MatterTLV

/// The NetworkCommissioning cluster's structures (Matter Core 11.9.5), with the field tags of
/// connectedhomeip's network-commissioning-cluster.xml.
extension Clusters.NetworkCommissioning {
    /// NetworkInfoStruct: one entry of the Networks attribute.
    public struct NetworkInfo: TLVCodable {
        public typealias Tag = Clusters.NetworkCommissioning.NetworkInfoStructTag
        /// The SSID (Wi-Fi), extended PAN ID (Thread) or interface name (Ethernet).
        public var networkID: [UInt8]
        public var connected: Bool

        public init(networkID: [UInt8], connected: Bool) {
            self.networkID = networkID
            self.connected = connected
        }

        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "NetworkInfoStruct")
            networkID = try f.requiredBytes(Tag.networkID)
            connected = try f.requiredBool(Tag.connected)
        }

        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.bytes(.context(Tag.networkID), networkID), .bool(.context(Tag.connected), connected)])
        }
    }

    /// WiFiInterfaceScanResultStruct: one access point a scan saw.
    public struct WiFiScanResult: TLVCodable {
        public typealias Tag = Clusters.NetworkCommissioning.WiFiInterfaceScanResultStructTag
        /// WiFiSecurityBitmap: 0x01 unencrypted, 0x02 WEP, 0x04 WPA, 0x08 WPA2, 0x10 WPA3, 0x20 PDC.
        public var security: UInt8?
        public var ssid: [UInt8]?
        public var bssid: [UInt8]?
        public var channel: UInt16?
        /// WiFiBandEnum: 0 2.4 GHz, 1 3.65 GHz, 2 5 GHz, 3 6 GHz, 4 60 GHz, 5 1 GHz.
        public var wifiBand: UInt8?
        /// dBm.
        public var rssi: Int8?

        public init(security: UInt8? = nil, ssid: [UInt8]? = nil, bssid: [UInt8]? = nil, channel: UInt16? = nil,
                    wifiBand: UInt8? = nil, rssi: Int8? = nil) {
            self.security = security
            self.ssid = ssid
            self.bssid = bssid
            self.channel = channel
            self.wifiBand = wifiBand
            self.rssi = rssi
        }

        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "WiFiInterfaceScanResultStruct")
            security = try f.uint(Tag.security)
            ssid = try f.bytes(Tag.ssid)
            bssid = try f.bytes(Tag.bssid)
            channel = try f.uint(Tag.channel)
            wifiBand = try f.uint(Tag.wiFiBand)
            rssi = try f.int(Tag.rssi)
        }

        public func element(tag: TLVTag) -> TLVElement {
            var w = FieldWriter()
            w.uint(Tag.security, security)
            w.bytes(Tag.ssid, ssid)
            w.bytes(Tag.bssid, bssid)
            w.uint(Tag.channel, channel)
            w.uint(Tag.wiFiBand, wifiBand)
            w.int(Tag.rssi, rssi)
            return w.structure(tag)
        }
    }

    /// ThreadInterfaceScanResultStruct: one Thread network a scan heard.
    public struct ThreadScanResult: TLVCodable {
        public typealias Tag = Clusters.NetworkCommissioning.ThreadInterfaceScanResultStructTag
        public var panID: UInt16?
        /// The extended PAN ID as a big-endian 64-bit number.
        public var extendedPANID: UInt64?
        public var networkName: String?
        public var channel: UInt16?
        public var version: UInt8?
        public var extendedAddress: [UInt8]?
        public var rssi: Int8?
        public var lqi: UInt8?

        public init(panID: UInt16? = nil, extendedPANID: UInt64? = nil, networkName: String? = nil, channel: UInt16? = nil,
                    version: UInt8? = nil, extendedAddress: [UInt8]? = nil, rssi: Int8? = nil, lqi: UInt8? = nil) {
            self.panID = panID
            self.extendedPANID = extendedPANID
            self.networkName = networkName
            self.channel = channel
            self.version = version
            self.extendedAddress = extendedAddress
            self.rssi = rssi
            self.lqi = lqi
        }

        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "ThreadInterfaceScanResultStruct")
            panID = try f.uint(Tag.panId)
            extendedPANID = try f.uint(Tag.extendedPanId)
            networkName = try f.string(Tag.networkName)
            channel = try f.uint(Tag.channel)
            version = try f.uint(Tag.version)
            extendedAddress = try f.bytes(Tag.extendedAddress)
            rssi = try f.int(Tag.rssi)
            lqi = try f.uint(Tag.lqi)
        }

        public func element(tag: TLVTag) -> TLVElement {
            var w = FieldWriter()
            w.uint(Tag.panId, panID)
            w.uint(Tag.extendedPanId, extendedPANID)
            w.string(Tag.networkName, networkName)
            w.uint(Tag.channel, channel)
            w.uint(Tag.version, version)
            w.bytes(Tag.extendedAddress, extendedAddress)
            w.int(Tag.rssi, rssi)
            w.uint(Tag.lqi, lqi)
            return w.structure(tag)
        }
    }
}
