import MatterCrypto

/// The server side of the opening handshake (RFC 6455 section 4.2), sans I/O: a request head
/// in, the decision and the response bytes out.
public enum WebSocketHandshake {
    /// The GUID appended to the client's key (section 1.3).
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `Sec-WebSocket-Accept` for a `Sec-WebSocket-Key`: base64(SHA-1(key + GUID)).
    public static func acceptValue(forKey key: String) -> String {
        base64(SHA1.hash(Array((key + guid).utf8)))
    }

    public enum Decision: Hashable, Sendable {
        /// Upgrade: send `response` (101) and speak WebSocket from then on.
        case upgrade(response: HTTPResponse)
        /// Refuse with this response and close (400, 401, 405, 426).
        case reject(HTTPResponse)
        /// Not a request for the WebSocket path: a plain HTTP request for other handlers.
        case plainHTTP
    }

    /// The cookie that carries the token to the dashboard's own files once its page was opened
    /// with `?token=` (HttpOnly, SameSite=Strict); never accepted for the WebSocket upgrade.
    public static let tokenCookie = "matterhub_token"

    /// Decides on a request. `token`, when set, gates every request: it must be given as
    /// `?token=` or as a Bearer `Authorization` header (and, for a plain GET, as the
    /// ``tokenCookie``); a request without it, or with another, gets 401.
    public static func evaluate(_ head: HTTPRequestHead, path: String, token: String?) -> Decision {
        let isUpgrade = head.headerHasToken("upgrade", "websocket")
        if let token {
            let given = head.query.first { $0.name == "token" }?.value
                ?? head.header("authorization").flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
                ?? (isUpgrade || head.path == path ? nil : cookie(tokenCookie, in: head))
            guard let given, constantTimeEqual(Array(given.utf8), Array(token.utf8)) else {
                let hint = head.path == path ? "connect to \(path)?token=<token>" : "open /?token=<token>"
                return .reject(HTTPResponse(status: 401, reason: "Unauthorized",
                                            headers: ["Content-Type": "text/plain; charset=utf-8", "WWW-Authenticate": "Bearer"],
                                            body: Array("This hub requires a token: \(hint) (matterctl hub token prints it).\n".utf8)))
            }
        }
        guard head.path == path else {
            return isUpgrade ? .reject(.text(404, "Not Found", "No WebSocket endpoint at \(head.path); use \(path)")) : .plainHTTP
        }
        guard head.method == "GET" else {
            return .reject(HTTPResponse(status: 405, reason: "Method Not Allowed", headers: ["Allow": "GET"]))
        }
        guard head.version == "HTTP/1.1" else { return .reject(.text(400, "Bad Request", "WebSocket needs HTTP/1.1")) }
        guard isUpgrade, head.headerHasToken("connection", "upgrade") else {
            return .reject(HTTPResponse(status: 426, reason: "Upgrade Required",
                                        headers: ["Upgrade": "websocket", "Connection": "Upgrade", "Content-Type": "text/plain; charset=utf-8"],
                                        body: Array("\(path) speaks WebSocket only (Upgrade: websocket).\n".utf8)))
        }
        guard head.header("sec-websocket-version") == "13" else {
            return .reject(HTTPResponse(status: 426, reason: "Upgrade Required", headers: ["Sec-WebSocket-Version": "13"]))
        }
        guard let key = head.header("sec-websocket-key"), isValidKey(key) else {
            return .reject(.text(400, "Bad Request", "Sec-WebSocket-Key must be the base64 of 16 bytes"))
        }
        // No extension (permessage-deflate is declined by leaving it out) and no subprotocol.
        return .upgrade(response: HTTPResponse(status: 101, reason: "Switching Protocols", headers: [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": acceptValue(forKey: key),
        ]))
    }

    /// The `Set-Cookie` value that hands a `?token=` on to the page's own requests, or nil when
    /// the request gave no token in its query.
    public static func tokenCookieHeader(for head: HTTPRequestHead, token: String?) -> String? {
        guard let token, let given = head.query.first(where: { $0.name == "token" })?.value,
              constantTimeEqual(Array(given.utf8), Array(token.utf8)) else { return nil }
        return "\(tokenCookie)=\(token); Path=/; HttpOnly; SameSite=Strict"
    }

    /// The value of cookie `name` in the request's `Cookie` header.
    static func cookie(_ name: String, in head: HTTPRequestHead) -> String? {
        guard let header = head.header("cookie") else { return nil }
        for pair in header.split(separator: ";") {
            let kv = pair.trimmingSpaces.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if kv.count == 2, kv[0] == name { return String(kv[1]) }
        }
        return nil
    }

    /// A key is 16 random bytes in base64: 22 alphabet characters and "==".
    static func isValidKey(_ key: String) -> Bool {
        let b = Array(key.utf8)
        guard b.count == 24, b[22] == UInt8(ascii: "="), b[23] == UInt8(ascii: "=") else { return false }
        return b[..<22].allSatisfy { alphabet.contains($0) }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Padded base64 of a digest (the only base64 this module writes).
    static func base64(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let n = (UInt32(bytes[i]) << 16) | (i + 1 < bytes.count ? UInt32(bytes[i + 1]) << 8 : 0)
                | (i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0)
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(i + 1 < bytes.count ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(n & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Compares without an early exit on the first differing byte (the token is a secret).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var diff = UInt8(a.count == b.count ? 0 : 1)
        let n = max(a.count, b.count)
        for i in 0..<n { diff |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0) }
        return diff == 0
    }
}
