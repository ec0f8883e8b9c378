import MatterTLV

/// Matter's DNS-SD names (Matter Core 4.3): service types, subtypes and operational instance
/// names.
public enum MatterServiceType: String, Sendable, CaseIterable {
    /// `_matterc._udp`: commissionable nodes.
    case commissionable = "_matterc._udp"
    /// `_matter._tcp`: operational nodes.
    case operational = "_matter._tcp"
    /// `_matterd._udp`: commissioners (user-directed commissioning).
    case commissioner = "_matterd._udp"
    /// `_meshcop._udp`: Thread border agents.
    case borderRouter = "_meshcop._udp"

    /// The service name without its protocol label (`_matterc`), as the SDK names it.
    public var serviceName: String { String(rawValue.prefix { $0 != "." }) }

    /// The browse type for a subtype: `<subtype>._sub.<type>`.
    public func browseType(subtype: String?) -> String {
        guard let subtype, !subtype.isEmpty else { return rawValue }
        return "\(subtype)._sub.\(rawValue)"
    }
}

/// A DNS-SD subtype filter (Matter Core 4.3.1.3 and 4.3.2.1).
public enum DiscoveryFilter: Sendable, Hashable {
    case none
    /// `_L<d>`: 12-bit long discriminator.
    case longDiscriminator(UInt32)
    /// `_S<d>`: 4-bit short discriminator.
    case shortDiscriminator(UInt32)
    /// `_V<vid>`.
    case vendorID(UInt32)
    /// `_T<device type>`.
    case deviceType(UInt32)
    /// `_CM`: in commissioning mode.
    case commissioningMode
    /// `_D<0|1>`: commissioner.
    case commissioner(UInt32)
    /// `_I<CFID hex16>`: operational nodes of one fabric.
    case compressedFabricID(UInt64)
    /// A full instance name: not a subtype, matched on the name.
    case instanceName(String)

    /// The subtype label, e.g. `_L3840`; empty for `.none`. Values out of range throw.
    public func subtype() throws(DiscoveryError) -> String {
        func check(_ v: UInt32, below limit: UInt32, _ what: String) throws(DiscoveryError) {
            guard v < limit else {
                throw DiscoveryError(.invalidArgument, "\(what) \(v) is out of range (0...\(limit - 1))")
            }
        }
        switch self {
        case .none: return ""
        case .longDiscriminator(let v): try check(v, below: 1 << 12, "long discriminator"); return "_L\(v)"
        case .shortDiscriminator(let v): try check(v, below: 1 << 4, "short discriminator"); return "_S\(v)"
        case .vendorID(let v): try check(v, below: 1 << 16, "vendor ID"); return "_V\(v)"
        case .deviceType(let v): return "_T\(v)"
        case .commissioningMode: return "_CM"
        case .commissioner(let v): try check(v, below: 2, "commissioner flag"); return "_D\(v)"
        case .compressedFabricID(let v): return "_I" + OperationalInstanceName.hex16(v)
        case .instanceName(let n): return n
        }
    }

    /// The service type name the SDK forms (without protocol): `_matterc` for no filter,
    /// `<subtype>._sub._matterc` otherwise.
    public func serviceTypeName(for type: MatterServiceType) throws(DiscoveryError) -> String {
        let sub = try subtype()
        if case .none = self { return type.serviceName }
        return "\(sub)._sub.\(type.serviceName)"
    }
}

/// An operational instance name: `<compressed fabric ID>-<node ID>`, each 16 hex digits
/// (Matter Core 4.3.2.1).
public struct OperationalInstanceName: Sendable, Hashable, CustomStringConvertible {
    public let compressedFabricID: UInt64
    public let nodeID: UInt64

    public init(compressedFabricID: UInt64, nodeID: UInt64) {
        self.compressedFabricID = compressedFabricID
        self.nodeID = nodeID
    }

    /// Parses a name; a trailing `.<rest>` (a full DNS name) is allowed, as in the SDK.
    public init(parsing name: String) throws(DiscoveryError) {
        let b = Array(name.utf8)
        guard b.count >= 33, b.count == 33 || b[33] == UInt8(ascii: "."), b[16] == UInt8(ascii: "-"),
              let f = Base16.decode(utf8: b[0..<16]), let n = Base16.decode(utf8: b[17..<33]) else {
            throw DiscoveryError(.invalidInstanceName,
                                 "'\(name)' is not an operational instance name (<16 hex>-<16 hex>)")
        }
        compressedFabricID = f.reduce(0) { $0 << 8 | UInt64($1) }
        nodeID = n.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The name, upper-case hex.
    public var description: String { Self.hex16(compressedFabricID) + "-" + Self.hex16(nodeID) }

    static func hex16(_ v: UInt64) -> String {
        Base16.encode((0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * UInt64($0))) }, uppercase: true)
    }
}

extension OperationalInstanceName {
    /// A Matter host name from a 48-bit MAC or 64-bit EUI-64: its bytes as upper-case hex
    /// (Matter Core 4.3.4, e.g. `B75AFB458ECD`).
    public static func hostName(macOrEUI64 bytes: [UInt8]) -> String { Base16.encode(bytes, uppercase: true) }
}
