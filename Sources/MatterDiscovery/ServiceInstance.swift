/// One address of a resolved service, with the interface it was seen on. For IPv6 link-local
/// (`fe80::/10`) addresses the interface is the scope: keep it when connecting.
public struct ServiceAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Family: Sendable, Hashable { case ipv4, ipv6 }

    public let ip: String
    public let family: Family
    /// The interface index as Avahi reports it (the daemon's network namespace).
    public let interfaceIndex: Int32
    /// The interface name, when the index is known on this host.
    public let interfaceName: String?

    public init(ip: String, family: Family, interfaceIndex: Int32, interfaceName: String?) {
        self.ip = ip
        self.family = family
        self.interfaceIndex = interfaceIndex
        self.interfaceName = interfaceName
    }

    public var isLinkLocal: Bool {
        switch family {
        case .ipv6: ip.lowercased().hasPrefix("fe8") || ip.lowercased().hasPrefix("fe9")
            || ip.lowercased().hasPrefix("fea") || ip.lowercased().hasPrefix("feb")
        case .ipv4: ip.hasPrefix("169.254.")
        }
    }

    /// `fe80::1%eth0` for IPv6 link-local (the scope kept), the plain address otherwise.
    public var description: String {
        guard family == .ipv6, isLinkLocal else { return ip }
        return "\(ip)%\(interfaceName ?? String(interfaceIndex))"
    }
}

/// A resolved DNS-SD service instance: every address it has on every interface, its port, host
/// name and TXT.
public struct ServiceInstance: Sendable, Hashable {
    public let name: String
    /// The service type, e.g. `_matterc._udp` (without subtype).
    public let type: String
    public let domain: String
    /// The target host, e.g. `device.local`.
    public var host: String
    public var port: UInt16
    /// IPv6 first, then IPv4; each with its interface.
    public var addresses: [ServiceAddress]
    public var txt: TXTRecord
    /// The record TTL in seconds. Nil: libavahi-client does not expose TTLs (Avahi refreshes
    /// records itself and reports their removal, which is what `removed` events carry).
    public var ttl: UInt32?

    public init(name: String, type: String, domain: String, host: String, port: UInt16,
                addresses: [ServiceAddress], txt: TXTRecord, ttl: UInt32? = nil) {
        self.name = name
        self.type = type
        self.domain = domain
        self.host = host
        self.port = port
        self.addresses = addresses
        self.txt = txt
        self.ttl = ttl
    }
}

/// What a browse reports.
public enum ServiceEvent: Sendable, Hashable {
    /// A new instance, resolved.
    case found(ServiceInstance)
    /// A known instance changed (TXT, port, host, or an address came or went).
    case updated(ServiceInstance)
    /// The instance is gone (its last interface/protocol was withdrawn or expired).
    case removed(ServiceInstance)
    /// Avahi has answered from its cache and the first round of queries.
    case allForNow
    /// The daemon went away; the browse reconnects by itself.
    case disconnected
    /// The daemon is back and the browse was recreated.
    case reconnected
}

/// A source of DNS-SD browse results; `AvahiBrowser` is the real one. Injected so filtering can
/// be tested without a daemon.
public protocol ServiceBrowsing: Sendable {
    /// Browses `type` (`_matterc._udp` or `<subtype>._sub._matterc._udp`) and resolves what it
    /// finds. The stream throws `DiscoveryError` when the daemon cannot be reached.
    func browse(type: String) -> AsyncThrowingStream<ServiceEvent, any Error>
}
