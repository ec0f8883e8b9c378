import MatterWebSocket
import Testing

/// The Host and Origin rules that keep web pages away from the hub, and the request-head rules
/// that came with them (HTTP version, control bytes).
struct RequestOriginPolicyTests {
    static let loopback = RequestOriginPolicy.Listener(host: "127.0.0.1", port: 5580, isUnix: false)
    static let loopback6 = RequestOriginPolicy.Listener(host: "::1", port: 5580, isUnix: false)
    static let lan = RequestOriginPolicy.Listener(host: "192.168.1.10", port: 5580, isUnix: false)
    static let unix = RequestOriginPolicy.Listener(host: "", port: 0, isUnix: true)
    static let listeners = [loopback, loopback6, unix]

    func head(_ headers: String, version: String = "HTTP/1.1") throws -> HTTPRequestHead {
        try #require(try HTTPRequestHead.parse(Array("GET /ws \(version)\r\n\(headers)\r\n".utf8))).head
    }

    func status(_ headers: String, policy: RequestOriginPolicy = RequestOriginPolicy(), on listener: RequestOriginPolicy.Listener = loopback,
                upgrade: Bool = true, version: String = "HTTP/1.1") throws -> Int? {
        policy.refusal(of: try head(headers, version: version), on: listener, checksOrigin: upgrade,
                       listeners: Self.listeners + (listener == Self.lan ? [Self.lan] : []))?.status
    }

    @Test(arguments: ["127.0.0.1:5580", "127.0.0.1", "127.1.2.3:5580", "localhost:5580", "LOCALHOST", "localhost.:5580", "[::1]:5580", "[::1]"])
    func loopbackHostsAreAccepted(_ host: String) throws {
        #expect(try status("Host: \(host)\r\n", upgrade: false) == nil)
        #expect(try status("Host: \(host)\r\n") == nil)
    }

    @Test(arguments: ["evil.example:5580", "evil.example", "127.0.0.1.evil.example", "192.168.1.10:5580", "[::2]:5580",
                      "localhost.evil:5580", "127.0.0.1:notaport", "[::1", ""])
    func otherHostsAreRefusedOnLoopback(_ host: String) throws {
        #expect(try status("Host: \(host)\r\n", upgrade: false) == 403 || host.isEmpty)
        #expect(try status("Host: \(host)\r\n", upgrade: false) != nil)
    }

    @Test func aMissingHostIsRefusedInHTTP11Only() throws {
        #expect(try status("", upgrade: false) == 400)
        #expect(try status("", upgrade: false, version: "HTTP/1.0") == nil)
    }

    @Test func allowedHostsAndOtherListeners() throws {
        let policy = RequestOriginPolicy(allowedHosts: ["MatterHub"])
        #expect(try status("Host: matterhub:5580\r\n", policy: policy, upgrade: false) == nil)
        #expect(try status("Host: other:5580\r\n", policy: policy, upgrade: false) == 403)
        // Beyond loopback the token decides; the Unix socket is owner-only.
        #expect(try status("Host: hub.lan:5580\r\n", on: Self.lan, upgrade: false) == nil)
        #expect(try status("Host: evil.example\r\nOrigin: http://evil.example\r\n", on: Self.unix) == nil)
    }

    @Test func origins() throws {
        let policy = RequestOriginPolicy(allowedOrigins: ["https://ha.example:8123", "not an origin"])
        let host = "Host: 127.0.0.1:5580\r\n"
        for (origin, refused) in [("http://evil.example", true), ("null", true), ("http://127.0.0.1:8765", true),
                                  ("https://127.0.0.1:5580", true), ("http://127.0.0.1:5580", false), ("http://localhost:5580", false),
                                  ("http://[::1]:5580", false), ("HTTP://LOCALHOST:5580", false), ("https://ha.example:8123", false),
                                  ("https://ha.example", true), ("file://", true), ("", true)] {
            #expect(try status(host + "Origin: \(origin)\r\n", policy: policy) == (refused ? 403 : nil), "\(origin)")
        }
        // No Origin: a native client. And plain GETs are left to the browser's CORS.
        #expect(try status(host, policy: policy) == nil)
        #expect(try status(host + "Origin: http://evil.example\r\n", policy: policy, upgrade: false) == nil)
        // The page's own origin when the hub is reached by a name it was given.
        let named = RequestOriginPolicy(allowedHosts: ["matterhub"])
        #expect(try status("Host: matterhub:5580\r\nOrigin: http://matterhub:5580\r\n", policy: named) == nil)
        #expect(try status("Host: matterhub:5580\r\nOrigin: http://matterhub:9999\r\n", policy: named) == 403)
    }

    @Test func normalizedOrigins() {
        #expect(RequestOriginPolicy.normalizedOrigin("HTTP://Example.com:80/") == "http://example.com")
        #expect(RequestOriginPolicy.normalizedOrigin("https://example.com:443") == "https://example.com")
        #expect(RequestOriginPolicy.normalizedOrigin("http://[::1]:5580") == "http://[::1]:5580")
        #expect(RequestOriginPolicy.normalizedOrigin("http://example.com/path") == nil)
        #expect(RequestOriginPolicy.normalizedOrigin("http://user@example.com") == nil)
        #expect(RequestOriginPolicy.normalizedOrigin("null") == nil)
        #expect(RequestOriginPolicy.normalizedOrigin("http://example.com:0") == nil)
    }

    @Test func onlyHTTP10And11AreSpoken() throws {
        for version in ["HTTP/1.9", "HTTP/2.0", "HTTP/1.10"] {
            #expect(throws: HTTPRequestHead.ParseError.unsupportedVersion(version)) {
                try HTTPRequestHead.parse(Array("GET / \(version)\r\nHost: x\r\n\r\n".utf8))
            }
            #expect(HTTPRequestHead.ParseError.unsupportedVersion(version).status.code == 505)
        }
        #expect(try HTTPRequestHead.parse(Array("GET / HTTP/1.0\r\n\r\n".utf8)) != nil)
        #expect(throws: HTTPRequestHead.ParseError.self) { try HTTPRequestHead.parse(Array("GET / FTP/1.1\r\n\r\n".utf8)) }
    }

    @Test(arguments: ["X: a\u{0}b", "X: a\u{7F}", "X: a\u{1B}[2J", "X: a\rb", "X\u{0}: a", "X(: a", "GE\u{1}T"])
    func controlBytesAreRefused(_ line: String) {
        let request = line.hasPrefix("GE") ? "\(line) / HTTP/1.1\r\n\r\n" : "GET / HTTP/1.1\r\n\(line)\r\n\r\n"
        #expect(throws: HTTPRequestHead.ParseError.self) { try HTTPRequestHead.parse(Array(request.utf8)) }
    }

    @Test func aTabInAValueIsFine() throws {
        let head = try #require(try HTTPRequestHead.parse(Array("GET / HTTP/1.1\r\nX: a\tb\r\n\r\n".utf8))).head
        #expect(head.header("x") == "a\tb")
    }
}
