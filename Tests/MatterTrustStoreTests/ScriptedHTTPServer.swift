import CNet
import Foundation
import Synchronization
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A TCP server on 127.0.0.1 that answers each request path with a script of raw bytes and
/// pauses, so tests can send what a real server would not: chunked bodies in pieces, lies about
/// lengths, broken status lines, endless heads, silence. Each connection runs on its own thread;
/// every request head received is recorded.
final class ScriptedHTTPServer: Sendable {
    typealias Step = ScriptedHTTPEngine.Step
    private let engine: ScriptedHTTPEngine

    var port: UInt16 { engine.port }
    var base: String { "http://127.0.0.1:\(port)" }

    /// - Parameter greeting: bytes sent on every connection as soon as it is accepted, before
    ///   (and instead of) reading a request: a server that does not speak the client's protocol.
    init(greeting: String? = nil) throws { engine = try ScriptedHTTPEngine(greeting: greeting) }

    /// Stops serving when the test lets go of the server.
    deinit { engine.stop() }

    /// What `path` answers (with its query); unknown paths close without a word.
    func route(_ path: String, _ steps: [Step]) { engine.route(path, steps) }
    /// The request heads received, in order (request line and fields, CRLF-separated).
    var heads: [String] { engine.heads }
    /// When each request head arrived (on the server's threads).
    var arrivals: [ContinuousClock.Instant] { engine.arrivals }
    /// The request targets received, in order.
    var paths: [String] { heads.map { String($0.split(separator: " ")[1]) } }
    func stop() { engine.stop() }
}

/// The server's sockets and threads; they hold the engine, not the server, so the server's
/// deinit can stop them.
final class ScriptedHTTPEngine: Sendable {
    enum Step: Sendable {
        case send([UInt8])
        case text(String)
        /// Sleeps this many seconds (a stalled server).
        case pause(Double)
        /// Sends `count` bytes of `byte`, 16 KiB at a time, until the client stops reading.
        case flood(count: Int, byte: UInt8)
    }

    let port: UInt16
    private let listener: Int32
    private let greeting: [UInt8]?
    private let state = Mutex<(routes: [String: [Step]], heads: [String], arrivals: [ContinuousClock.Instant], stopped: Bool, clients: Set<Int32>)>(
        ([:], [], [], false, []))

    init(greeting: String?) throws {
        self.greeting = greeting.map { Array($0.utf8) }
        // Close-on-exec, so the Python servers other tests start do not inherit it.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        Thread.detachNewThread { [self] in serve() }
    }

    func route(_ path: String, _ steps: [Step]) {
        state.withLock { $0.routes[path] = steps }
    }

    var heads: [String] { state.withLock { $0.heads } }
    var arrivals: [ContinuousClock.Instant] { state.withLock { $0.arrivals } }

    func stop() {
        // Under the lock: a client leaves the set before it is closed, so no number shut down
        // here can have been reused by another test's socket.
        // Only the accept thread closes the listener, once it has seen `stopped`: closed here,
        // its number could be reused by another test's socket before that thread's next accept.
        // It closes it under the lock, so the shutdown here cannot reach a reused number either.
        state.withLock { s in
            guard !s.stopped else { return }
            s.stopped = true
            for c in s.clients { shutdown(c, Int32(SHUT_RDWR)) }
            shutdown(listener, Int32(SHUT_RDWR))
        }
    }

    private func serve() {
        while true {
            let client = cnet_accept_cloexec(listener, 0)
            let stop = state.withLock { s -> Bool in
                if s.stopped { close(listener) }
                return s.stopped
            }
            if stop {
                if client >= 0 { close(client) }
                return
            }
            if client < 0 { continue }
            state.withLock { _ = $0.clients.insert(client) }
            Thread.detachNewThread { [self] in
                handle(client)
                state.withLock { _ = $0.clients.remove(client) }
                close(client)
            }
        }
    }

    private func handle(_ fd: Int32) {
        if let greeting {
            _ = send(fd, greeting)
            usleep(200_000)
            return
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.ends(with: [13, 10, 13, 10]), request.count < 65_536 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return }
            request += buffer.prefix(n)
        }
        let head = String(decoding: request.dropLast(4), as: UTF8.self)
        let parts = head.split(separator: " ")
        guard parts.count >= 2 else { return }
        let steps = state.withLock { s -> [Step] in
            s.heads.append(head)
            s.arrivals.append(.now)
            return s.routes[String(parts[1])] ?? []
        }
        for step in steps {
            switch step {
            case .send(let bytes): guard send(fd, bytes) else { return }
            case .text(let text): guard send(fd, Array(text.utf8)) else { return }
            case .pause(let seconds): usleep(UInt32(seconds * 1_000_000))
            case .flood(let count, let byte):
                let chunk = [UInt8](repeating: byte, count: 16 << 10)
                var sent = 0
                while sent < count, send(fd, Array(chunk.prefix(count - sent))) { sent += chunk.count }
            }
        }
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        sendAll(fd, bytes)
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}
