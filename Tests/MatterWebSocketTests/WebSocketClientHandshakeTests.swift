import MatterWebSocket
import Testing
import TestSupport

/// The client's half of the opening handshake and the response-head parser, sans I/O.
@Suite struct WebSocketClientHandshakeTests {
    /// RFC 6455 section 1.3: the sample nonce and the accept value the server derives from it.
    static let rfcKey = "dGhlIHNhbXBsZSBub25jZQ=="
    static let rfcAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    static func head(_ text: String) throws -> HTTPResponseHead {
        try #require(try HTTPResponseHead.parse(Array(text.utf8))).head
    }

    static let good = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Accept: \(rfcAccept)\r\n\r\n"

    @Test func rfcKeyIsAccepted() throws {
        let h = WebSocketClientHandshake(host: "localhost", target: "/ws", key: Self.rfcKey)
        #expect(h.expectedAccept == Self.rfcAccept)
        try h.validate(try Self.head(Self.good))
        let request = String(decoding: h.request, as: UTF8.self)
        #expect(request.hasPrefix("GET /ws HTTP/1.1\r\n"))
        #expect(request.contains("Sec-WebSocket-Key: \(Self.rfcKey)\r\n"))
        #expect(request.contains("Sec-WebSocket-Version: 13\r\n"))
        #expect(!request.lowercased().contains("sec-websocket-extensions"))
    }

    /// Our own server's parser is the judge of the request: it upgrades it.
    @Test func randomKeysAreFreshAndTheServerAcceptsThem() throws {
        var keys: Set<String> = []
        for _ in 0..<50 {
            let h = WebSocketClientHandshake(host: "localhost", target: "/ws")
            keys.insert(h.key)
            let request = try #require(try HTTPRequestHead.parse(h.request)).head
            guard case .upgrade(let response) = WebSocketHandshake.evaluate(request, path: "/ws", token: nil) else {
                Issue.record("the server refused \(h.key)")
                return
            }
            let answer = try #require(try HTTPResponseHead.parse(response.encoded)).head
            try h.validate(answer)
        }
        #expect(keys.count == 50)
    }

