import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MatterPlatform

/// What the doctor reads from this host, all read-only: IPv6 settings and addresses, the
/// firewall rules, the sockets on UDP 5353, the default routes.
public struct HostNetworkFacts: Sendable, Hashable {
    public struct Interface: Sendable, Hashable {
        public var name: String
        public var isUp: Bool
        public var isLoopback: Bool
        public var hasMulticast: Bool
        public var ipv6LinkLocal: [String]
        public init(name: String, isUp: Bool, isLoopback: Bool, hasMulticast: Bool, ipv6LinkLocal: [String]) {
            self.name = name
            self.isUp = isUp
            self.isLoopback = isLoopback
            self.hasMulticast = hasMulticast
            self.ipv6LinkLocal = ipv6LinkLocal
        }
    }

    /// nil when the kernel has no IPv6 at all.
    public var ipv6Disabled: Bool?
    public var interfaces: [Interface] = []
    /// `nft list ruleset` and `iptables-save`/`ip6tables-save` output, when the tools exist.
    public var nftRuleset: String?
    public var iptablesRules: String?
    /// The programs holding a UDP socket on port 5353 (nil when they cannot be told).
    public var mdnsSocketOwners: [String]?
    /// Interfaces of the IPv6 and IPv4 default routes.
    public var defaultRouteInterfaces: [String] = []
    public var routes = HostRoutes(routes: [])

    public init() {}

    /// Reads this host (or the network namespace the process is in).
    public static func current() -> HostNetworkFacts {
        var f = HostNetworkFacts()
        if let text = try? String(contentsOfFile: "/proc/sys/net/ipv6/conf/all/disable_ipv6", encoding: .utf8) {
            f.ipv6Disabled = text.trimmingWhitespaceAndNewlines() == "1"
        }
        let inet6 = (try? String(contentsOfFile: "/proc/net/if_inet6", encoding: .utf8)) ?? ""
        let linkLocal = parseLinkLocal(inet6)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/net")) ?? []
        for name in names.sorted() {
            let flagsText = (try? String(contentsOfFile: "/sys/class/net/\(name)/flags", encoding: .utf8)) ?? "0x0"
            let flags = Int(flagsText.trimmingWhitespaceAndNewlines().dropFirst(2), radix: 16) ?? 0
            f.interfaces.append(Interface(name: name, isUp: flags & 0x1 != 0, isLoopback: flags & 0x8 != 0,
                                          hasMulticast: flags & 0x1000 != 0, ipv6LinkLocal: linkLocal[name] ?? []))
        }
        f.nftRuleset = ReadOnlyCommand.output(["/usr/sbin/nft", "/sbin/nft"], ["list", "ruleset"])
        let v4 = ReadOnlyCommand.output(["/usr/sbin/iptables-save", "/sbin/iptables-save"], [])
        let v6 = ReadOnlyCommand.output(["/usr/sbin/ip6tables-save", "/sbin/ip6tables-save"], [])
        if v4 != nil || v6 != nil { f.iptablesRules = (v4 ?? "") + (v6 ?? "") }
        f.mdnsSocketOwners = socketOwners(port: 5353)
        f.routes = HostRoutes.current()
        var defaults = Set(f.routes.routes.filter { $0.prefixLength == 0 && $0.interface != "lo" }.map(\.interface))
        let v4routes = (try? String(contentsOfFile: "/proc/net/route", encoding: .utf8)) ?? ""
        for line in v4routes.split(separator: "\n").dropFirst() {
            let c = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            if c.count > 7, c[1] == "00000000", c[7] == "00000000" { defaults.insert(String(c[0])) }
        }
        f.defaultRouteInterfaces = defaults.sorted()
        return f
    }

    /// Interface name -> its fe80:: addresses, from `/proc/net/if_inet6`.
    static func parseLinkLocal(_ text: String) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            let c = line.split(separator: " ", omittingEmptySubsequences: true)
            guard c.count == 6, c[3] == "20", c[0].count == 32 else { continue }
            let groups = stride(from: 0, to: 32, by: 4).map { i -> String in
                let s = c[0].dropFirst(i).prefix(4)
                return String(Int(s, radix: 16) ?? 0, radix: 16)
            }
            out[String(c[5]), default: []].append(groups.joined(separator: ":"))
        }
        return out
    }

    /// The `comm` of every process with a UDP socket bound to `port` (IPv4 or IPv6); nil when the
    /// socket table cannot be read.
    static func socketOwners(port: UInt16) -> [String]? {
        let hexPort = String(printf: ":%04X", port)
        var inodes = Set<String>()
        var readAny = false
        for table in ["/proc/net/udp", "/proc/net/udp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            readAny = true
            for line in text.split(separator: "\n").dropFirst() {
                let c = line.split(separator: " ", omittingEmptySubsequences: true)
                if c.count > 9, c[1].hasSuffix(hexPort) { inodes.insert(String(c[9])) }
            }
        }
        guard readAny else { return nil }
        if inodes.isEmpty { return [] }
        var owners = Set<String>()
        for pid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(pid) != nil {
            guard let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { continue }
            for fd in fds {
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"),
                      target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst(8).dropLast())) else { continue }
                let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
                    .trimmingWhitespaceAndNewlines() ?? "pid \(pid)"
                owners.insert(comm)
            }
        }
        return owners.sorted()
    }
}
