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

/// The server's limits and policy. Every limit holds whatever a client does: what one
/// connection can make the server hold is bounded (inbound messages in flight, the send queue,
/// one pending pong), and no kind of socket can take the slots of another.
public struct WebSocketServerConfiguration: Sendable {
    public var addresses: [ListenAddress]
    /// The WebSocket endpoint (`/ws`); other GET paths go to the delegate's HTTP handler.
    public var path: String
    /// When set, every TCP request (upgrade or plain GET) must carry the token; others get 401.
    public var token: String?
    /// Whether the Unix socket needs the token too (it is owner-only already).
    public var tokenRequiredOnUnixSocket: Bool
    /// The `Host` and `Origin` rules for browsers.
    public var originPolicy: RequestOriginPolicy
    /// The largest message accepted (reassembled), 1 MiB by default; larger ones close with 1009.
    public var maxMessageSize: Int
    /// Upgraded TCP connections; an upgrade beyond this gets HTTP 503.
    public var maxConnections: Int
    /// Upgraded connections on the Unix socket: a pool of their own, so TCP clients cannot
    /// lock out `matterctl` and the Home API.
    public var maxUnixConnections: Int
    /// Sockets that have not upgraded yet (or wait for a plain HTTP answer), per listener kind
    /// and per peer address. When a pool is full, its oldest socket is closed for the new one,
    /// so sockets that never send a byte cannot keep a real client out.
    public var maxHandshakes: Int
    public var maxHandshakesPerAddress: Int
    /// Per connection: queued outgoing messages and bytes before the client counts as too slow.
    /// The byte limit is checked before a message is added, so one message larger than it (a
    /// big node list) still goes out to a client that reads.
    public var maxQueuedMessages: Int
    public var maxQueuedBytes: Int
    /// Above this many queued bytes a connection is ``WebSocketConnection/isBacklogged``: the
    /// application holds back (coalesces) what it can.
    public var backlogBytes: Int
    /// All connections' queued bytes together; past it, a backlogged connection that adds more
    /// is dropped.
    public var maxTotalQueuedBytes: Int
    /// Received messages the application has not finished (``WebSocketConnection/handled(_:)``)
    /// and their bytes: at either limit the server stops reading that socket, so TCP slows the
    /// client down instead of the server buffering for it.
    public var maxMessagesInFlight: Int
    public var maxBytesInFlight: Int
    /// A connection silent this long gets a ping; one still silent as long again is closed.
    public var pingInterval: Duration
    /// A client must finish its upgrade request within this time.
    public var handshakeTimeout: Duration
    /// After our close frame, how long to wait for the client's before dropping it.
    public var closeTimeout: Duration
    /// A POST body (an upload) that sends nothing for this long is dropped; so is the rest of a
    /// refused body.
    public var bodyIdleTimeout: Duration
    /// How long the application may take to answer a complete body before the client gets 503.
    public var bodyAnswerTimeout: Duration

    public init(addresses: [ListenAddress] = ListenAddress.loopback(port: 5580), path: String = "/ws", token: String? = nil,
                tokenRequiredOnUnixSocket: Bool = false, originPolicy: RequestOriginPolicy = RequestOriginPolicy(),
                maxMessageSize: Int = 1 << 20, maxConnections: Int = 1024, maxUnixConnections: Int = 64,
                maxHandshakes: Int = 64, maxHandshakesPerAddress: Int = 16,
                maxQueuedMessages: Int = 4096, maxQueuedBytes: Int = 8 << 20, backlogBytes: Int = 1 << 20,
                maxTotalQueuedBytes: Int = 64 << 20, maxMessagesInFlight: Int = 32, maxBytesInFlight: Int = 4 << 20,
                pingInterval: Duration = .seconds(30), handshakeTimeout: Duration = .seconds(10),
                closeTimeout: Duration = .seconds(2), bodyIdleTimeout: Duration = .seconds(30),
                bodyAnswerTimeout: Duration = .seconds(120)) {
        self.addresses = addresses
        self.path = path
        self.token = token
        self.tokenRequiredOnUnixSocket = tokenRequiredOnUnixSocket
        self.originPolicy = originPolicy
        self.maxMessageSize = maxMessageSize
        self.maxConnections = maxConnections
        self.maxUnixConnections = maxUnixConnections
        self.maxHandshakes = maxHandshakes
        self.maxHandshakesPerAddress = maxHandshakesPerAddress
        self.maxQueuedMessages = maxQueuedMessages
        self.maxQueuedBytes = maxQueuedBytes
        self.backlogBytes = backlogBytes
        self.maxTotalQueuedBytes = maxTotalQueuedBytes
        self.maxMessagesInFlight = maxMessagesInFlight
        self.maxBytesInFlight = maxBytesInFlight
        self.pingInterval = pingInterval
        self.handshakeTimeout = handshakeTimeout
        self.closeTimeout = closeTimeout
        self.bodyIdleTimeout = bodyIdleTimeout
        self.bodyAnswerTimeout = bodyAnswerTimeout
    }
}

/// What the server calls, always on its I/O thread: implementations must return quickly (hand
/// work to a task or a stream) and never block.
public protocol WebSocketServerDelegate: AnyObject, Sendable {
    /// A plain HTTP GET/HEAD that is not the WebSocket path (`/`, `/info`, static files); nil for 404.
    func httpResponse(for request: HTTPRequestHead) -> HTTPResponse?
    /// A POST (after the origin policy; the token is the application's to check, as an upload
    /// id can stand for it): where its body goes, or nil for 405. `peer` is the client's address.
    func httpBody(for request: HTTPRequestHead, peer: String) -> HTTPBodyDecision?
    /// A connection completed its upgrade; frames sent now follow the 101 response.
    func connectionOpened(_ connection: WebSocketConnection)
    /// A message arrived. It counts against the connection's in-flight limits until the
    /// application calls ``WebSocketConnection/handled(_:)`` with it (once).
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
