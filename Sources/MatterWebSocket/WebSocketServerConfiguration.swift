/// Where the server listens.
public enum ListenAddress: Hashable, Sendable, CustomStringConvertible {
    /// A numeric IPv4 or IPv6 address (`127.0.0.1`, `::1`, `0.0.0.0`); port 0 picks a free one.
    case tcp(host: String, port: UInt16)
    /// A Unix domain socket, made owner-only (0600); only peers with the server's uid (or root)
    /// are accepted.
    case unix(path: String)

    public var description: String {
        switch self {
        case .tcp(let host, let port): return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): return "unix:\(path)"
        }
    }

    /// 127.0.0.1 and ::1 on `port`.
    public static func loopback(port: UInt16) -> [ListenAddress] {
        [.tcp(host: "127.0.0.1", port: port), .tcp(host: "::1", port: port)]
    }
}

/// The server's limits and policy.
public struct WebSocketServerConfiguration: Sendable {
    public var addresses: [ListenAddress]
    /// The WebSocket endpoint (`/ws`); other GET paths go to the delegate's HTTP handler.
    public var path: String
    /// When set, every TCP upgrade must carry `?token=<token>`; others get HTTP 401.
    public var token: String?
    /// Whether the Unix socket needs the token too (it is owner-only already).
    public var tokenRequiredOnUnixSocket: Bool
    /// The largest message accepted (reassembled), 1 MiB by default; larger ones close with 1009.
    public var maxMessageSize: Int
    /// Connections beyond this get HTTP 503.
    public var maxConnections: Int
    /// Per connection: queued messages and bytes before the client counts as too slow.
    public var maxQueuedMessages: Int
    public var maxQueuedBytes: Int
    /// A client must finish its upgrade request within this time.
    public var handshakeTimeout: Duration
    /// After our close frame, how long to wait for the client's before dropping it.
    public var closeTimeout: Duration

    public init(addresses: [ListenAddress] = ListenAddress.loopback(port: 5580), path: String = "/ws", token: String? = nil,
                tokenRequiredOnUnixSocket: Bool = false, maxMessageSize: Int = 1 << 20, maxConnections: Int = 64,
                maxQueuedMessages: Int = 512, maxQueuedBytes: Int = 64 << 20, handshakeTimeout: Duration = .seconds(10),
                closeTimeout: Duration = .seconds(2)) {
        self.addresses = addresses
        self.path = path
        self.token = token
        self.tokenRequiredOnUnixSocket = tokenRequiredOnUnixSocket
        self.maxMessageSize = maxMessageSize
        self.maxConnections = maxConnections
        self.maxQueuedMessages = maxQueuedMessages
        self.maxQueuedBytes = maxQueuedBytes
        self.handshakeTimeout = handshakeTimeout
        self.closeTimeout = closeTimeout
    }
}

/// What the server calls, always on its I/O thread: implementations must return quickly (hand
/// work to a task or a stream) and never block.
public protocol WebSocketServerDelegate: AnyObject, Sendable {
    /// A plain HTTP GET/HEAD that is not the WebSocket path (`/`, `/info`, static files); nil for 404.
    func httpResponse(for request: HTTPRequestHead) -> HTTPResponse?
    /// A connection completed its upgrade; frames sent now follow the 101 response.
    func connectionOpened(_ connection: WebSocketConnection)
    func connection(_ connection: WebSocketConnection, received message: WebSocketMessage)
    /// The connection is gone (called once per opened connection). `code` is the close code sent
    /// or received, nil when the socket just dropped.
    func connectionClosed(_ connection: WebSocketConnection, code: WebSocketCloseCode?, reason: String)
}

/// A server that could not start.
public struct WebSocketServerError: Error, Hashable, Sendable, CustomStringConvertible {
    public var address: String
    public var operation: String
    public var errno: Int32
    public var detail: String

    public var description: String {
        "cannot \(operation) \(address): \(detail)\(errno != 0 ? " (errno \(errno))" : "")"
    }
}
