import Foundation
import MatterWebSocket
import Synchronization
import Testing
import TestSupport

/// Echoes text back, serves GET / and records closes.
final class EchoDelegate: WebSocketServerDelegate {
    let closes = Mutex<[(UInt64, WebSocketCloseCode?, String)]>([])
    let opened = Mutex<[WebSocketConnection]>([])

    func httpResponse(for request: HTTPRequestHead) -> HTTPResponse? {
        request.path == "/" ? .text(200, "OK", "hello") : nil
    }
    func connectionOpened(_ connection: WebSocketConnection) { opened.withLock { $0.append(connection) } }
    func connection(_ connection: WebSocketConnection, received message: WebSocketMessage) {
        if case .text(let t) = message { connection.send(text: t) }
        connection.handled(message)
    }
    func connectionClosed(_ connection: WebSocketConnection, code: WebSocketCloseCode?, reason: String) {
        closes.withLock { $0.append((connection.id, code, reason)) }
    }
}

/// Keeps what it receives unhandled until the test lets go.
final class HoldingDelegate: WebSocketServerDelegate {
    let held = Mutex<[(WebSocketConnection, WebSocketMessage)]>([])
    func httpResponse(for request: HTTPRequestHead) -> HTTPResponse? { nil }
    func connectionOpened(_ connection: WebSocketConnection) {}
    func connection(_ connection: WebSocketConnection, received message: WebSocketMessage) {
        held.withLock { $0.append((connection, message)) }
    }
    func connectionClosed(_ connection: WebSocketConnection, code: WebSocketCloseCode?, reason: String) {}
    func releaseAll() {
        for (c, m) in held.withLock({ h in defer { h = [] }; return h }) { c.handled(m) }
    }
}

