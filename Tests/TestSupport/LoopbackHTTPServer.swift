import CNet
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for tests that need a web service:
/// the DCL stand-in answers the DCL's REST paths with canned JSON and CRLs. One connection at a
/// time, one request per connection (`Connection: close`). Each path has a behaviour, so a test
/// can also serve truncated, oversized or garbage answers. Requests are recorded.
public final class LoopbackHTTPServer: @unchecked Sendable {
    public enum Response: Sendable {
        /// 200 with this body.
        case ok([UInt8], contentType: String = "application/json")
        /// This status with a short body.
        case status(Int)
        /// Declares `declaredLength` bytes but sends only `body`, then closes.
        case truncated([UInt8], declaredLength: Int)
        /// Sends `count` bytes of `byte` with no Content-Length (read until close).
        case endless(count: Int, byte: UInt8)
    }

    public let port: UInt16
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    private let listener: Int32
    private let lock = NSLock()
    private var routes: [String: Response] = [:]
    private var requested: [String] = []
    private var stopped = false
    private var listenerClosed = false
    private let thread: Thread

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
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
        let box = Box()
        thread = Thread { box.server?.serve() }
        box.server = self
        thread.start()
    }

    private final class Box: @unchecked Sendable { weak var server: LoopbackHTTPServer? }

    /// Sets what `path` (with its query, if any) answers. Unknown paths answer 404.
    public func route(_ path: String, _ response: Response) {
        lock.withLock { routes[path] = response }
    }

    /// Every request path received so far, in order.
    public var requests: [String] { lock.withLock { requested } }

    /// Stops accepting. Only the accept thread closes the listener, once it has seen `stopped`:
    /// closed here, its number could be reused by another test's socket before that thread's next
    /// accept, which would then take that socket's connections.
    public func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            if !listenerClosed { shutdown(listener, Int32(SHUT_RDWR)) }
        }
    }

    deinit { stop() }

    private func serve() {
        while true {
            let client = cnet_accept_cloexec(listener, 0)
            let stop = lock.withLock { () -> Bool in
                guard stopped else { return false }
                close(listener)
                listenerClosed = true
                return true
            }
            if stop {
                if client >= 0 { close(client) }
                return
            }
            if client < 0 { continue }
            handle(client)
            close(client)
        }
    }

    private func handle(_ fd: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.contains(subsequence: [13, 10, 13, 10]), request.count < 65_536 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return }
            request += buffer.prefix(n)
        }
        let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self).split(separator: " ")
        guard line.count >= 2 else { return }
        let path = String(line[1])
        let response = lock.withLock { () -> Response in
            requested.append(path)
            return routes[path] ?? .status(404)
        }
        switch response {
        case .ok(let body, let type):
            send(fd, header(200, length: body.count, type: type) + body)
        case .status(let code):
            let body = Array("{\"code\": 5, \"message\": \"status \(code)\"}".utf8)
            send(fd, header(code, length: body.count, type: "application/json") + body)
        case .truncated(let body, let declared):
            send(fd, header(200, length: declared, type: "application/json") + body)
        case .endless(let count, let byte):
            send(fd, Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n".utf8))
            let chunk = [UInt8](repeating: byte, count: 65_536)
            var sent = 0
            while sent < count, send(fd, Array(chunk.prefix(count - sent))) { sent += chunk.count }
        }
    }

    private func header(_ status: Int, length: Int, type: String) -> [UInt8] {
        Array("HTTP/1.1 \(status) \(status == 200 ? "OK" : "Error")\r\nContent-Type: \(type)\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n".utf8)
    }

    @discardableResult
    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        sendAll(fd, bytes)
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(subsequence: [UInt8]) -> Bool {
        guard count >= subsequence.count else { return false }
        for i in 0...(count - subsequence.count) where self[i..<(i + subsequence.count)].elementsEqual(subsequence) { return true }
        return false
    }
}
