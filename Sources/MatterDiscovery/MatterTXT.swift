import MatterTLV

/// The TXT keys of Matter's DNS-SD services (Matter Core 4.3.1 commissionable and commissioner,
/// 4.3.2 operational, 4.3.4 common keys), typed. Absent keys are nil; a malformed value is nil
/// here, listed in `issues`, and its raw bytes stay in the record.
public struct MatterTXT: Sendable, Hashable {
    /// The upper limit of SII and SAI: one hour, in milliseconds.
    public static let maxSessionInterval: UInt32 = 3_600_000

    /// `D`: the 12-bit long discriminator.
    public var discriminator: UInt16?
    /// `VP`: vendor ID, and product ID when given as `vid+pid`.
    public var vendorID: UInt16?
    public var productID: UInt16?
    /// `CM`: commissioning mode (0 not open, 1 basic, 2 enhanced window, 3 joint fabric).
    public var commissioningMode: UInt8?
    /// `DT`: primary device type.
    public var deviceType: UInt32?
    /// `DN`: device name, at most 32 bytes.
    public var deviceName: String?
    /// `RI`: rotating device identifier (hex in the record), at most 50 bytes.
    public var rotatingID: [UInt8]?
    /// `PH`: pairing hint bitmap.
    public var pairingHint: UInt32?
    /// `PI`: pairing instruction, at most 128 bytes.
    public var pairingInstruction: String?
    /// `SII` (or the older `CRI`): session idle interval in ms.
    public var sessionIdleInterval: UInt32?
    /// `SAI` (or the older `CRA`): session active interval in ms.
    public var sessionActiveInterval: UInt32?
    /// `SAT`: session active threshold in ms.
    public var sessionActiveThreshold: UInt16?
    /// `T`: TCP support bitmap (bit 1 client, bit 2 server; older devices send 1).
    public var tcpSupport: UInt16?
    /// `ICD`: 0 short idle time (SIT), 1 long idle time (LIT).
    public var icdOperatingMode: UInt8?
    /// `JF`: joint fabric bitmap.
    public var jointFabric: UInt16?
    /// Values that were present but malformed.
    public var issues: [TXTIssue]

    /// An operational advert's keys (Matter Core 4.3.4): the session intervals a node asks of its
    /// peers, and no TCP.
    public static func operational(idleInterval: UInt32?, activeInterval: UInt32?, activeThreshold: UInt16?) -> MatterTXT {
        var txt = MatterTXT()
        txt.sessionIdleInterval = idleInterval
        txt.sessionActiveInterval = activeInterval
        txt.sessionActiveThreshold = activeThreshold
        txt.tcpSupport = 0
        return txt
    }

    /// Reads every Matter key of `record`.
    public init(_ record: TXTRecord) {
        var r = TXTReader(record)
        discriminator = r.decimal("D", as: UInt16.self, max: 4095)
        if let raw = record["VP"] {
            let parts = raw.split(separator: UInt8(ascii: "+"), omittingEmptySubsequences: false)
            func number(_ p: ArraySlice<UInt8>) -> UInt16? {
                guard !p.isEmpty, p.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
                return UInt16(String(decoding: p, as: UTF8.self))
            }
            if parts.count <= 2, let v = number(parts[0]), parts.count == 1 || number(parts[1]) != nil {
                vendorID = v
                productID = parts.count == 2 ? number(parts[1]) : nil
            } else {
                r.issues.append(TXTIssue(key: "VP", reason: "not 'vendor' or 'vendor+product' in decimal (0...65535)"))
            }
        } else if record.entry("VP") != nil {
            r.issues.append(TXTIssue(key: "VP", reason: "has no value"))
        }
        commissioningMode = r.decimal("CM", as: UInt8.self, max: 3)
        deviceType = r.decimal("DT", as: UInt32.self)
        deviceName = r.text("DN", maxBytes: 32)
        rotatingID = r.hexText("RI", maxBytes: 50)
        pairingHint = r.decimal("PH", as: UInt32.self)
        pairingInstruction = r.text("PI", maxBytes: 128)
        sessionIdleInterval = r.decimal("SII", as: UInt32.self, max: Self.maxSessionInterval)
            ?? r.decimal("CRI", as: UInt32.self, max: Self.maxSessionInterval)
        sessionActiveInterval = r.decimal("SAI", as: UInt32.self, max: Self.maxSessionInterval)
            ?? r.decimal("CRA", as: UInt32.self, max: Self.maxSessionInterval)
        sessionActiveThreshold = r.decimal("SAT", as: UInt16.self)
        tcpSupport = r.decimal("T", as: UInt16.self)
        icdOperatingMode = r.decimal("ICD", as: UInt8.self, max: 1)
        jointFabric = r.decimal("JF", as: UInt16.self)
        issues = r.issues
    }

    /// The short discriminator: the upper 4 bits of `D`.
    public var shortDiscriminator: UInt8? { discriminator.map { UInt8($0 >> 8) } }

    /// This TXT as a record, in the order the spec lists the keys; nil fields are left out.
    public var record: TXTRecord {
        var t = TXTRecord()
        if let v = discriminator { t.set("D", String(v)) }
        if let v = vendorID { t.set("VP", productID.map { "\(v)+\($0)" } ?? String(v)) }
        if let v = commissioningMode { t.set("CM", String(v)) }
        if let v = deviceType { t.set("DT", String(v)) }
        if let v = deviceName { t.set("DN", v) }
        if let v = rotatingID { t.set("RI", Base16.encode(v, uppercase: true)) }
        if let v = pairingHint { t.set("PH", String(v)) }
        if let v = pairingInstruction { t.set("PI", v) }
        if let v = sessionIdleInterval { t.set("SII", String(v)) }
        if let v = sessionActiveInterval { t.set("SAI", String(v)) }
        if let v = sessionActiveThreshold { t.set("SAT", String(v)) }
        if let v = tcpSupport { t.set("T", String(v)) }
        if let v = icdOperatingMode { t.set("ICD", String(v)) }
        if let v = jointFabric { t.set("JF", String(v)) }
        return t
    }

    /// An empty TXT, to fill in for an advert.
    public init() { issues = [] }
}
