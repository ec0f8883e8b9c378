#if canImport(Glibc)
import Glibc
#endif

/// Connecting a stream socket within a deadline, for every client the hub has (the trust
/// store's HTTPS, the WebSocket client): a non-blocking connect, then a wait for it with poll.
package enum SocketConnect {
    /// Why no connection was made, worded to follow "cannot connect to <address>: ".
    package struct Failure: Error, Sendable {
        package let reason: String
        package let cancelled: Bool

        init(_ reason: String, cancelled: Bool = false) {
            self.reason = reason
            self.cancelled = cancelled
        }
    }

    /// A connected, non-blocking, close-on-exec TCP socket to `host` (a name or an address):
    /// each address the resolver gives, in its order (IPv6 and IPv4), within `timeout` seconds
    /// each. `watch` sees each socket before its connect (false: cancelled, stop) and `unwatch`
    /// is called when that socket fails, so another thread can abort a connect in progress by
    /// shutting the socket down.
    package static func tcp(host: String, port: Int, timeout: Double, isCancelled: @escaping @Sendable () -> Bool = { false },
                            watch: (Int32) -> Bool = { _ in true }, unwatch: () -> Void = {}) -> Result<Int32, Failure> {
        let addresses: [ResolvedAddress]
        switch HostResolution.resolve(host, port: port, timeout: timeout, isCancelled: isCancelled) {
        case .success(let found): addresses = found
        case .failure(let failure): return .failure(Failure("cannot resolve \(host): \(failure.reason)", cancelled: failure.cancelled))
        }
        var failures: [String] = []
        for resolved in addresses {
            let fd = socket(resolved.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { failures.append("\(resolved.numericHost): \(errnoText(errno))"); continue }
            guard watch(fd) else {
                close(fd)
                return .failure(Failure("cancelled", cancelled: true))
            }
            let rc = resolved.withSocketAddress { Glibc.connect(fd, $0, $1) }
            if let why = finish(fd, rc, timeout: timeout) {
                unwatch()  // before the close: a cancel must not shut down a reused descriptor
                close(fd)
                if isCancelled() { return .failure(Failure("cancelled", cancelled: true)) }
                failures.append("\(resolved.numericHost): \(why)")
                continue
            }
            return .success(fd)
        }
        return .failure(Failure(failures.isEmpty ? "no address" : failures.joined(separator: "; ")))
    }

    /// A connected, non-blocking, close-on-exec Unix stream socket to `path`.
    package static func unix(path: String, timeout: Double) -> Result<Int32, Failure> {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            return .failure(Failure("the socket path is too long"))
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(Failure(errnoText(errno))) }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if let why = finish(fd, rc, timeout: timeout) {
            close(fd)
            return .failure(Failure(why))
        }
        return .success(fd)
    }

    /// Waits for a connect started on non-blocking `fd` (`rc` is what connect returned); nil
    /// when connected, else why not (the caller closes `fd`).
    static func finish(_ fd: Int32, _ rc: Int32, timeout: Double) -> String? {
        if rc == 0 { return nil }
        guard errno == EINPROGRESS || errno == EAGAIN else { return errnoText(errno) }
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let ms = max(Int32(clamping: Int((timeout * 1000).rounded(.up))), 1)
        var ready: Int32
        repeat { ready = poll(&p, 1, ms) } while ready < 0 && errno == EINTR
        guard ready == 1 else { return ready == 0 ? "no answer within \(String(seconds: timeout))" : errnoText(errno) }
        var soError: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) == 0 else { return errnoText(errno) }
        return soError == 0 ? nil : errnoText(soError)
    }
}
