/// The TXT of a Thread border agent's `_meshcop._udp` service (Thread 1.3, Border Agent TXT),
/// typed. Binary values stay bytes; a malformed value is nil here and listed in `issues`.
public struct MeshcopTXT: Sendable, Hashable {
    /// `rv`: TXT record version.
    public var recordVersion: String?
    /// `id`: border agent ID (16 bytes).
    public var borderAgentID: [UInt8]?
    /// `tv`: Thread version, e.g. "1.3.0".
    public var threadVersion: String?
    /// `sb`: the state bitmap, decoded.
    public var stateBitmap: MeshcopStateBitmap?
    /// `nn`: Thread network name (at most 16 bytes).
    public var networkName: String?
    /// `xp`: extended PAN ID (8 bytes).
    public var extendedPANID: [UInt8]?
    /// `vn`, `mn`: vendor and model names.
    public var vendorName: String?
    public var modelName: String?
    /// `at`: active operational dataset timestamp (8 bytes, big-endian).
    public var activeTimestamp: UInt64?
    /// `pt`: partition ID.
    public var partitionID: UInt32?
    /// `sq`: backbone router sequence number; `bb`: backbone router port.
    public var backboneSequence: UInt8?
    public var backbonePort: UInt16?
    /// `dn`: Thread domain name.
    public var domainName: String?
    /// `xa`: the agent's extended address (8 bytes).
    public var extendedAddress: [UInt8]?
    /// `omr`: the off-mesh-routable prefix (first byte: prefix length in bits).
    public var omrPrefix: [UInt8]?
    /// `vo`: vendor OUI (3 bytes).
    public var vendorOUI: [UInt8]?
    public var issues: [TXTIssue]

    public init(_ record: TXTRecord) {
        var r = TXTReader(record)
        recordVersion = r.text("rv", maxBytes: 255)
        borderAgentID = r.binary("id", length: 16)
        threadVersion = r.text("tv", maxBytes: 255)
        stateBitmap = r.bigEndian("sb", as: UInt32.self).map(MeshcopStateBitmap.init(rawValue:))
        networkName = r.text("nn", maxBytes: 16)
        extendedPANID = r.binary("xp", length: 8)
        vendorName = r.text("vn", maxBytes: 255)
        modelName = r.text("mn", maxBytes: 255)
        activeTimestamp = r.bigEndian("at", as: UInt64.self)
        partitionID = r.bigEndian("pt", as: UInt32.self)
        backboneSequence = r.bigEndian("sq", as: UInt8.self)
        backbonePort = r.bigEndian("bb", as: UInt16.self)
        domainName = r.text("dn", maxBytes: 255)
        extendedAddress = r.binary("xa", length: 8)
        if let omr = record["omr"] {
            if let bits = omr.first, bits <= 128, omr.count - 1 == (Int(bits) + 7) / 8 {
                omrPrefix = omr
            } else {
                r.issues.append(TXTIssue(key: "omr", reason: "prefix length byte does not match the prefix bytes"))
            }
        }
        vendorOUI = r.binary("vo", length: 3)
        issues = r.issues
    }
}

/// The border agent state bitmap (`sb`), as OpenThread and the Thread 1.3 specification lay it
/// out: bits 0-2 connection mode, 3-4 Thread interface status, 5-6 availability, 7 backbone router
/// active, 8 backbone router primary, 9-10 Thread role, 11 ePSKc supported.
public struct MeshcopStateBitmap: Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// 0 no DTLS, 1 PSKc, 2 PSKd, 3 vendor, 4 X.509.
    public var connectionMode: UInt8 { UInt8(rawValue & 0x7) }
    /// 0 not initialised, 1 initialised but not active, 2 active.
    public var threadInterfaceStatus: UInt8 { UInt8(rawValue >> 3 & 0x3) }
    /// 0 infrequent, 1 high.
    public var availability: UInt8 { UInt8(rawValue >> 5 & 0x3) }
    public var isBackboneRouterActive: Bool { rawValue >> 7 & 1 == 1 }
    public var isBackboneRouterPrimary: Bool { rawValue >> 8 & 1 == 1 }
    /// 0 disabled or detached, 1 child, 2 router, 3 leader.
    public var threadRole: UInt8 { UInt8(rawValue >> 9 & 0x3) }
    public var isEPSKcSupported: Bool { rawValue >> 11 & 1 == 1 }
}
