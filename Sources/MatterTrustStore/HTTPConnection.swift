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
        return HTTPConnectionError(reason: "\(doing) failed: \(errnoText(e))")
    }

    // MARK: - Connecting

    /// A connected socket (``SocketConnect``), made blocking with send and receive timeouts.
    private static func connect(host: String, port: Int, timeout: Double,
                                cancellation: HTTPCancellation) throws(HTTPConnectionError) -> Int32 {
        let fd: Int32
        switch SocketConnect.tcp(host: host, port: port, timeout: timeout, isCancelled: { cancellation.isCancelled },
                                 watch: { cancellation.attach($0) }, unwatch: { cancellation.detach() }) {
        case .success(let connected): fd = connected
        case .failure(let failure):
            if failure.cancelled || cancellation.isCancelled { throw HTTPConnectionError(reason: "cancelled") }
            throw HTTPConnectionError(reason: failure.reason.hasPrefix("cannot resolve") ? failure.reason
                                      : "cannot connect to \(host) port \(port) (\(failure.reason))")
        }
        let flags = fcntl(fd, F_GETFL)
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        if tv.tv_sec == 0, tv.tv_usec == 0 { tv.tv_usec = 1000 }
        guard flags >= 0, fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0,
              setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size)) == 0,
              setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            let e = errno
            cancellation.detach()
            _ = Glibc.close(fd)
            throw HTTPConnectionError(reason: errnoText(e))
        }
        return fd
    }
}
