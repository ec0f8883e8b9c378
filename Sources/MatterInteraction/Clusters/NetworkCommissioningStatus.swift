extension Clusters.NetworkCommissioning {
    /// NetworkCommissioningStatusEnum (Matter Core 11.9.5.1): the outcome of ScanNetworks,
    /// AddOrUpdateWiFiNetwork, AddOrUpdateThreadNetwork, RemoveNetwork, ConnectNetwork and
    /// ReorderNetwork, and the LastNetworkingStatus attribute. Unknown values round-trip.
    public struct Status: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// OK, no error.
        public static let success = Self(rawValue: 0)
        /// A value was outside its range.
        public static let outOfRange = Self(rawValue: 1)
        /// A collection would exceed its size limit (e.g. MaxNetworks).
        public static let boundsExceeded = Self(rawValue: 2)
        /// The NetworkID is not among the configured networks.
        public static let networkIDNotFound = Self(rawValue: 3)
        /// The NetworkID is already among the configured networks.
        public static let duplicateNetworkID = Self(rawValue: 4)
        /// Cannot find the network (SSID or Thread network not in range).
        public static let networkNotFound = Self(rawValue: 5)
        /// Cannot use the network because of the current regulatory configuration.
        public static let regulatoryError = Self(rawValue: 6)
        /// Cannot associate: the credentials are wrong.
        public static let authFailure = Self(rawValue: 7)
        /// The network's security mode is not supported.
        public static let unsupportedSecurity = Self(rawValue: 8)
        /// Some other connection failure.
        public static let otherConnectionFailure = Self(rawValue: 9)
        /// IPv6 could not be set up on the interface.
        public static let ipv6Failed = Self(rawValue: 10)
        /// Could not bind the operational port on the interface.
        public static let ipBindFailed = Self(rawValue: 11)
        /// Unknown error.
        public static let unknownError = Self(rawValue: 12)

        /// Every value the spec defines, in order.
        public static let allDefined: [Status] = (0...12).map { Status(rawValue: $0) }

        /// The spec's name of the value (e.g. `AuthFailure`).
        public var name: String {
            switch rawValue {
            case 0: "Success"
            case 1: "OutOfRange"
            case 2: "BoundsExceeded"
            case 3: "NetworkIDNotFound"
            case 4: "DuplicateNetworkID"
            case 5: "NetworkNotFound"
            case 6: "RegulatoryError"
            case 7: "AuthFailure"
            case 8: "UnsupportedSecurity"
            case 9: "OtherConnectionFailure"
            case 10: "IPV6Failed"
            case 11: "IPBindFailed"
            case 12: "UnknownError"
            default: "NetworkCommissioningStatus \(rawValue)"
            }
        }

        public var description: String { "\(name) (\(rawValue))" }
    }

    /// The cluster's FeatureMap bits (Matter Core 11.9.4).
    public struct Feature: OptionSet, Hashable, Sendable {
        public var rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// WI: a Wi-Fi interface.
        public static let wifiNetworkInterface = Feature(rawValue: 1 << 0)
        /// TH: a Thread interface.
        public static let threadNetworkInterface = Feature(rawValue: 1 << 1)
        /// ET: an Ethernet interface.
        public static let ethernetNetworkInterface = Feature(rawValue: 1 << 2)
        /// PDC: Wi-Fi per-device credentials.
        public static let perDeviceCredentials = Feature(rawValue: 1 << 3)
    }
}
