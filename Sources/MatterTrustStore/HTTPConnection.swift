#if canImport(Glibc)
import Glibc
#endif
import MatterCrypto
import MatterPlatform
import Synchronization

/// Why a connection failed, worded to follow "cannot fetch <url>: ".
struct HTTPConnectionError: Error, Sendable {
    let reason: String
}

/// Lets another thread abort a connection blocked in connect, send or receive (task
/// cancellation): shutting the socket down wakes the blocked call.
final class HTTPCancellation: Sendable {
    private let state = Mutex<(cancelled: Bool, fd: Int32?)>((false, nil))

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func cancel() {
        state.withLock { s in
            s.cancelled = true
            if let fd = s.fd { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Watches `fd` until ``detach()``; false when cancellation came first.
    func attach(_ fd: Int32) -> Bool {
        state.withLock { s in
            guard !s.cancelled else { return false }
            s.fd = fd
            return true
        }
    }

    func detach() { state.withLock { $0.fd = nil } }
}

/// One TCP connection to an HTTP server, plain or TLS, with blocking I/O: resolving the host
/// (`HostResolution`) and connecting to each address it gives (IPv6 and IPv4, in getaddrinfo's
/// order) wait at most `timeout` each, and so does each send and receive (`SO_SNDTIMEO` /
/// `SO_RCVTIMEO`), so a silent name server or a stalled server fails in `timeout` seconds
/// without progress. Meant for a thread of its own (a Dispatch worker).
final class HTTPConnection {
    private let fd: Int32
    private var tls: TLSClientSession?
    private let timeout: Double
    private let cancellation: HTTPCancellation
    private var closed = false

    /// Resolves `host`, connects, and for `tls` runs the handshake (certificate checked for `host`).
    init(host: String, port: Int, tls context: TLSClientContext?, timeout: Double,
         cancellation: HTTPCancellation) throws(HTTPConnectionError) {
        self.timeout = timeout
        self.cancellation = cancellation
        let fd = try Self.connect(host: host, port: port, timeout: timeout, cancellation: cancellation)
        self.fd = fd
        if let context {
            do throws(CryptoError) {
                tls = try TLSClientSession(fileDescriptor: fd, serverName: host, context: context)
            } catch {
                close()
                throw failure(error)
            }
        }
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        tls?.shutdown()
        tls = nil
        cancellation.detach()
        _ = Glibc.close(fd)
    }

    /// Sends all of `bytes`.
    func send(_ bytes: [UInt8]) throws(HTTPConnectionError) {
        if let tls {
            do throws(CryptoError) { try tls.write(bytes) } catch { throw failure(error) }
            return
        }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBufferPointer { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n > 0 { offset += n; continue }
            let e = errno
            if n < 0, e == EINTR { continue }
            throw failure(errno: e, "sending the request")
        }
    }

    /// What arrived next: some bytes, or empty at the end of the stream.
    func receive() throws(HTTPConnectionError) -> [UInt8] {
        if let tls {
            let bytes: [UInt8]
            do throws(CryptoError) { bytes = try tls.read(maxCount: 32 << 10) } catch { throw failure(error) }
            if bytes.isEmpty, cancellation.isCancelled { throw HTTPConnectionError(reason: "cancelled") }
            return bytes
        }
        while true {
            var e: Int32 = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: 32 << 10) { buffer, count in
                let n = recv(fd, buffer.baseAddress, buffer.count, 0)
                if n < 0 { e = errno }
                count = max(n, 0)
            }
            if e == 0 {
                if bytes.isEmpty, cancellation.isCancelled { throw HTTPConnectionError(reason: "cancelled") }
                return bytes
            }
            if e == EINTR { continue }
            throw failure(errno: e, "reading the response")
        }
    }

    private func failure(_ error: CryptoError) -> HTTPConnectionError {
        if cancellation.isCancelled { return HTTPConnectionError(reason: "cancelled") }
        if error.code == .timedOut { return HTTPConnectionError(reason: "no data from the server for \(String(seconds: timeout))") }
        return HTTPConnectionError(reason: error.message)
    }

    private func failure(errno e: Int32, _ doing: String) -> HTTPConnectionError {
        if cancellation.isCancelled { return HTTPConnectionError(reason: "cancelled") }
        if e == EAGAIN || e == EWOULDBLOCK { return HTTPConnectionError(reason: "no data from the server for \(String(seconds: timeout))") }
        return HTTPConnectionError(reason: "\(doing) failed: \(Self.text(e))")
    }

    static func text(_ e: Int32) -> String { String(cString: strerror(e)) }

    // MARK: - Connecting

    private static func connect(host: String, port: Int, timeout: Double,
                                cancellation: HTTPCancellation) throws(HTTPConnectionError) -> Int32 {
        let addresses: [ResolvedAddress]
        switch HostResolution.resolve(host, port: port, timeout: timeout, isCancelled: { cancellation.isCancelled }) {
        case .success(let found): addresses = found
        case .failure(let failure):
            throw HTTPConnectionError(reason: failure.cancelled ? "cancelled" : "cannot resolve \(host): \(failure.reason)")
        }
        var failures: [String] = []
        for resolved in addresses {
            let address = resolved.numericHost
            switch attempt(resolved, timeout: timeout, cancellation: cancellation) {
            case .success(let fd): return fd
            case .failure(let why):
                if cancellation.isCancelled { throw HTTPConnectionError(reason: "cancelled") }
                failures.append("\(address): \(why.reason)")
            }
        }
        throw HTTPConnectionError(reason: "cannot connect to \(host) port \(port) (\(failures.joined(separator: "; ")))")
    }

    /// One address: a non-blocking connect that waits up to `timeout`, then a blocking socket
    /// with send and receive timeouts.
    private static func attempt(_ resolved: ResolvedAddress, timeout: Double, cancellation: HTTPCancellation) -> Result<Int32, Failure> {
        let fd = socket(resolved.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(Failure(text(errno))) }
        guard cancellation.attach(fd) else { _ = Glibc.close(fd); return .failure(Failure("cancelled")) }
        func fail(_ why: String) -> Result<Int32, Failure> {
            cancellation.detach()
            _ = Glibc.close(fd)
            return .failure(Failure(why))
        }
        if resolved.withSocketAddress({ Glibc.connect(fd, $0, $1) }) != 0 {
            guard errno == EINPROGRESS else { return fail(text(errno)) }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ms = Int32(clamping: Int((timeout * 1000).rounded(.up)))
            var ready: Int32
            repeat { ready = poll(&p, 1, max(ms, 1)) } while ready < 0 && errno == EINTR
            guard ready == 1 else { return fail(ready == 0 ? "no answer within \(String(seconds: timeout))" : text(errno)) }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) == 0 else { return fail(text(errno)) }
            guard soError == 0 else { return fail(text(soError)) }
        }
        let flags = fcntl(fd, F_GETFL)
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        if tv.tv_sec == 0, tv.tv_usec == 0 { tv.tv_usec = 1000 }
        guard flags >= 0, fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0,
              setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size)) == 0,
              setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            return fail(text(errno))
        }
        return .success(fd)
    }

    struct Failure: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
