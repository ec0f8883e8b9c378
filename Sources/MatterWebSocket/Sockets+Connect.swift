#if canImport(Glibc)
import Glibc
#endif
import MatterPlatform

/// The client's side of the sockets: connect within a deadline, write all, read some.
extension Sockets {
    /// A connected, non-blocking, close-on-exec socket to `endpoint`, within `timeoutMs`.
    static func connectClient(_ endpoint: WebSocketURL.Endpoint, timeoutMs: Int32) throws(WebSocketClientError) -> Int32 {
        let timeout = Double(timeoutMs) / 1000
        let (address, result) = switch endpoint {
        case .unix(let path): ("unix:\(path)", SocketConnect.unix(path: path, timeout: timeout))
        case .tcp(let host, let port):
            (host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)", SocketConnect.tcp(host: host, port: Int(port), timeout: timeout))
        }
        switch result {
        case .success(let fd): return fd
        case .failure(let failure): throw .connect(address: address, reason: failure.reason)
        }
    }

    /// Writes all of `bytes`, waiting for room up to `timeoutMs` at a time. False when the
    /// peer is gone or stopped reading.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], timeoutMs: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBufferPointer { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n > 0 { offset += n; continue }
            guard n < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { return false }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            if poll(&p, 1, timeoutMs) != 1 { return false }
        }
        return true
    }

    /// Waits up to `timeoutMs` for bytes: some bytes, `[]` at the end of the stream, nil on timeout.
    static func readSome(_ fd: Int32, timeoutMs: Int32) -> [UInt8]? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&p, 1, timeoutMs)
        if ready == 0 { return nil }
        if ready < 0 { return errno == EINTR ? nil : [] }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &buffer, buffer.count, 0)
        if n > 0 { return Array(buffer[0..<n]) }
        if n < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return nil }
        return []
    }
}
