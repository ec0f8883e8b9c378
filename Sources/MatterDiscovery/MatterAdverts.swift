/// The commissionable advert of a device (Matter Core 4.3.1): `_matterc._udp` with subtypes
/// `_L<long>`, `_S<short>`, `_V<vendor>`, `_T<device type>` (when known) and `_CM` (when the
/// window is open), and its TXT.
public struct CommissionableAdvert: Sendable, Hashable {
    /// 64 random bits as 16 upper-case hex digits, per spec.
    public var instanceName: String
    public var port: UInt16
    public var txt: MatterTXT

    public init(instanceName: String, port: UInt16 = 5540, txt: MatterTXT) {
        self.instanceName = instanceName
        self.port = port
        self.txt = txt
    }

    /// The subtypes this advert carries, formed from its TXT.
    public func subtypes() throws(DiscoveryError) -> [String] {
        var out: [String] = []
        if let d = txt.discriminator {
            out.append(try DiscoveryFilter.longDiscriminator(UInt32(d)).subtype())
            out.append(try DiscoveryFilter.shortDiscriminator(UInt32(d >> 8)).subtype())
        }
        if let v = txt.vendorID { out.append(try DiscoveryFilter.vendorID(UInt32(v)).subtype()) }
        if let t = txt.deviceType { out.append(try DiscoveryFilter.deviceType(t).subtype()) }
        if (txt.commissioningMode ?? 0) > 0 { out.append("_CM") }
        return out
    }

    public func serviceAdvert() throws(DiscoveryError) -> ServiceAdvert {
        ServiceAdvert(name: instanceName, type: MatterServiceType.commissionable.rawValue, port: port,
                      subtypes: try subtypes(), txt: txt.record)
    }
}

/// The operational advert of a node (Matter Core 4.3.2): `<CFID>-<NodeID>._matter._tcp` with
/// subtype `_I<CFID>`.
public struct OperationalAdvert: Sendable, Hashable {
    public var name: OperationalInstanceName
    public var port: UInt16
    /// Only the operational keys (SII, SAI, SAT, T, ICD) are meaningful here.
    public var txt: MatterTXT

    public init(name: OperationalInstanceName, port: UInt16 = 5540, txt: MatterTXT = MatterTXT()) {
        self.name = name
        self.port = port
        self.txt = txt
    }

    public func serviceAdvert() throws(DiscoveryError) -> ServiceAdvert {
        ServiceAdvert(name: name.description, type: MatterServiceType.operational.rawValue, port: port,
                      subtypes: [try DiscoveryFilter.compressedFabricID(name.compressedFabricID).subtype()],
                      txt: txt.record)
    }
}

extension AvahiAdvertisement {
    /// Publishes a device's commissionable advert.
    public convenience init(_ advert: CommissionableAdvert) throws(DiscoveryError) {
        try self.init(try advert.serviceAdvert())
    }

    /// Publishes a node's operational advert.
    public convenience init(_ advert: OperationalAdvert) throws(DiscoveryError) {
        try self.init(try advert.serviceAdvert())
    }
}
