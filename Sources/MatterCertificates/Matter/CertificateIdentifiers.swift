import MatterTLV

/// A CASE Authenticated Tag (Matter Core 6.6.2.1.2): 16-bit identifier, 16-bit version; a
/// version of 0 is invalid.
public struct CASEAuthenticatedTag: MatterIdentifier {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(identifier: UInt16, version: UInt16) { rawValue = UInt32(identifier) << 16 | UInt32(version) }

    public var identifier: UInt16 { UInt16(rawValue >> 16) }
    public var version: UInt16 { UInt16(truncatingIfNeeded: rawValue) }
    public var isValid: Bool { version != 0 }
    /// 8 uppercase hex digits.
    public var description: String { paddedHex }
}

/// Seconds since the Matter epoch, 2000-01-01T00:00:00Z (Matter Core 2.5.8), as carried in
/// TLV certificates. In a certificate's not-after, 0 means "no well-defined expiration".
public struct MatterEpochTime: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// Unix time of the Matter epoch.
    public static let unixOffset: Int64 = 946_684_800

    /// The Matter time of a number of seconds since 1970; nil before 2000 or after 2136.
    public init?(unixSeconds: Int64) {
        guard let v = UInt32(exactly: unixSeconds - Self.unixOffset) else { return nil }
        rawValue = v
    }

    public var unixSeconds: Int64 { Int64(rawValue) + Self.unixOffset }
    public static func < (a: MatterEpochTime, b: MatterEpochTime) -> Bool { a.rawValue < b.rawValue }

    /// The X.509 time of a certificate validity field: 0 maps to 99991231235959Z (RFC 5280's
    /// "no well-defined expiration"), as the Matter conversion requires (Matter Core 6.5.8).
    public var certificateTime: ASN1Time {
        if rawValue == 0 { return .noWellDefinedExpiration }
        return (try? ASN1Time(unixSeconds: unixSeconds)) ?? .noWellDefinedExpiration
    }

    /// The inverse of `certificateTime`: 99991231235959Z maps to 0; times before 2000 or past
    /// the 32-bit range cannot be represented.
    public init(certificateTime t: ASN1Time) throws(CertificateError) {
        if t == .noWellDefinedExpiration {
            rawValue = 0
            return
        }
        guard let v = MatterEpochTime(unixSeconds: t.unixSeconds) else {
            throw .notMatterCompatible("time \(t.iso8601) is outside the Matter epoch range")
        }
        rawValue = v.rawValue
    }

    public var description: String { rawValue == 0 ? "0 (no expiry)" : certificateTime.iso8601 }
}