    static let invalid: [(String, String, String)] = [
        ("wrong accept", good.replacingOccurrences(of: rfcAccept, with: "AAAAAAAAAAAAAAAAAAAAAAAAAAA="), "does not match"),
        ("no accept", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", "no Sec-WebSocket-Accept"),
        ("no upgrade", good.replacingOccurrences(of: "Upgrade: websocket\r\n", with: ""), "Upgrade: websocket"),
        ("upgrade to something else", good.replacingOccurrences(of: "Upgrade: websocket", with: "Upgrade: h2c"), "Upgrade: websocket"),
        ("no connection", good.replacingOccurrences(of: "Connection: Upgrade\r\n", with: ""), "Connection: Upgrade"),
        ("extension not offered", good.replacingOccurrences(of: "\r\n\r\n", with: "\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n"),
         "extension"),
        ("subprotocol not offered", good.replacingOccurrences(of: "\r\n\r\n", with: "\r\nSec-WebSocket-Protocol: chat\r\n\r\n"),
         "subprotocol"),
    ]

    @Test(arguments: invalid.indices)
    func refusesAnInvalidUpgrade(_ i: Int) throws {
        let (name, text, words) = Self.invalid[i]
        let h = WebSocketClientHandshake(host: "localhost", target: "/ws", key: Self.rfcKey)
        let head = try Self.head(text)
        do throws(WebSocketClientHandshake.Failure) {
            try h.validate(head)
            Issue.record("\(name): accepted")
        } catch {
            guard case .invalidResponse(let why) = error else { Issue.record("\(name): \(error)"); return }
            #expect(why.contains(words), "\(name): \(why)")
        }
    }

    @Test func aRefusalCarriesItsStatusAndBody() throws {
        let h = WebSocketClientHandshake(host: "localhost", target: "/ws")
        let head = try Self.head("HTTP/1.1 401 Unauthorized\r\nContent-Length: 20\r\n\r\n")
        do throws(WebSocketClientHandshake.Failure) {
            try h.validate(head, body: Array("needs a token: ?token=\n".utf8))
            Issue.record("a 401 was accepted")
        } catch {
            #expect(error == .refused(status: 401, reason: "Unauthorized", body: "needs a token: ?token=\n"))
            #expect(error.description == "the server refused the WebSocket upgrade with HTTP 401 Unauthorized: needs a token: ?token=")
        }
    }

    static let malformedHeads: [(String, String)] = [
        ("no status code", "HTTP/1.1\r\n\r\n"),
        ("status not 3 digits", "HTTP/1.1 1010 X\r\n\r\n"),
        ("status not a number", "HTTP/1.1 1x1 X\r\n\r\n"),
        ("not HTTP", "SIP/2.0 101 X\r\n\r\n"),
        ("empty start line", "\r\nUpgrade: websocket\r\n\r\n"),
        ("header without a colon", "HTTP/1.1 101 X\r\nUpgrade websocket\r\n\r\n"),
        ("space in a header name", "HTTP/1.1 101 X\r\nUp grade: websocket\r\n\r\n"),
    ]

    @Test(arguments: malformedHeads.indices)
    func refusesAMalformedHead(_ i: Int) {
        let (name, text) = Self.malformedHeads[i]
        #expect(throws: HTTPRequestHead.ParseError.self, "\(name)") { _ = try HTTPResponseHead.parse(Array(text.utf8)) }
    }

    @Test func incompleteAndOverlongHeads() throws {
        #expect(try HTTPResponseHead.parse(Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n".utf8)) == nil)
        let long = "HTTP/1.1 101 X\r\nX: " + String(repeating: "a", count: HTTPRequestHead.maxHeadLength)
        #expect(throws: HTTPRequestHead.ParseError.tooLong) { _ = try HTTPResponseHead.parse(Array(long.utf8)) }
        // What follows the head is left for the frame parser.
        let (_, consumed) = try #require(try HTTPResponseHead.parse(Array((Self.good + "\u{81}\u{02}hi").utf8)))
        #expect(consumed == Self.good.utf8.count)
    }

    @Test func mutationsNeverTrap() {
        var rng = SeededRandom(seed: 6455_1)
        let h = WebSocketClientHandshake(host: "localhost", target: "/ws", key: Self.rfcKey)
        for _ in 0..<5000 {
            let input = Mutation.mutate(Array(Self.good.utf8), using: &rng)
            if let (head, _) = try? HTTPResponseHead.parse(input) { _ = try? h.validate(head) }
        }
    }
}

/// ws:// and unix: URLs.
@Suite struct WebSocketURLTests {
    static let valid: [(String, WebSocketURL.Endpoint, String)] = [
        ("ws://127.0.0.1:5580/ws", .tcp(host: "127.0.0.1", port: 5580), "/ws"),
        ("ws://[::1]:5580/ws?token=abc", .tcp(host: "::1", port: 5580), "/ws?token=abc"),
        ("ws://hub.local/ws", .tcp(host: "hub.local", port: 80), "/ws"),
        ("ws://hub.local:8080", .tcp(host: "hub.local", port: 8080), "/"),
        ("ws://hub.local?x=1", .tcp(host: "hub.local", port: 80), "/?x=1"),
        ("unix:/var/lib/matterhub/hub.sock", .unix(path: "/var/lib/matterhub/hub.sock"), "/ws"),
    ]

    @Test(arguments: valid.indices)
    func parses(_ i: Int) throws {
        let (text, endpoint, target) = Self.valid[i]
        let url = try WebSocketURL(text)
        #expect(url.endpoint == endpoint && url.target == target, "\(text)")
    }

    static let invalid = ["http://x/ws", "wss://x/ws", "ws://", "ws://:80/ws", "ws://x:0/ws", "ws://x:65536/ws", "ws://x:port/ws",
                          "ws://[::1/ws", "ws://[::1]x/ws", "unix:", "unix:relative", "ws://user@x/ws"]

    @Test(arguments: invalid)
    func refuses(_ text: String) {
        #expect(throws: WebSocketURL.ParseError.self) { _ = try WebSocketURL(text) }
    }

    @Test func tokenIsPercentEncodedAndNeverShown() throws {
        let url = try WebSocketURL("ws://127.0.0.1:5580/ws").adding(token: "a b&c")
        #expect(url.target == "/ws?token=a%20b%26c")
        #expect(url.description == "ws://127.0.0.1:5580/ws")
        #expect(try WebSocketURL("ws://h/ws?x=1").adding(token: "t").target == "/ws?x=1&token=t")
    }
}
