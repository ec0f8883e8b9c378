import MatterPlatform
#if canImport(Glibc)
import Glibc
#endif

/// Thin POSIX socket helpers for the server (non-blocking, close-on-exec).
enum Sockets {
    /// A listening TCP socket on a numeric address; returns the fd and the bound port.
    static func listenTCP(host: String, port: UInt16) throws(WebSocketServerError) -> (fd: Int32, port: UInt16) {
        let address = ListenAddress.tcp(host: host, port: port).description
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let info = result else {
            throw WebSocketServerError(address: address, operation: "resolve", errno: 0,
                                       detail: "not a numeric IP address (\(String(cString: gai_strerror(rc))))")
        }
        defer { freeaddrinfo(result) }
        let family = info.pointee.ai_family
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure(address, "open a socket for", errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if family == AF_INET6 {
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let e = errno
            close(fd)
            throw failure(address, "bind", e)
        }
        guard listen(fd, 128) == 0 else {
            let e = errno
            close(fd)
            throw failure(address, "listen on", e)
        }
        return (fd, localPort(fd))
    }

    /// A listening Unix socket, owner-only. A stale socket file (nobody listening) is replaced;
    /// a live one is an error (another server owns it).
    static func listenUnix(path: String) throws(WebSocketServerError) -> Int32 {
        let address = "unix:\(path)"
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard !pathBytes.isEmpty, pathBytes.count < capacity else {
            throw WebSocketServerError(address: address, operation: "bind", errno: 0,
                                       detail: "the path must be 1...\(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in pathBytes.enumerated() { raw[i] = b }
            raw[pathBytes.count] = 0
        }
        var st = stat()
        if lstat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                throw WebSocketServerError(address: address, operation: "bind", errno: 0,
                                           detail: "a file that is not a socket is in the way; remove it")
            }
            if isListening(&addr) {
                throw WebSocketServerError(address: address, operation: "bind", errno: EADDRINUSE,
                                           detail: "another server is listening there")
            }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure(address, "open a socket for", errno) }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            let e = errno
            close(fd)
            throw failure(address, "bind", e)
        }
        guard chmod(path, 0o600) == 0, listen(fd, 128) == 0 else {
            let e = errno
            close(fd)
            unlink(path)
            throw failure(address, "secure and listen on", e)
        }
        return fd
    }

    private static func isListening(_ addr: inout sockaddr_un) -> Bool {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return rc == 0
    }

    static func failure(_ address: String, _ operation: String, _ e: Int32) -> WebSocketServerError {
        WebSocketServerError(address: address, operation: operation, errno: e, detail: errnoText(e))
    }

    static func localPort(_ fd: Int32) -> UInt16 {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return port(of: &storage)
    }

    static func port(of storage: inout sockaddr_storage) -> UInt16 {
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) } }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) } }
        default: return 0
        }
    }

    /// `address:port` of an accepted TCP peer, `unix` for a Unix socket peer.
    static func peerName(_ fd: Int32) -> String {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &len) }
        }
        guard rc == 0 else { return "?" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in
                    var a = p.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &a, &text, socklen_t(text.count))
                }
            }
            return "\(cText(text)):\(port(of: &storage))"
        case AF_INET6:
            withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                    var a = p.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &a, &text, socklen_t(text.count))
                }
            }
            return "[\(cText(text))]:\(port(of: &storage))"
        default:
            return "unix"
        }
    }

    /// The uid of a Unix socket peer (SO_PEERCRED), nil when unknown.
    static func peerUID(_ fd: Int32) -> uid_t? {
        // struct ucred (Linux): pid, uid, gid; Glibc hides it behind _GNU_SOURCE.
        var cred = (pid: Int32(0), uid: uid_t(0), gid: gid_t(0))
        var len = socklen_t(MemoryLayout<(Int32, uid_t, gid_t)>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 else { return nil }
        return cred.uid
    }

    static func cText(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
