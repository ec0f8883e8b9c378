/// Who may talk to the server from a browser, sans I/O: the `Host` and `Origin` checks that keep
/// web pages the user visits away from the hub.
///
/// - **Host** (DNS rebinding): on a loopback listener every request must name a loopback address,
///   `localhost` or one of ``allowedHosts``: a page on `evil.example` that resolves to 127.0.0.1
///   sends `Host: evil.example`. Other listeners need the token, which decides there.
/// - **Origin** (cross-site WebSocket and upload): a browser always sends `Origin` on an upgrade
///   and on a POST (`checksOrigin`); the request is refused unless it is one of the server's own
///   origins (each TCP listen address, `localhost` for loopback ones, the request's own `Host`,
///   which passed the check above) or one of
///   ``allowedOrigins``. Native clients (Home Assistant's) send no `Origin` and are not affected.
public struct RequestOriginPolicy: Sendable, Hashable {
    /// Extra origins (`https://ha.example:8123`), compared in ``normalizedOrigin(_:)`` form.
    public var allowedOrigins: Set<String>
    /// Extra host names a loopback listener answers to (a Docker service name), lower-cased.
    public var allowedHosts: Set<String>

    public init(allowedOrigins: [String] = [], allowedHosts: [String] = []) {
        self.allowedOrigins = Set(allowedOrigins.compactMap(Self.normalizedOrigin))
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
    }

    /// The listener a request arrived on.
    public struct Listener: Sendable, Hashable {
        public var host: String
        public var port: UInt16
        public var isUnix: Bool

        public init(host: String, port: UInt16, isUnix: Bool) {
            self.host = host
            self.port = port
            self.isUnix = isUnix
        }

        public var isLoopback: Bool { !isUnix && RequestOriginPolicy.isLoopbackLiteral(host) }
    }

    /// nil when the request may go on; else the 403 (or 400) that refuses it, saying why.
    public func refusal(of head: HTTPRequestHead, on listener: Listener, checksOrigin: Bool,
                        listeners: [Listener]) -> HTTPResponse? {
        guard !listener.isUnix else { return nil }  // owner-only; no browser reaches it
        let host = head.header("host")
        if listener.isLoopback {
            guard let host else {
                if head.version == "HTTP/1.0" { return nil }
                return .text(400, "Bad Request", "An HTTP/1.1 request needs a Host header (RFC 9112 3.2).")
            }
            guard let name = Self.hostName(host), isLoopbackName(name) else {
                return .text(403, "Forbidden", """
                    Host '\(host)' is not this hub: on loopback it answers to 127.0.0.1, [::1] and localhost \
                    (a web page that rebinds its own name to this machine is refused). Give another name with \
                    'matterctl hub serve --allow-host NAME'.
                    """)
            }
        }
        guard checksOrigin, let origin = head.header("origin") else { return nil }
        if let normalized = Self.normalizedOrigin(origin), ownOrigins(host: host, listeners: listeners).contains(normalized)
            || allowedOrigins.contains(normalized) {
            return nil
        }
        return .text(403, "Forbidden", """
            Origin '\(origin)' may not \(head.method == "POST" ? "upload to the hub" : "open the hub's WebSocket"): only pages the hub serves itself may (a web \
            page on another site must not control the home). To allow another origin, start the hub with \
            'matterctl hub serve --allow-origin \(origin == "null" ? "ORIGIN" : origin)'.
            """)
    }

    /// The origins the hub serves its dashboard on.
    func ownOrigins(host: String?, listeners: [Listener]) -> Set<String> {
        var own: Set<String> = []
        for l in listeners where !l.isUnix {
            let literal = l.host.contains(":") ? "[\(l.host)]" : l.host
            own.insert("http://\(literal.lowercased()):\(l.port)")
            if l.isLoopback { own.insert("http://localhost:\(l.port)") }
        }
        if let host, let same = Self.normalizedOrigin("http://" + host) { own.insert(same) }
        return own
    }

    func isLoopbackName(_ name: String) -> Bool {
        name == "localhost" || Self.isLoopbackLiteral(name) || allowedHosts.contains(name)
    }

    /// `scheme://host[:port]` lower-cased, the default port (80, 443) left out; nil for `null`
    /// and anything that is not an http(s) origin.
    public static func normalizedOrigin(_ text: String) -> String? {
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix("http://") { scheme = "http" } else if lower.hasPrefix("https://") { scheme = "https" } else { return nil }
        var authority = Substring(lower.dropFirst(scheme.count + 3))
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        guard !authority.isEmpty, !authority.contains("/"), !authority.contains("@"),
              let (host, port) = splitHostPort(authority) else { return nil }
        let defaultPort: UInt16 = scheme == "http" ? 80 : 443
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return port == nil || port == defaultPort ? "\(scheme)://\(bracketed)" : "\(scheme)://\(bracketed):\(port!)"
    }

    /// The host of a `Host` header value (brackets removed, lower-cased, a trailing dot dropped);
    /// nil when it is malformed.
    static func hostName(_ header: String) -> String? {
        guard let (host, _) = splitHostPort(Substring(header.lowercased())) else { return nil }
        return host.hasSuffix(".") ? String(host.dropLast()) : host
    }

    /// `host[:port]` (see ``HostPort``) with a host of visible ASCII only; nil when malformed.
    static func splitHostPort(_ s: Substring) -> (host: String, port: UInt16?)? {
        guard case .success(let split) = HostPort.split(s), split.host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return (String(split.host), split.port)
    }

    /// 127.0.0.0/8 in dotted form, or ::1 (any spelling of it that the hub prints).
    static func isLoopbackLiteral(_ host: String) -> Bool {
        if host == "::1" || host == "0:0:0:0:0:0:0:1" || host == "::ffff:127.0.0.1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && UInt8($0) != nil }) else { return false }
        return parts[0] == "127"
    }
}
