#if canImport(Glibc)
import Glibc
#endif
import MatterPlatform

/// The client's side of the sockets: connect within a deadline, write all, read some.
extension Sockets {
    /// A connected, non-blocking, close-on-exec socket to `endpoint`, within `timeoutMs`.
    static func connectClient(_ endpoint: WebSocketURL.Endpoint, timeoutMs: Int32) throws(WebSocketClientError) -> Int32 {
        switch endpoint {
        case .unix(let path):
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
                throw .connect(address: "unix:\(path)", reason: "the socket path is too long")
            }
            withUnsafeMutableBytes(of: &addr.sun_path) { raw in
                for (i, b) in bytes.enumerated() { raw[i] = b }
                raw[bytes.count] = 0
            }
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw .connect(address: "unix:\(path)", reason: errorText(errno)) }
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            return try finishConnect(fd, rc, timeoutMs, "unix:\(path)")
        case .tcp(let host, let port):
            let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            let addresses: [ResolvedAddress]
            switch HostResolution.resolve(host, port: Int(port), timeout: Double(timeoutMs) / 1000) {
            case .success(let found): addresses = found
            case .failure(let failure): throw .connect(address: address, reason: "cannot resolve the host (\(failure.reason))")
            }
            var lastError: WebSocketClientError = .connect(address: address, reason: "no address")
            for resolved in addresses {
                let fd = socket(resolved.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                guard fd >= 0 else { continue }
                let rc = resolved.withSocketAddress { Glibc.connect(fd, $0, $1) }
                do throws(WebSocketClientError) { return try finishConnect(fd, rc, timeoutMs, address) } catch { lastError = error }
            }
            throw lastError
        }
    }

    private static func finishConnect(_ fd: Int32, _ rc: Int32, _ timeoutMs: Int32, _ address: String) throws(WebSocketClientError) -> Int32 {
        if rc == 0 { return fd }
        guard errno == EINPROGRESS || errno == EAGAIN else {
            let e = errno
            close(fd)
            throw .connect(address: address, reason: errorText(e))
        }
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&p, 1, timeoutMs) == 1 else {
            close(fd)
            throw .connect(address: address, reason: "no answer within \(timeoutMs) ms")
        }
        var soError: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len)
        guard soError == 0 else {
            close(fd)
            throw .connect(address: address, reason: errorText(soError))
        }
        return fd
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
