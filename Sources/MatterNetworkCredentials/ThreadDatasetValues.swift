/// A MeshCoP timestamp (Active and Pending Timestamp TLVs): 48 bits of seconds, 15 bits of
/// 1/32768-second ticks and the authoritative bit (`U`), 8 bytes big-endian.
public struct ThreadTimestamp: Sendable, Hashable {
    /// Seconds, at most 2^48 - 1 (Unix time for a network's real clock; often 1 for a new one).
    public var seconds: UInt64
    /// Ticks of 1/32768 s, at most 32767.
    public var ticks: UInt16
    /// Whether the time came from an authoritative source.
    public var isAuthoritative: Bool

    public static let maxSeconds: UInt64 = (1 << 48) - 1
    public static let maxTicks: UInt16 = 0x7FFF

    public init(seconds: UInt64, ticks: UInt16 = 0, isAuthoritative: Bool = false) {
        self.seconds = seconds
        self.ticks = ticks
        self.isAuthoritative = isAuthoritative
    }

    /// From the 8-byte big-endian wire value (as a border agent's `at` TXT key carries it).
    public init(wireValue: UInt64) { self.init(wire: wireValue) }

    init(wire: UInt64) {
        seconds = wire >> 16
        ticks = UInt16(wire >> 1 & 0x7FFF)
        isAuthoritative = wire & 1 == 1
    }

    /// nil when seconds or ticks do not fit their fields.
    var wire: UInt64? {
        guard seconds <= Self.maxSeconds, ticks <= Self.maxTicks else { return nil }
        return seconds << 16 | UInt64(ticks) << 1 | (isAuthoritative ? 1 : 0)
    }
}

/// A channel page and number (Channel and Wake-up Channel TLVs: 1 byte page, 2 bytes channel).
public struct ThreadChannel: Sendable, Hashable {
    /// 0 for the 2.4 GHz O-QPSK PHY every Thread device has.
    public var page: UInt8
    public var number: UInt16

    public init(page: UInt8 = 0, number: UInt16) {
        self.page = page
        self.number = number
    }

    /// Page 0 carries channels 11-26 (IEEE 802.15.4, 2.4 GHz).
    public static let page0Channels: ClosedRange<UInt16> = 11...26

    /// Why this channel is not allowed, or nil. Other pages are not checked (their channel
    /// ranges are vendor-specific).
    var defect: String? {
        if page == 0 && !Self.page0Channels.contains(number) {
            return "has channel \(number) on page 0, where only channels 11-26 exist"
        }
        return nil
    }
}

/// One entry of the Channel Mask TLV: a channel page and a bit mask in which the most
/// significant bit of the first byte is channel 0.
public struct ThreadChannelMaskEntry: Sendable, Hashable {
    public var page: UInt8
    public var mask: [UInt8]

    public init(page: UInt8, mask: [UInt8]) {
        self.page = page
        self.mask = mask
    }

    /// Page 0, channels 11-26 (OpenThread's default: `0x07fff800` in its bit-per-channel form).
    public static let allPage0 = ThreadChannelMaskEntry(page: 0, mask: [0x00, 0x1F, 0xFF, 0xE0])

    /// The channels whose bit is set.
    public var channels: [UInt16] {
        var out: [UInt16] = []
        for (i, byte) in mask.enumerated() {
            for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 { out.append(UInt16(i * 8 + bit)) }
        }
        return out
    }
}

/// The Security Policy TLV: key rotation time in hours and the policy flags (1 byte in Thread
/// 1.1, 2 bytes since Thread 1.2), kept as received.
public struct ThreadSecurityPolicy: Sendable, Hashable {
    public var rotationTimeHours: UInt16
    /// The flag bytes, 1 or 2 (first byte: o n r c C e p R; second: version threshold and more).
    public var flags: [UInt8]

    public init(rotationTimeHours: UInt16, flags: [UInt8]) {
        self.rotationTimeHours = rotationTimeHours
        self.flags = flags
    }

    /// OpenThread's default: 672 hours, "onrc", version threshold 0 (`02a0f7f8`).
    public static let openThreadDefault = ThreadSecurityPolicy(rotationTimeHours: 672, flags: [0xF7, 0xF8])
}

/// A mesh-local prefix: the first 8 bytes of an IPv6 /64.
public struct ThreadMeshLocalPrefix: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// nil unless `bytes` is exactly 8 bytes.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count == 8 else { return nil }
        self.bytes = bytes
    }

    /// RFC 5952 text with the prefix length, e.g. `fdf1:f1ad:d079:7dc0::/64`.
    public var description: String { IPv6Text.prefix(bytes + [UInt8](repeating: 0, count: 8), length: 64) }
}

/// RFC 5952 text for IPv6 addresses and prefixes (standard library only).
public enum IPv6Text {
    /// `address` (16 bytes) in canonical form: lowercase, no leading zeros, the longest run of
    /// two or more zero groups (the first of equal runs) written `::`.
    public static func address(_ address: [UInt8]) -> String {
        precondition(address.count == 16, "an IPv6 address is 16 bytes")
        let groups = (0..<8).map { UInt16(address[2 * $0]) << 8 | UInt16(address[2 * $0 + 1]) }
        var best = (start: -1, length: 0), run = (start: -1, length: 0)
        for (i, g) in groups.enumerated() {
            if g == 0 {
                run = run.start < 0 ? (i, 1) : (run.start, run.length + 1)
                if run.length > best.length { best = run }
            } else {
                run = (-1, 0)
            }
        }
        if best.length < 2 { return groups.map { String($0, radix: 16) }.joined(separator: ":") }
        let head = groups[..<best.start].map { String($0, radix: 16) }.joined(separator: ":")
        let tail = groups[(best.start + best.length)...].map { String($0, radix: 16) }.joined(separator: ":")
        return head + "::" + tail
    }

    /// `address/length`.
    public static func prefix(_ address: [UInt8], length: Int) -> String { "\(Self.address(address))/\(length)" }
}
