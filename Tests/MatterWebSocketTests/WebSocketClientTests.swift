import Foundation
import MatterWebSocket
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The client against our server (TCP and Unix socket), against aiohttp's server (a WebSocket
/// implementation we did not write), and against a raw server that breaks the protocol.
@Suite(.serialized) struct WebSocketClientTests {
    static func next(_ client: WebSocketClient, timeout: Duration = .seconds(10)) async -> WebSocketMessage? {
        await withTaskGroup(of: WebSocketMessage?.self) { group in
            group.addTask {
                for await m in client.messages { return m }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    static func text(_ m: WebSocketMessage?) -> String? {
        if case .text(let t)? = m { return String(decoding: t, as: UTF8.self) }
        return nil
    }

    func withServer(_ addresses: [ListenAddress], token: String? = nil,
                    _ body: (WebSocketServer, EchoDelegate) async throws -> Void) async throws {
        let delegate = EchoDelegate()
        let server = try WebSocketServer(configuration: WebSocketServerConfiguration(addresses: addresses, token: token),
                                         delegate: delegate)
        server.start()
        do { try await body(server, delegate) } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Our server requires masked client frames (it closes with 1002 otherwise), so every echo
    /// here also shows the client masks.
    @Test func echoPingAndCloseOverTCP() async throws {
        try await withServer([.tcp(host: "127.0.0.1", port: 0)]) { server, delegate in
            let client = try await WebSocketClient.connect(to: try WebSocketURL("ws://127.0.0.1:\(server.tcpPort!)/ws"))
            #expect(client.response.status == 101)
            try client.send(text: "hello")
            #expect(Self.text(await Self.next(client)) == "hello")
            // 16-bit and 64-bit payload lengths, masked.
            for size in [200, 70_000] {
                let big = String(repeating: "x", count: size)
                try client.send(text: big)
                #expect(Self.text(await Self.next(client))?.count == size)
            }
            let rtt = try await client.ping()
            #expect(rtt < .seconds(5))
            await client.close(.normal, reason: "done")
            #expect(client.closeInfo?.code == .normal)
            #expect(Self.text(await Self.next(client, timeout: .seconds(1))) == nil)
            #expect(throws: WebSocketClientError.self) { try client.send(text: "late") }
            #expect(await eventually(5) { delegate.closes.withLock { !$0.isEmpty } })
            let closes = delegate.closes.withLock { $0 }
            #expect(closes.count == 1 && closes.first?.1 == .normal && closes.first?.2 == "done")
        }
    }

    @Test func unixSocketAndServerShutdown() async throws {
        let path = NSTemporaryDirectory() + "ws-client-\(UInt32.random(in: 0...UInt32.max)).sock"
        let delegate = EchoDelegate()
        let server = try WebSocketServer(configuration: WebSocketServerConfiguration(addresses: [.unix(path: path)]), delegate: delegate)
        server.start()
        let client = try await WebSocketClient.connect(to: try WebSocketURL("unix:\(path)"))
        try client.send(text: "over unix")
        #expect(Self.text(await Self.next(client)) == "over unix")
        // The server closes (1001): the stream ends and says how.
        await server.stop()
        #expect(await Self.next(client) == nil)
        #expect(client.closeInfo?.code == .goingAway)
        #expect(!client.isOpen)
    }

    @Test func tokenRefusalAndNobodyListening() async throws {
        try await withServer([.tcp(host: "127.0.0.1", port: 0)], token: "s3cret") { server, _ in
            let url = try WebSocketURL("ws://127.0.0.1:\(server.tcpPort!)/ws")
            do throws(WebSocketClientError) {
                _ = try await WebSocketClient.connect(to: url)
                Issue.record("connected without the token")
            } catch {
                guard case .handshake(_, .refused(let status, _, let body)) = error else { Issue.record("\(error)"); return }
                #expect(status == 401 && body.contains("matterctl hub token"))
                #expect(!error.description.contains("s3cret"))
            }
            let client = try await WebSocketClient.connect(to: url.adding(token: "s3cret"))
            try client.send(text: "in")
            #expect(Self.text(await Self.next(client)) == "in")
            await client.close()
        }
        let missing = NSTemporaryDirectory() + "no-hub-\(UInt32.random(in: 0...UInt32.max)).sock"
        await #expect(throws: WebSocketClientError.self) { _ = try await WebSocketClient.connect(to: try WebSocketURL("unix:\(missing)")) }
    }

    /// aiohttp checks our key and upgrade request, computes the accept we check, pings us, and
    /// closes with its own code.
    @Test(arguments: ["tcp", "unix"])
    func aiohttpServer(_ mode: String) async throws {
        let python = Lab.repositoryRoot.appendingPathComponent(".peers/ohf-client/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            print("skipped: \(python) is missing (scripts/peers installs it)")
            return
        }
        let script = Lab.repositoryRoot.appendingPathComponent("scripts/ws-peer.py").path
        let path = NSTemporaryDirectory() + "ws-peer-\(UInt32.random(in: 0...UInt32.max)).sock"
        let peer = try ChildProcess([python, script] + (mode == "unix" ? ["unix", path] : ["tcp"]))
        defer { Task { await peer.stop() } }
        let ready = try #require(await peer.waitForLine(timeout: 20) { $0.hasPrefix("ready ") }, Comment(rawValue: peer.text))
        let url = mode == "unix" ? try WebSocketURL("unix:\(path)")
            : try WebSocketURL("ws://127.0.0.1:\(ready.split(separator: " ")[2])/ws")

        let client = try await WebSocketClient.connect(to: url)
        // Its ping came back to it with the payload it sent.
        #expect(Self.text(await Self.next(client)) == "pong:srv")
        try client.send(text: "hello")
        #expect(Self.text(await Self.next(client)) == "echo:hello")
        try client.send(binary: [UInt8](repeating: 7, count: 70_000))
        #expect(Self.text(await Self.next(client)) == "binary:70000")
        _ = try await client.ping()
        try client.send(text: "close-me")
        #expect(await Self.next(client) == nil)
        #expect(client.closeInfo?.code == WebSocketCloseCode(rawValue: 4000) && client.closeInfo?.reason == "bye")

        // Our close reaches it with our code.
        let second = try await WebSocketClient.connect(to: url)
        #expect(Self.text(await Self.next(second)) == "pong:srv")
        await second.close(WebSocketCloseCode.normal)
        #expect(await peer.waitForLine(timeout: 5) { $0 == "closed 1000" } != nil, Comment(rawValue: peer.text))
    }

    /// A server whose frames are masked breaks RFC 6455 5.1: the client fails the connection
    /// with 1002; one whose accept is wrong is refused before any frame.
    @Test func rawServerThatBreaksTheProtocol() async throws {
        let masked = RawServer { key in
            RawServer.upgrade(accept: WebSocketHandshake.acceptValue(forKey: key))
                + WebSocketFrame.encode(.text, Array("hi".utf8), maskingKey: [1, 2, 3, 4])
        }
        let client = try await WebSocketClient.connect(to: try WebSocketURL("ws://127.0.0.1:\(masked.port)/ws"))
        #expect(await Self.next(client) == nil)
        #expect(client.closeInfo?.code == .protocolError)
        // What the client sent back: a masked close frame with 1002.
        for _ in 0..<200 where masked.received.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        var parser = WebSocketFrameParser(requireMasked: true)
        parser.append(masked.received.withLock { $0 })
        #expect(try parser.next() == .close(code: .protocolError, reason: "a server frame was masked"))

        let wrong = RawServer { _ in RawServer.upgrade(accept: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") }
        await #expect(throws: WebSocketClientError.self) {
            _ = try await WebSocketClient.connect(to: try WebSocketURL("ws://127.0.0.1:\(wrong.port)/ws"))
        }
        let silent = RawServer { _ in [] }
        let started = ContinuousClock.now
        await #expect(throws: WebSocketClientError.self) {
            _ = try await WebSocketClient.connect(to: try WebSocketURL("ws://127.0.0.1:\(silent.port)/ws"), timeout: .milliseconds(500))
        }
        #expect(ContinuousClock.now - started < .seconds(3))
    }
}

/// A one-connection TCP server on 127.0.0.1 that answers the upgrade request with given bytes
/// and records what the client sends after it.
final class RawServer: Sendable {
    let port: UInt16
    let received = Mutex<[UInt8]>([])

    static func upgrade(accept: String) -> [UInt8] {
        Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n".utf8)
    }

    init(answer: @escaping @Sendable (String) -> [UInt8]) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        listen(fd, 1)
        var bound = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        port = UInt16(bigEndian: bound.sin_port)
        let thread = Thread { [self] in
            let c = accept(fd, nil, nil)
            close(fd)
            guard c >= 0 else { return }
            var request: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while request.firstRange(of: [13, 10, 13, 10]) == nil {
                let n = recv(c, &buffer, buffer.count, 0)
                if n <= 0 { close(c); return }
                request += buffer[0..<n]
            }
            let text = String(decoding: request, as: UTF8.self)
            let key = text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
                .map { String($0.dropFirst(18)).trimmingCharacters(in: .whitespaces) } ?? ""
            let reply = answer(key)
            _ = reply.withUnsafeBufferPointer { send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            var tv = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            while true {
                let n = recv(c, &buffer, buffer.count, 0)
                if n <= 0 { break }
                self.received.withLock { $0 += buffer[0..<n] }
            }
            close(c)
        }
        thread.start()
    }
}
