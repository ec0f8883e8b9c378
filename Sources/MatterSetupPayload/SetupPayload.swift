import MatterTLV

/// How a device enters commissioning mode (Matter Core 5.1.1.4).
public struct CommissioningFlow: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The device is commissionable whenever it is not commissioned.
    public static let standard = CommissioningFlow(rawValue: 0)
    /// The user must act on the device (a button, a power cycle) first.
    public static let userIntent = CommissioningFlow(rawValue: 1)
    /// The vendor's own instructions (an app, a web page) come first.
    public static let custom = CommissioningFlow(rawValue: 2)
}

/// The transports a device can be discovered on for commissioning (Matter Core 5.1.1.5).
/// Reserved bits are kept as they were read.
public struct DiscoveryCapabilities: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let softAP = DiscoveryCapabilities(rawValue: 1 << 0)
    public static let ble = DiscoveryCapabilities(rawValue: 1 << 1)
    public static let onNetwork = DiscoveryCapabilities(rawValue: 1 << 2)
    public static let wifiPAF = DiscoveryCapabilities(rawValue: 1 << 3)
    public static let nfc = DiscoveryCapabilities(rawValue: 1 << 4)
}

/// The discriminator a setup code carries: the full 12 bits from a QR code, or only the upper
/// four bits from a manual pairing code.
public enum Discriminator: Hashable, Sendable {
    case long(UInt16)
    case short(UInt8)

    /// The upper four bits, which both forms carry (`_S` DNS-SD subtype).
    public var shortValue: UInt8 {
        switch self {
        case .long(let d): return UInt8(d >> 8)
        case .short(let s): return s
        }
    }

    /// The full 12-bit value, when known (`_L` DNS-SD subtype).
    public var longValue: UInt16? {
        if case .long(let d) = self { return d }
        return nil
    }

    /// Whether an advertised 12-bit discriminator matches this one.
    public func matches(_ advertised: UInt16) -> Bool {
        switch self {
        case .long(let d): return d == advertised
        case .short(let s): return UInt8(advertised >> 8) == s
        }
    }
}

/// An element of a QR code's optional TLV data (Matter Core 5.1.5).
public struct SetupPayloadExtension: Hashable, Sendable {
    public var tag: UInt8
    public var value: TLVValue
    public init(tag: UInt8, value: TLVValue) {
        self.tag = tag
        self.value = value
    }
    /// Tags 0x80...0xFF belong to the vendor; 0x00...0x7F are defined by Matter.
    public var isVendorDefined: Bool { tag >= 0x80 }
}

/// The contents of a Matter onboarding payload, from a QR code or a manual pairing code.
public struct SetupPayload: Hashable, Sendable {
    /// Where the payload came from: QR codes carry every field, manual codes only some.
    public enum Kind: String, Hashable, Sendable {
        case qrCode = "qr"
        case manualCode = "manual"
    }

    public var kind: Kind
    public var version: UInt8
    /// Absent in 11-digit manual codes.
    public var vendorID: UInt16?
    public var productID: UInt16?
    public var commissioningFlow: CommissioningFlow?
    /// QR codes only.
    public var discoveryCapabilities: DiscoveryCapabilities?
    public var discriminator: Discriminator
    public var passcode: UInt32
    /// The serial number from the QR code's optional data (tag 0), string or integer.
    public var serialNumber: String?
    /// Every optional-data element other than the serial number, in the order read.
    public var extensions: [SetupPayloadExtension]

    public init(kind: Kind, version: UInt8 = 0, vendorID: UInt16?, productID: UInt16?,
                commissioningFlow: CommissioningFlow?, discoveryCapabilities: DiscoveryCapabilities?,
                discriminator: Discriminator, passcode: UInt32, serialNumber: String? = nil,
                extensions: [SetupPayloadExtension] = []) {
        self.kind = kind
        self.version = version
        self.vendorID = vendorID
        self.productID = productID
        self.commissioningFlow = commissioningFlow
        self.discoveryCapabilities = discoveryCapabilities
        self.discriminator = discriminator
        self.passcode = passcode
        self.serialNumber = serialNumber
        self.extensions = extensions
    }
}

extension SetupPayload {
    /// Reads a QR code (`MT:...`, possibly several joined by `*`) or a manual pairing code
    /// (11 or 21 digits; dashes and spaces allowed), and checks the rules every payload must
    /// meet. A QR code with several devices gives several payloads.
    public static func parse(_ code: String) throws(SetupPayloadError) -> [SetupPayload] {
        let trimmed = code.trimmingASCIIWhitespace()
        guard !trimmed.isEmpty else { throw .emptyInput }
        let payloads: [SetupPayload]
        if trimmed.hasPrefix(QRCode.prefix) || trimmed.contains("%") {
            payloads = try QRCode.decode(trimmed)
        } else if trimmed.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: " ") || ($0 >= 0x30 && $0 <= 0x39) }) {
            payloads = [try ManualPairingCode.decode(trimmed)]
        } else if trimmed.utf8.first.map({ $0 >= 0x30 && $0 <= 0x39 }) == true {
            // Starts like a manual code but holds other characters: say which.
            payloads = [try ManualPairingCode.decode(trimmed)]
        } else {
            throw .invalidPrefix
        }
        for p in payloads { try p.validate() }
        return payloads
    }

    /// Checks the rules every onboarding payload must meet (Matter Core 5.1.1, and the SDK's
    /// consumer-side checks): version 0, a valid passcode, a valid vendor ID, a product ID only
    /// with a vendor ID, a defined commissioning flow.
    public func validate() throws(SetupPayloadError) {
        guard version == 0 else { throw .invalidVersion(version) }
        try Passcode.validate(passcode)
        if let vid = vendorID {
            guard vid == 0 || vid <= 0xFFF4 else { throw .invalidVendorID(vid) }
            if let pid = productID, pid == 0, vid != 0 {
                throw .invalidProductID(pid, vendorID: vid)
            }
        }
        if let flow = commissioningFlow, flow.rawValue > 2 { throw .invalidCommissioningFlow(flow.rawValue) }
        if case .long(let d) = discriminator, d > 0xFFF { throw .invalidDiscriminator(d) }
    }
}

/// The rules for setup passcodes (Matter Core 5.1.7.1).
public enum Passcode {
    public static let maximum: UInt32 = 99_999_998
    /// Values that are trivially guessed and therefore forbidden.
    public static let forbidden: Set<UInt32> = [
        0, 11_111_111, 22_222_222, 33_333_333, 44_444_444, 55_555_555, 66_666_666, 77_777_777,
        88_888_888, 99_999_999, 12_345_678, 87_654_321,
    ]

    public static func validate(_ passcode: UInt32) throws(SetupPayloadError) {
        if passcode == 0 { throw .invalidPasscode(reason: "the passcode is zero") }
        if forbidden.contains(passcode) {
            throw .invalidPasscode(reason: "a repeated or sequential passcode is not allowed")
        }
        if passcode > maximum {
            throw .invalidPasscode(reason: "passcodes range from 00000001 to 99999998")
        }
    }

    public static func isValid(_ passcode: UInt32) -> Bool {
        (try? validate(passcode)) != nil
    }
}

extension String {
    func trimmingASCIIWhitespace() -> String {
        let bytes = Array(utf8)
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }),
              let end = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(decoding: bytes[start...end], as: UTF8.self)
    }
}
