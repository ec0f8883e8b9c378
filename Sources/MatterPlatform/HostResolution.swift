import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One address getaddrinfo gave for a host, copied out of its list.
package struct ResolvedAddress: Sendable {
    package let family: Int32
    /// The `sockaddr` bytes (`sockaddr_in` or `sockaddr_in6`).
    package let socketAddress: [UInt8]

    package init(family: Int32, socketAddress: [UInt8]) {
        self.family = family
        self.socketAddress = socketAddress
    }

    /// "127.0.0.1" or "::1".
    package var numericHost: String {
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let rc = socketAddress.withUnsafeBytes { raw in
            getnameinfo(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count),
                        &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST)
        }
        guard rc == 0 else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Calls `body` with the address as a `sockaddr` pointer and its length (for `connect`).
    package func withSocketAddress<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        socketAddress.withUnsafeBytes { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
    }
}

/// A host name's TCP addresses, found within a bound. getaddrinfo blocks and cannot be
/// interrupted; with a name server that does not answer it takes glibc's retries (5 s a try,
/// two tries a server) whatever the caller's timeout. So the lookup runs on a thread of its own,
/// and the caller waits at most `timeout`, or until `isCancelled` says so. A lookup given up on
/// finishes by itself and its answer is dropped.
package enum HostResolution {
    /// Why no address came, worded to follow "cannot resolve <host>: ".
    package struct Failure: Error, Sendable, Equatable {
        package let reason: String
        package let cancelled: Bool

        package init(reason: String, cancelled: Bool = false) {
            self.reason = reason
            self.cancelled = cancelled
        }
    }

    package typealias Lookup = @Sendable (_ host: String, _ port: Int) -> Result<[ResolvedAddress], Failure>

    package static func resolve(_ host: String, port: Int, timeout: Double,
                                isCancelled: @escaping @Sendable () -> Bool = { false },
                                lookup: @escaping Lookup = systemLookup) -> Result<[ResolvedAddress], Failure> {
        // An address literal never waits for a name server: no thread for it.
        if isNumeric(host) { return lookup(host, port) }
        let answer = Mutex<Result<[ResolvedAddress], Failure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let started = DetachedThread.start(name: "resolve") {
            let result = lookup(host, port)
            answer.withLock { $0 = result }
            done.signal()
        }
        guard started else { return .failure(Failure(reason: "cannot start a thread to resolve it")) }
        let deadline = DispatchTime.now() + .milliseconds(Int((timeout * 1000).rounded(.up)))
        // Woken every 50 ms to see a cancellation (there is no descriptor to shut down yet).
        while done.wait(timeout: min(deadline, .now() + .milliseconds(50))) == .timedOut {
            if isCancelled() { return .failure(Failure(reason: "cancelled", cancelled: true)) }
            if DispatchTime.now() >= deadline {
                return .failure(Failure(reason: "no answer from the name server within \(String(seconds: timeout))"))
            }
        }
        return answer.withLock { $0 } ?? .failure(Failure(reason: "no answer"))
    }

    static func isNumeric(_ host: String) -> Bool {
        var v6 = in6_addr(), v4 = in_addr()
        return inet_pton(AF_INET6, host, &v6) == 1 || inet_pton(AF_INET, host, &v4) == 1
    }

    /// getaddrinfo for TCP: IPv6 and IPv4 in its order.
    package static let systemLookup: Lookup = { host, port in
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, list != nil else {
            let why = rc == EAI_SYSTEM ? errnoText(errno) : String(cString: gai_strerror(rc))
            return .failure(Failure(reason: why))
        }
        defer { freeaddrinfo(list) }
        var addresses: [ResolvedAddress] = []
        var next = list
        while let info = next {
            next = info.pointee.ai_next
            guard let address = info.pointee.ai_addr else { continue }
            let bytes = UnsafeRawBufferPointer(start: address, count: Int(info.pointee.ai_addrlen))
            addresses.append(ResolvedAddress(family: info.pointee.ai_family, socketAddress: [UInt8](bytes)))
        }
        return addresses.isEmpty ? .failure(Failure(reason: "no address")) : .success(addresses)
    }
}
