import MatterCrypto

/// The client side of the opening handshake (RFC 6455 section 4.1), sans I/O: the upgrade
/// request with a fresh random key, then the checks on the server's answer.
public struct WebSocketClientHandshake: Sendable {
    /// `Sec-WebSocket-Key`: the base64 of 16 random bytes, new for every connection.
    public let key: String
    public let host: String
    /// The request target (`/ws`, `/ws?token=...`).
    public let target: String

    /// A handshake with a key from `SecureRandom` (or the given one, for test vectors).
    public init(host: String, target: String, key: String? = nil) {
        self.key = key ?? WebSocketHandshake.base64(SecureRandom.bytes(16))
        self.host = host
        self.target = target
    }

    /// The bytes of the upgrade request. No extension and no subprotocol is offered.
    public var request: [UInt8] {
        Array(("GET \(target) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
    }

    /// The `Sec-WebSocket-Accept` the server must answer with.
    public var expectedAccept: String { WebSocketHandshake.acceptValue(forKey: key) }

    /// Why the server's answer does not open a WebSocket (section 4.1, the client's checks).
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// Not 101: the status, its reason and the start of the body (it says what to do).
        case refused(status: Int, reason: String, body: String)
        /// 101, but a header is missing or wrong; the connection must be failed.
        case invalidResponse(String)

        public var description: String {
            switch self {
            case .refused(let status, let reason, let body):
                let text = body.trimmingSpaces.split(separator: "\n").first.map { ": \($0)" } ?? ""
                return "the server refused the WebSocket upgrade with HTTP \(status) \(reason)\(text)"
            case .invalidResponse(let why): return "the server's upgrade response is invalid: \(why)"
            }
        }
    }

    /// Checks the response head (`body` is what followed it, for refusals).
    public func validate(_ head: HTTPResponseHead, body: [UInt8] = []) throws(Failure) {
        guard head.status == 101 else {
            throw .refused(status: head.status, reason: head.reason, body: String(decoding: body.prefix(512), as: UTF8.self))
        }
        guard head.headerHasToken("upgrade", "websocket") else { throw .invalidResponse("no 'Upgrade: websocket'") }
        guard head.headerHasToken("connection", "upgrade") else { throw .invalidResponse("no 'Connection: Upgrade'") }
        guard let accept = head.header("sec-websocket-accept") else { throw .invalidResponse("no Sec-WebSocket-Accept") }
        guard WebSocketHandshake.constantTimeEqual(Array(accept.utf8), Array(expectedAccept.utf8)) else {
            throw .invalidResponse("Sec-WebSocket-Accept does not match the key sent")
        }
        if let ext = head.header("sec-websocket-extensions"), !ext.isEmpty {
            throw .invalidResponse("the server chose an extension that was not offered (\(ext))")
        }
        if let proto = head.header("sec-websocket-protocol"), !proto.isEmpty {
            throw .invalidResponse("the server chose a subprotocol that was not offered (\(proto))")
        }
    }
}
