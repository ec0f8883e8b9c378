/// Where a WebSocket client connects: `ws://host:port/path?query` (TCP; `[v6]` literals), or
/// `unix:/path/to/socket` (the request target is then `/ws`, as matter-python-client does).
public struct WebSocketURL: Hashable, Sendable, CustomStringConvertible {
    public enum Endpoint: Hashable, Sendable {
        case tcp(host: String, port: UInt16)
        case unix(path: String)
    }

    public var endpoint: Endpoint
    /// The request target: path and query.
    public var target: String

    public init(endpoint: Endpoint, target: String = "/ws") {
        self.endpoint = endpoint
        self.target = target
    }

    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Parses `ws://HOST[:PORT][/PATH][?QUERY]` (port 80 by default) or `unix:PATH`.
    public init(_ text: String) throws(ParseError) {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard path.hasPrefix("/") || path.hasPrefix(".") else {
                throw ParseError(description: "'\(text)': a Unix socket URL is unix:/path/to/socket")
            }
            self.init(endpoint: .unix(path: path))
            return
        }
        guard text.hasPrefix("ws://") else {
            throw ParseError(description: "'\(text)' is not a ws:// or unix: URL (wss:// is not supported)")
        }
        let rest = text.dropFirst(5)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var target = String(rest[authorityEnd...])
        if target.isEmpty || target.first == "?" { target = "/" + target }
        let host: Substring
        var port: UInt16 = 80
        switch HostPort.split(authority) {
        case .success(let split):
            host = split.host
            port = split.port ?? 80
        case .failure(.unclosedBracket): throw ParseError(description: "'\(text)': unclosed [ in the host")
        case .failure(.junkAfterHost): throw ParseError(description: "'\(text)': junk after the host")
        case .failure(.emptyHost): throw ParseError(description: "'\(text)' names no host")
        case .failure(.badPort): throw ParseError(description: "'\(text)': the port must be 1...65535")
        }
        guard !host.contains("@") else { throw ParseError(description: "'\(text)' names no host") }
        self.init(endpoint: .tcp(host: String(host), port: port), target: target)
    }

    /// The same URL with `?token=` (or `&token=`) added, percent-encoded.
    public func adding(token: String) -> WebSocketURL {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        let encoded = token.utf8.map { allowed.contains($0) ? String(UnicodeScalar($0)) : "%" + hex2($0) }.joined()
        return WebSocketURL(endpoint: endpoint, target: target + (target.contains("?") ? "&" : "?") + "token=" + encoded)
    }

    /// The Host header value.
    var hostHeader: String {
        switch endpoint {
        case .tcp(let host, let port): return (host.contains(":") ? "[\(host)]" : host) + (port == 80 ? "" : ":\(port)")
        case .unix: return "localhost"
        }
    }

    /// The URL without its query (a token never appears in messages).
    public var description: String {
        let path = String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        switch endpoint {
        case .tcp: return "ws://\(hostHeader)\(path)"
        case .unix(let p): return "unix:\(p)"
        }
    }
}

private func hex2(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
}
