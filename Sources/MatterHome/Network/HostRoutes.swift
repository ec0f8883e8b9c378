import FoundationEssentials

/// This host's IPv6 routing table, read from `/proc/net/ipv6_route` (never changed), to tell
/// whether a Thread border router's off-mesh-routable (OMR) prefix is reachable from here: a
/// border router announces a route to it in Router Advertisements, and without that route a
/// Thread device's operational address is unreachable even when its advert is seen.
public struct HostRoutes: Sendable, Hashable {
    /// One route.
    public struct Route: Sendable, Hashable {
        /// The destination network (16 bytes) and its prefix length.
        public let destination: [UInt8]
        public let prefixLength: Int
        /// The next hop (16 bytes; all zero for an on-link route).
        public let nextHop: [UInt8]
        public let interface: String

        /// Whether this route covers every address of `prefix`/`length`.
        public func covers(_ prefix: [UInt8], length: Int) -> Bool {
            guard prefixLength <= length, prefix.count == 16 else { return false }
            var bits = prefixLength
            var i = 0
            while bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if destination[i] & mask != prefix[i] & mask { return false }
                bits -= 8
                i += 1
            }
            return true
        }
    }

    public let routes: [Route]

    public init(routes: [Route]) { self.routes = routes }

    /// Parses the text of `/proc/net/ipv6_route` (one route per line: destination, prefix length,
    /// source, source length, next hop, metric, refcount, use, flags, interface; hex fields).
    /// Lines that do not have that shape are skipped.
    public init(procText: String) {
        var out: [Route] = []
        for line in procText.split(separator: "\n") {
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            guard f.count == 10, let dest = Self.bytes(f[0]), let length = Int(f[1], radix: 16), length <= 128,
                  let hop = Self.bytes(f[4]) else { continue }
            out.append(Route(destination: dest, prefixLength: length, nextHop: hop, interface: String(f[9])))
        }
        routes = out
    }

    /// The current table; empty when it cannot be read (no IPv6, no /proc).
    public static func current(path: String = "/proc/net/ipv6_route") -> HostRoutes {
        HostRoutes(procText: (try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
    }

    /// The most specific route that covers `prefix`/`length` other than the default route
    /// (`::/0` reaches anywhere only in name: it does not say the mesh is behind it), and not
    /// through the loopback interface (the kernel's unreachable routes sit there).
    public func route(to prefix: [UInt8], length: Int) -> Route? {
        routes.filter { $0.prefixLength > 0 && $0.interface != "lo" && $0.covers(prefix, length: length) }
            .max { $0.prefixLength < $1.prefixLength }
    }

    private static func bytes(_ hex: Substring) -> [UInt8]? {
        let u = Array(hex.utf8)
        guard u.count == 32 else { return nil }
        var out: [UInt8] = []
        for i in stride(from: 0, to: 32, by: 2) {
            guard let b = UInt8(String(decoding: u[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(b)
        }
        return out
    }
}
