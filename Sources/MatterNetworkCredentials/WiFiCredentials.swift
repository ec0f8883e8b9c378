public import MatterCrypto

/// The credentials of a Wi-Fi network as Matter's AddOrUpdateWiFiNetwork carries them (Matter
/// Core 11.9.7.3): an SSID of 1-32 bytes and a passphrase of 8-63 printable ASCII characters
/// (WPA2/WPA3-Personal), a 64-digit hex PSK, or nothing for an open network.
public struct WiFiCredentials: Sendable, Hashable {
    public let ssid: [UInt8]
    /// `<redacted>` when printed.
    public let passphrase: SecretBytes

    public init(ssid: [UInt8], passphrase: SecretBytes) throws(WiFiCredentialsError) {
        guard (1...32).contains(ssid.count) else { throw .ssidLength(ssid.count) }
        let p = passphrase.bytes
        let isHexPSK = p.count == 64 && p.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0 & 0xDF) }
        guard p.isEmpty || isHexPSK || ((8...63).contains(p.count) && p.allSatisfy({ (0x20...0x7E).contains($0) })) else {
            throw .passphrase
        }
        self.ssid = ssid
        self.passphrase = passphrase
    }

    /// The SSID as text when it is UTF-8 (it usually is), else nil.
    public var ssidText: String? { String(validating: ssid, as: UTF8.self) }
}

/// Why Wi-Fi credentials were refused. Never contains the passphrase.
public enum WiFiCredentialsError: Error, Sendable, Hashable, CustomStringConvertible {
    case ssidLength(Int)
    case passphrase

    public var description: String {
        switch self {
        case .ssidLength(let n): "the SSID is \(n) bytes; a Wi-Fi SSID is 1-32 bytes"
        case .passphrase:
            "the passphrase must be 8-63 printable ASCII characters (WPA2/WPA3-Personal), 64 hex digits (a raw PSK), "
                + "or empty for an open network"
        }
    }
}
