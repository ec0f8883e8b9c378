/// A fabric ID (Matter Core 2.5.1). 0 is reserved and never valid in a certificate.
public struct FabricID: MatterIdentifier, ExpressibleByIntegerLiteral {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public var isValid: Bool { rawValue != 0 }
    /// 16 uppercase hex digits, the form used in certificates and DNS-SD names.
    public var description: String { paddedHex }
}

/// A node ID (Matter Core 2.5.5).
public struct NodeID: MatterIdentifier, ExpressibleByIntegerLiteral {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Operational node IDs are 0x0000_0000_0000_0001 through 0xFFFF_FFEF_FFFF_FFFF; the rest
    /// is reserved for group, temporary, PAKE and CASE-auth-tag forms.
    public var isOperational: Bool { rawValue >= 1 && rawValue <= 0xFFFF_FFEF_FFFF_FFFF }
    /// 16 uppercase hex digits, the form used in certificates and DNS-SD names.
    public var description: String { paddedHex }
}

/// A vendor ID (Matter Core 2.5.2): assigned by the CSA; 0xFFF1-0xFFF4 are the test vendors.
public struct VendorID: MatterIdentifier, ExpressibleByIntegerLiteral {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The test vendor IDs (0xFFF1-0xFFF4), which production PAAs never certify.
    public var isTestVendor: Bool { (0xFFF1...0xFFF4).contains(rawValue) }
}

/// A product ID (Matter Core 2.5.3), assigned by its vendor.
public struct ProductID: MatterIdentifier, ExpressibleByIntegerLiteral {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
}