@Suite(.serialized) struct WebSocketServerTests {
    func withServer(_ config: WebSocketServerConfiguration = WebSocketServerConfiguration(addresses: [.tcp(host: "127.0.0.1", port: 0)]),
                    _ body: (WebSocketServer, EchoDelegate) async throws -> Void) async throws {
        let delegate = EchoDelegate()
        let server = try WebSocketServer(configuration: config, delegate: delegate)
        server.start()
        do {
            try await body(server, delegate)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func echoPingFragmentsAndClose() async throws {
        try await withServer { server, _ in
            let c = try WebSocketTestClient(port: server.tcpPort!)
            #expect(try await c.upgrade() == 101)
            #expect(c.responseHead.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
            try await c.sendText("hi")
            #expect(try await c.nextText() == "hi")
            try await c.send(.ping, [7, 7])
            #expect(try await c.next() == .pong([7, 7]))
            try await c.send(.text, Array("He".utf8), fin: false)
            try await c.send(.ping, [1])
            try await c.send(.continuation, Array("llo".utf8))
            #expect(try await c.next() == .pong([1]))
            #expect(try await c.nextText() == "Hello")
            try await c.sendRaw(WebSocketFrame.close(.normal, reason: "done", maskingKey: [1, 2, 3, 4]))
            let close = try await c.waitForClose()
            #expect(close?.code == .normal)
        }
    }

    @Test func oversizedMessageClosesWith1009() async throws {
        var config = WebSocketServerConfiguration(addresses: [.tcp(host: "127.0.0.1", port: 0)])
        config.maxMessageSize = 1000
        try await withServer(config) { server, delegate in
            let c = try WebSocketTestClient(port: server.tcpPort!)
            try await c.upgrade()
            try await c.send(.text, [UInt8](repeating: 0x61, count: 1001))
            let close = try await c.waitForClose()
            #expect(close?.code == .messageTooBig)
            #expect(await eventually(5) { delegate.closes.withLock { $0.first?.1 } == .messageTooBig })
        }
    }

    @Test func tokenRequired() async throws {
        var config = WebSocketServerConfiguration(addresses: [.tcp(host: "127.0.0.1", port: 0)])
        config.token = "t0ken"
        try await withServer(config) { server, _ in
            let denied = try WebSocketTestClient(port: server.tcpPort!)
            #expect(try await denied.upgrade() == 401)
            let wrong = try WebSocketTestClient(port: server.tcpPort!)
            #expect(try await wrong.upgrade(target: "/ws?token=nope") == 401)
            let allowed = try WebSocketTestClient(port: server.tcpPort!)
            #expect(try await allowed.upgrade(target: "/ws?token=t0ken") == 101)
            try await allowed.sendText("ok")
            #expect(try await allowed.nextText() == "ok")
        }
    }

    @Test func plainHTTP() async throws {
        try await withServer { server, _ in
            let root = try WebSocketTestClient(port: server.tcpPort!)
            try await root.sendRaw(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            #expect(try await root.readResponseHead() == 200)
            #expect(String(decoding: try await root.readToEnd(), as: UTF8.self) == "hello\n")
            let missing = try WebSocketTestClient(port: server.tcpPort!)
            try await missing.sendRaw(Array("GET /nothing HTTP/1.1\r\nHost: localhost:1\r\n\r\n".utf8))
            #expect(try await missing.readResponseHead() == 404)
            // HTTP/1.1 without Host (RFC 9112 3.2), and a Host that is not loopback (rebinding).
            let noHost = try WebSocketTestClient(port: server.tcpPort!)
            try await noHost.sendRaw(Array("GET / HTTP/1.1\r\n\r\n".utf8))
            #expect(try await noHost.readResponseHead() == 400)
            let rebound = try WebSocketTestClient(port: server.tcpPort!)
            try await rebound.sendRaw(Array("GET / HTTP/1.1\r\nHost: evil.example:\(server.tcpPort!)\r\n\r\n".utf8))
            #expect(try await rebound.readResponseHead() == 403)
            let garbage = try WebSocketTestClient(port: server.tcpPort!)
            try await garbage.sendRaw(Array("\u{1}\u{2}garbage\r\n\r\n".utf8))
            #expect(try await garbage.readResponseHead() == 400)
        }
    }

    @Test func unixSocketIsOwnerOnly() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mh-ws-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("hub.sock").path
        var config = WebSocketServerConfiguration(addresses: [.unix(path: path)])
        config.token = "secret"  // not needed on the owner-only socket
        try await withServer(config) { _, _ in
            let attrs = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attrs[.posixPermissions] as? Int) == 0o600)
            let c = try WebSocketTestClient(unixPath: path)
            #expect(try await c.upgrade() == 101)
            try await c.sendText("unix")
            #expect(try await c.nextText() == "unix")
            // A second server on the same live socket is refused.
            #expect(throws: WebSocketServerError.self) {
                try WebSocketServer(configuration: WebSocketServerConfiguration(addresses: [.unix(path: path)]), delegate: EchoDelegate())
            }
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func connectionLimit() async throws {
        var config = WebSocketServerConfiguration(addresses: [.tcp(host: "127.0.0.1", port: 0)])
        config.maxConnections = 2
        try await withServer(config) { server, _ in
            let a = try WebSocketTestClient(port: server.tcpPort!)
            try await a.upgrade()
            let b = try WebSocketTestClient(port: server.tcpPort!)
            try await b.upgrade()
            // Sockets that have not upgraded do not count: the third is refused at its upgrade.
            let c = try WebSocketTestClient(port: server.tcpPort!)
            #expect(try await c.upgrade() == 503)
            try await a.sendText("still here")
            #expect(try await a.nextText() == "still here")
        }
    }

    @Test func slowClientIsDroppedOthersUnaffected() async throws {
        var config = WebSocketServerConfiguration(addresses: [.tcp(host: "127.0.0.1", port: 0)])
        config.maxQueuedMessages = 8
        try await withServer(config) { server, delegate in
            let slow = try WebSocketTestClient(port: server.tcpPort!)
            try await slow.upgrade()
            let fast = try WebSocketTestClient(port: server.tcpPort!)
            try await fast.upgrade()
            #expect(await eventually(5) { delegate.opened.withLock { $0.count } == 2 })
            let connections = delegate.opened.withLock { $0 }
            let slowConnection = try #require(connections.first)
            // The slow client never reads: a few MB fill the socket buffers, then the queue.
            let big = [UInt8](repeating: 0x61, count: 512 << 10)
            var accepted = 0
            for _ in 0..<200 where slowConnection.send(text: big) { accepted += 1 }
            #expect(accepted < 200)
            #expect(await eventually(5) { delegate.closes.withLock { $0.contains { $0.0 == slowConnection.id && $0.1 == .policyViolation } } })
            try await fast.sendText("unaffected")
            #expect(try await fast.nextText() == "unaffected")
        }
    }

    /// Senders write to the socket themselves while nothing is queued; when the socket is full
    /// the rest of a frame goes to the I/O thread. Whatever the mix, and with pongs the I/O
    /// thread writes in between, every frame arrives whole and each sender's frames in order.
    @Test func concurrentSendersFramesArriveWholeAndInOrder() async throws {
        var config = WebSocketServerConfiguration(addresses: [.tcp(host: "127.0.0.1", port: 0)])
        config.maxQueuedBytes = 64 << 20  // the 16 MB burst is the point here, not the limit
        config.maxTotalQueuedBytes = 128 << 20
        try await withServer(config) { server, delegate in
            let client = try WebSocketTestClient(port: server.tcpPort!)
            try await client.upgrade()
            #expect(await eventually(5) { delegate.opened.withLock { !$0.isEmpty } })
            let connection = try #require(delegate.opened.withLock { $0.first })
            let senders = 4, perSender = 60
            // Sizes from a few bytes to 200 KB, so some frames fill the socket midway.
            func message(_ sender: Int, _ n: Int) -> [UInt8] {
                let size = [5, 300, 70_000, 200_000][(sender + n) % 4]
                return Array("\(sender) \(n) ".utf8) + [UInt8](repeating: UInt8(0x61 + (sender * 7 + n) % 26), count: size)
            }
            await withTaskGroup(of: Void.self) { group in
                for s in 0..<senders {
                    group.addTask {
                        for n in 0..<perSender {
                            _ = connection.send(text: message(s, n))
                            if n % 10 == 0 { await Task.yield() }
                        }
                    }
                }
                group.addTask { try? await client.send(.ping, [9]) }
            }
            var next = [Int](repeating: 0, count: senders)
            var pongs = 0
            while next.reduce(0, +) < senders * perSender {
                switch try await client.next() {
                case .text(let t)?:
                    let fields = t.split(separator: 0x20, maxSplits: 2)
                    let s = try #require(Int(String(decoding: fields[0], as: UTF8.self)))
                    let n = try #require(Int(String(decoding: fields[1], as: UTF8.self)))
                    #expect(n == next[s], "sender \(s): message \(n) arrived when \(next[s]) was due")
                    #expect(t == message(s, n), "sender \(s) message \(n) arrived altered")
                    next[s] = n + 1
                case .pong?: pongs += 1
                case let other: Issue.record("unexpected \(String(describing: other))"); return
                }
            }
            try await client.send(.ping, [10])
            while case .pong? = try await client.next() { pongs += 1; break }
            #expect(pongs == 2)
            #expect(connection.isOpen)
        }
    }

    /// A page on another origin cannot open the socket; the hub's own origins, listed ones and
    /// native clients (no Origin) can.
    @Test func theOriginOfAnUpgradeIsChecked() async throws {
        var config = WebSocketServerConfiguration(addresses: [.tcp(host: "127.0.0.1", port: 0)])
        config.originPolicy = RequestOriginPolicy(allowedOrigins: ["https://HA.example:8123/"])
        try await withServer(config) { server, _ in
            let port = server.tcpPort!
            for (origin, status) in [("http://evil.example", 403), ("null", 403), ("http://127.0.0.1:8765", 403),
                                     ("http://127.0.0.1:\(port)", 101), ("http://localhost:\(port)", 101),
                                     ("https://ha.example:8123", 101)] {
                let c = try WebSocketTestClient(port: port)
                #expect(try await c.upgrade(extraHeaders: "Origin: \(origin)\r\n") == status, "\(origin)")
                if status == 403 { #expect(try String(decoding: await c.readToEnd(), as: UTF8.self).contains("--allow-origin")) }
            }
            let native = try WebSocketTestClient(port: port)
            #expect(try await native.upgrade() == 101)
        }
    }

    /// Sockets that never send a byte fill the handshake pool; the oldest goes for each new
    /// one, so a real client still gets in at once.
    @Test func silentSocketsCannotLockOutAClient() async throws {
        var config = WebSocketServerConfiguration(addresses: [.tcp(host: "127.0.0.1", port: 0)])
        config.maxHandshakes = 6
        config.maxHandshakesPerAddress = 3
        try await withServer(config) { server, _ in
            var silent: [WebSocketTestClient] = []
            for _ in 0..<20 { silent.append(try WebSocketTestClient(port: server.tcpPort!)) }
            try await Task.sleep(for: .milliseconds(200))
            let client = try WebSocketTestClient(port: server.tcpPort!)
            #expect(try await client.upgrade() == 101)
            try await client.sendText("in")
            #expect(try await client.nextText() == "in")
            // The first silent sockets were closed to make room.
            #expect(try await silent[0].readToEnd().isEmpty)
        }
    }

    /// A silent connection is pinged; one that answers stays, one that does not is closed.
    @Test func aClientThatDoesNotAnswerPingsIsClosed() async throws {
        var config = WebSocketServerConfiguration(addresses: [.tcp(host: "127.0.0.1", port: 0)])
        config.pingInterval = .milliseconds(300)
        try await withServer(config) { server, delegate in
            let answering = try WebSocketTestClient(port: server.tcpPort!)
            try await answering.upgrade()
            let silent = try WebSocketTestClient(port: server.tcpPort!)
            try await silent.upgrade()
            var pings = 0
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .seconds(1.5) {
                if case .ping(let p)? = try await answering.next() {
                    pings += 1
                    try await answering.send(.pong, p)
                }
            }
            #expect(pings >= 2)
            #expect(await eventually(5) { delegate.closes.withLock { $0.contains { $0.2.contains("no answer to a ping") } } })
            try await answering.sendText("still here")
            #expect(try await answering.nextText() == "still here")
        }
    }

    /// While the application holds the in-flight limit's worth of a connection's messages, the
    /// server reads no more of them; it goes on once they are handled.
    @Test func readingPausesWhileTooManyMessagesAreInFlight() async throws {
        var config = WebSocketServerConfiguration(addresses: [.tcp(host: "127.0.0.1", port: 0)])
        config.maxMessagesInFlight = 4
        let delegate = HoldingDelegate()
        let server = try WebSocketServer(configuration: config, delegate: delegate)
        server.start()
        let client = try WebSocketTestClient(port: server.tcpPort!)
        try await client.upgrade()
        for n in 0..<20 { try await client.sendText("m\(n)") }
        #expect(await eventually(5) { delegate.held.withLock { $0.count == 4 } })
        try await Task.sleep(for: .milliseconds(300))
        #expect(delegate.held.withLock { $0.count } == 4)
        var received = 0
        #expect(await eventually(5) {
            received += delegate.held.withLock { $0.count }
            delegate.releaseAll()
            return received == 20
        })
        await server.stop()
    }
}
