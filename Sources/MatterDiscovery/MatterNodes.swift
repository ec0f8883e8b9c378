/// A commissionable node (`_matterc._udp`, Matter Core 4.3.1).
public struct CommissionableNode: Sendable, Hashable {
    public let service: ServiceInstance
    public let txt: MatterTXT
    public init(_ service: ServiceInstance) {
        self.service = service
        txt = MatterTXT(service.txt)
    }
    /// The instance name: 64 random bits in hex, per spec.
    public var instanceName: String { service.name }
}

/// An operational node (`_matter._tcp`, Matter Core 4.3.2).
public struct OperationalNode: Sendable, Hashable {
    public let service: ServiceInstance
    /// Fabric and node from the instance name; nil (and an issue in `txt.issues`) if malformed.
    public let name: OperationalInstanceName?
    public let txt: MatterTXT
    public init(_ service: ServiceInstance) {
        self.service = service
        var txt = MatterTXT(service.txt)
        do {
            name = try OperationalInstanceName(parsing: service.name)
        } catch {
            name = nil
            txt.issues.append(TXTIssue(key: "<instance>", reason: error.message))
        }
        self.txt = txt
    }
}

/// A commissioner offering user-directed commissioning (`_matterd._udp`, Matter Core 4.3.3).
public struct CommissionerNode: Sendable, Hashable {
    public let service: ServiceInstance
    public let txt: MatterTXT
    public init(_ service: ServiceInstance) {
        self.service = service
        txt = MatterTXT(service.txt)
    }
}

/// A Thread border agent (`_meshcop._udp`).
public struct BorderRouter: Sendable, Hashable {
    public let service: ServiceInstance
    public let txt: MeshcopTXT
    public init(_ service: ServiceInstance) {
        self.service = service
        txt = MeshcopTXT(service.txt)
    }
}

/// A typed discovery result.
public enum DiscoveryEvent<Node: Sendable & Hashable>: Sendable, Hashable {
    case found(Node)
    case updated(Node)
    case removed(Node)

    public var node: Node {
        switch self {
        case .found(let n), .updated(let n), .removed(let n): n
        }
    }
}

/// How to narrow a search for commissionable nodes (Matter Core 4.3.1.3 subtypes).
public enum CommissionableFilter: Sendable, Hashable {
    case any
    case longDiscriminator(UInt16)
    case shortDiscriminator(UInt8)
    case vendorID(UInt16)
    case deviceType(UInt32)
    /// Nodes whose commissioning window is open (`CM` > 0).
    case commissioningMode
    case instanceName(String)

    /// The DNS-SD filter this browses with.
    var dnssdFilter: DiscoveryFilter {
        switch self {
        case .any: .none
        case .longDiscriminator(let d): .longDiscriminator(UInt32(d))
        case .shortDiscriminator(let d): .shortDiscriminator(UInt32(d))
        case .vendorID(let v): .vendorID(UInt32(v))
        case .deviceType(let t): .deviceType(UInt32(t))
        case .commissioningMode: .commissioningMode
        case .instanceName: .none
        }
    }

    /// Whether a node matches, judged by its instance name and TXT values (for nodes that publish
    /// no subtype, and for instance names).
    public func matches(_ node: CommissionableNode) -> Bool {
        switch self {
        case .any: true
        case .longDiscriminator(let d): node.txt.discriminator == d
        case .shortDiscriminator(let d): node.txt.shortDiscriminator == d
        case .vendorID(let v): node.txt.vendorID == v
        case .deviceType(let t): node.txt.deviceType == t
        case .commissioningMode: (node.txt.commissioningMode ?? 0) > 0
        case .instanceName(let n): node.instanceName.lowercased() == n.lowercased()
        }
    }
}
