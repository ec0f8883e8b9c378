/// Why a WebSocket client could not connect, or why its connection ended.
public enum WebSocketClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The socket could not be connected (nobody listens, refused, unreachable, timed out).
    case connect(address: String, reason: String)
    /// The server answered the upgrade request, but not with a WebSocket.
    case handshake(address: String, WebSocketClientHandshake.Failure)
    /// The server did not finish the upgrade in time, or stopped mid-way.
    case noResponse(address: String, String)
    /// The connection is closed (by either side); nothing more can be sent.
    case closed(code: WebSocketCloseCode?, reason: String)
    /// A ping got no pong in time.
    case pingTimeout

    public var description: String {
        switch self {
        case .connect(let address, let reason): return "cannot connect to \(address): \(reason)"
        case .handshake(let address, let failure): return "\(address): \(failure)"
        case .noResponse(let address, let why): return "\(address): \(why)"
        case .closed(let code, let reason):
            return "the WebSocket connection is closed" + (code.map { " (code \($0)\(reason.isEmpty ? "" : ": \(reason)"))" } ?? "")
        case .pingTimeout: return "the server did not answer a ping in time"
        }
    }
}
