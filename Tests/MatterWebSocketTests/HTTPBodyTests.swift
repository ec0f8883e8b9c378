import Foundation
import MatterWebSocket
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Takes POST /upload bodies into memory and answers with their length; records abandons.
final class UploadDelegate: WebSocketServerDelegate {
    final class Sink: HTTPBodySink {
        let received = Mutex<[UInt8]>([])
        let abandoned = Mutex(false)
        let refuseAfter: Int?
        init(refuseAfter: Int?) { self.refuseAfter = refuseAfter }
        func write(_ bytes: ArraySlice<UInt8>) -> HTTPResponse? {
            let total = received.withLock { $0 += bytes; return $0.count }
            if let limit = refuseAfter, total > limit { return .text(422, "Unprocessable Content", "not an image") }
            return nil
        }
        func finish(respond: @escaping @Sendable (HTTPResponse) -> Void) {
            let count = received.withLock { $0.count }
            Task {
                try? await Task.sleep(for: .milliseconds(20))  // answered later, from another thread
                respond(.text(200, "OK", "got \(count)"))
            }
        }
        func abandon() { abandoned.withLock { $0 = true } }
    }

    let sinks = Mutex<[Sink]>([])
    let peers = Mutex<[String]>([])
    func httpResponse(for request: HTTPRequestHead) -> HTTPResponse? { nil }
    func httpBody(for request: HTTPRequestHead, peer: String) -> HTTPBodyDecision? {
        peers.withLock { $0.append(peer) }
        switch request.path {
        case "/upload", "/picky":
            let sink = Sink(refuseAfter: request.path == "/picky" ? 10 : nil)
            sinks.withLock { $0.append(sink) }
            return .accept(sink, maxBytes: 1 << 20)
        case "/refused": return .refuse(.text(400, "Bad Request", "unknown id"))
        default: return nil
        }
    }
    func connectionOpened(_ connection: WebSocketConnection) {}
    func connection(_ connection: WebSocketConnection, received message: WebSocketMessage) { connection.handled(message) }
    func connectionClosed(_ connection: WebSocketConnection, code: WebSocketCloseCode?, reason: String) {}
}

@Suite(.serialized) struct HTTPBodyTests {
    func withServer(bodyIdleTimeout: Duration = .seconds(30), _ body: (WebSocketServer, UploadDelegate) async throws -> Void) async throws {
        var config = WebSocketServerConfiguration(addresses: [.tcp(host: "127.0.0.1", port: 0)])
        config.bodyIdleTimeout = bodyIdleTimeout
        let delegate = UploadDelegate()
        let server = try WebSocketServer(configuration: config, delegate: delegate)
        server.start()
        do { try await body(server, delegate) } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func post(_ port: UInt16, _ path: String, body: [UInt8], headers: String? = nil) async throws -> (Int, String) {
        let c = try WebSocketTestClient(port: port)
        let head = headers ?? "Content-Length: \(body.count)\r\n"
        try await c.sendRaw(Array("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(head)\r\n".utf8) + body)
        let status = try await c.readResponseHead()
        return (status, String(decoding: try await c.readToEnd(), as: UTF8.self))
    }

    @Test func aBodyIsStreamedIntoTheSinkAndAnsweredLater() async throws {
        try await withServer { server, delegate in
            let body = (0..<300_000).map { UInt8($0 % 251) }
            let (status, text) = try await post(server.tcpPort!, "/upload", body: body)
            #expect(status == 200)
            #expect(text == "got 300000\n")
            let sink = try #require(delegate.sinks.withLock { $0.first })
            #expect(sink.received.withLock { $0 } == body)
            #expect(!sink.abandoned.withLock { $0 })
            #expect(delegate.peers.withLock { $0.first?.hasPrefix("127.0.0.1:") } == true)
            // Expect: 100-continue gets its interim answer first (curl waits for it).
            let c = try WebSocketTestClient(port: server.tcpPort!)
            try await c.sendRaw(Array("POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n".utf8))
            #expect(try await c.readResponseHead() == 100)
            try await c.sendRaw([1, 2, 3])
            let rest = String(decoding: try await c.readToEnd(), as: UTF8.self)
            #expect(rest.hasPrefix("HTTP/1.1 200 OK") && rest.hasSuffix("got 3\n"), "\(rest)")
        }
    }

    @Test func refusalsAreReadByTheClientEvenWhileItSendsItsBody() async throws {
        try await withServer { server, delegate in
            let port = server.tcpPort!
            let big = [UInt8](repeating: 7, count: 2 << 20)
            // Larger than the sink takes: 413 before a byte is written, the body read and dropped.
            let (tooLarge, text) = try await post(port, "/upload", body: big)
            #expect(tooLarge == 413)
            #expect(text.contains("at most 1048576"))
            #expect(delegate.sinks.withLock { $0.allSatisfy { $0.abandoned.withLock { $0 } } })
            // The delegate refuses (an unknown upload id): its answer, not a reset.
            #expect(try await post(port, "/refused", body: [UInt8](repeating: 1, count: 500_000)).0 == 400)
            // No Content-Length (chunked): 411.
            #expect(try await post(port, "/upload", body: Array("3\r\nabc\r\n0\r\n\r\n".utf8),
                                   headers: "Transfer-Encoding: chunked\r\n").0 == 411)
            // A path the delegate does not take: 405, as before.
            #expect(try await post(port, "/elsewhere", body: [1, 2, 3]).0 == 405)
            // The sink refuses midway: its answer, and it is abandoned.
            let (unprocessable, _) = try await post(port, "/picky", body: [UInt8](repeating: 9, count: 100_000))
            #expect(unprocessable == 422)
            #expect(delegate.sinks.withLock { $0.last!.abandoned.withLock { $0 } })
        }
    }

    @Test func aCrossSitePostIsRefusedBeforeTheDelegateSeesIt() async throws {
        try await withServer { server, delegate in
            let (status, text) = try await post(server.tcpPort!, "/upload", body: [1, 2, 3],
                                                headers: "Content-Length: 3\r\nOrigin: https://evil.example\r\n")
            #expect(status == 403)
            #expect(text.contains("may not upload to the hub"))
            #expect(delegate.peers.withLock { $0.isEmpty })
        }
    }

    @Test func aClientThatStopsOrLeavesMidBodyIsDroppedAndItsSinkAbandoned() async throws {
        try await withServer(bodyIdleTimeout: .milliseconds(300)) { server, delegate in
            let stalled = try WebSocketTestClient(port: server.tcpPort!)
            try await stalled.sendRaw(Array("POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n".utf8) + [1, 2, 3])
            #expect(try await stalled.readToEnd().isEmpty)  // closed without an answer
            let gone = try WebSocketTestClient(port: server.tcpPort!)
            try await gone.sendRaw(Array("POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n".utf8) + [1])
            try await Task.sleep(for: .milliseconds(50))
            shutdown(gone.fd, Int32(SHUT_RDWR))
            let abandoned = await eventually(5) {
                delegate.sinks.withLock { $0.count == 2 && $0.allSatisfy { $0.abandoned.withLock { $0 } } }
            }
            #expect(abandoned)
        }
    }
}
