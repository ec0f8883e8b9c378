import Foundation
import MatterWebSocket
#if canImport(Glibc)
import Glibc
#endif

/// A minimal WebSocket client for tests: TCP or Unix socket, masked frames, reads with a timeout.
/// Reads poll a non-blocking socket and sleep between tries, so a waiting test never holds a
/// thread of the concurrency pool that the server under test needs. It can also send raw bytes, to feed a server malformed input.
public final class WebSocketTestClient: @unchecked Sendable {
    public let fd: Int32
    private var parser = WebSocketFrameParser(maxMessageSize: 64 << 20, requireMasked: false)
    /// The HTTP response head to the upgrade request.
    public private(set) var responseHead = ""
    private var pending: [UInt8] = []

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ d: String) { description = d }
    }

    /// Connects to 127.0.0.1:port (or a Unix socket path) without upgrading.
    public init(port: UInt16? = nil, unixPath: String? = nil, timeout: Double = 10) throws {
        self.timeout = timeout
        let fd: Int32
        if let unixPath {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &addr.sun_path) { raw in
                for (i, b) in unixPath.utf8.enumerated() { raw[i] = b }
            }
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard rc == 0 else { close(fd); throw Failure("connect \(unixPath): errno \(errno)") }
            self.fd = fd
        } else {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = (port ?? 0).bigEndian
            addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard rc == 0 else { close(fd); throw Failure("connect 127.0.0.1:\(port ?? 0): errno \(errno)") }
            self.fd = fd
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    private let timeout: Double

    deinit { close(fd) }

    /// Sends the upgrade request for `target` and reads the response head; returns the status.
    @discardableResult
    public func upgrade(target: String = "/ws", extraHeaders: String = "") async throws -> Int {
        let request = "GET \(target) HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\(extraHeaders)\r\n"
        try await sendRaw(Array(request.utf8))
        return try await readResponseHead()
    }

    /// Reads until the end of an HTTP response head; returns its status code.
    public func readResponseHead() async throws -> Int {
        var buffer: [UInt8] = []
        while true {
            if let r = buffer.firstRange(of: [13, 10, 13, 10]) {
                responseHead = String(decoding: buffer[..<r.lowerBound], as: UTF8.self)
                pending = Array(buffer[r.upperBound...])
                parser.append(pending)
                let parts = responseHead.split(separator: " ")
                return parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            }
            let chunk = try await receive()
            if chunk.isEmpty { throw Failure("connection closed before the response head") }
            buffer += chunk
        }
    }

    /// The rest of the response after the head (a non-upgrade body), until the server closes.
    public func readToEnd() async throws -> [UInt8] {
        var out = pending
        pending = []
        while true {
            let chunk = try await receive()
            if chunk.isEmpty { return out }
            out += chunk
        }
    }

    public func sendRaw(_ bytes: [UInt8]) async throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBufferPointer { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                try await Task.sleep(for: .milliseconds(2))
                continue
            }
            if n <= 0 { throw Failure("send failed: errno \(errno)") }
            offset += n
        }
    }

    public func send(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true) async throws {
        try await sendRaw(WebSocketFrame.encode(opcode, payload, fin: fin, maskingKey: [0x12, 0x34, 0x56, 0x78]))
    }

    public func sendText(_ text: String) async throws { try await send(.text, Array(text.utf8)) }

    private func receive() async throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n >= 0 { return Array(buffer[0..<n]) }
            if errno == ECONNRESET { return [] }
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { throw Failure("recv failed: errno \(errno)") }
            if ContinuousClock.now > deadline { throw Failure("timed out waiting for the server") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// The next frame event from the server; nil when the connection ended.
    public func next() async throws -> WebSocketFrameParser.Event? {
        while true {
            if let e = try parser.next() { return e }
            let chunk = try await receive()
            if chunk.isEmpty { return nil }
            parser.append(chunk)
        }
    }

    /// The next text message (answering pings, skipping pongs); throws on close or timeout.
    public func nextText() async throws -> String {
        while true {
            switch try await next() {
            case .text(let t)?: return String(decoding: t, as: UTF8.self)
            case .ping(let p)?: try await send(.pong, p)
            case .pong?: continue
            case .binary?: throw Failure("unexpected binary frame")
            case .close(let code, let reason)?: throw Failure("closed by the server: \(code?.description ?? "-") \(reason)")
            case nil: throw Failure("connection ended")
            }
        }
    }

    /// Reads until the server's close frame; returns its code and reason (nil when the socket just ended).
    public func waitForClose() async throws -> (code: WebSocketCloseCode?, reason: String)? {
        while true {
            switch try await next() {
            case .close(let code, let reason)?: return (code, reason)
            case nil: return nil
            default: continue
            }
        }
    }
}
