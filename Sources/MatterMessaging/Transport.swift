/// An IP address and UDP port of a peer, with the interface a link-local address belongs to.
public struct PeerAddress: Hashable, Sendable, CustomStringConvertible {
    /// 16 bytes; IPv4 addresses are IPv4-mapped (::ffff:a.b.c.d).
    public var ip: [UInt8]
    public var port: UInt16
    /// Interface index: required for fe80:: addresses, 0 otherwise.
    public var interfaceIndex: UInt32

    /// `ip`: 16 bytes, or 4 for an IPv4 address (stored IPv4-mapped).
    public init(ip: [UInt8], port: UInt16, interfaceIndex: UInt32 = 0) {
        self.ip = ip.count == 4 ? [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + ip : ip
        self.port = port
        self.interfaceIndex = interfaceIndex
    }

    /// Parses "::1", "fe80::1%3" (numeric scope), "192.168.1.2" with a port.
    public init?(_ text: String, port: UInt16, interfaceIndex: UInt32 = 0) {
        var address = Substring(text)
        var scope = interfaceIndex
        if let pct = address.firstIndex(of: "%") {
            guard let s = UInt32(address[address.index(after: pct)...]) else { return nil }
            scope = s
            address = address[..<pct]
        }
        if let v4 = Self.parseIPv4(address) {
            self.init(ip: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + v4, port: port, interfaceIndex: 0)
        } else if let v6 = Self.parseIPv6(address) {
            self.init(ip: v6, port: port, interfaceIndex: scope)
        } else {
            return nil
        }
    }

    public var isLinkLocal: Bool { ip.count == 16 && ip[0] == 0xFE && ip[1] & 0xC0 == 0x80 }
    public var isIPv4: Bool { ip.count == 16 && ip[0..<10].allSatisfy { $0 == 0 } && ip[10] == 0xFF && ip[11] == 0xFF }
    public var isIPv6: Bool { !isIPv4 }

    public var ipText: String {
        guard ip.count == 16 else { return "<\(ip.count)-byte address>" }
        if isIPv4 { return ip[12...].map(String.init).joined(separator: ".") }
        var groups = stride(from: 0, to: 16, by: 2).map { UInt16(ip[$0]) << 8 | UInt16(ip[$0 + 1]) }
        // Compress the longest run of zero groups (RFC 5952).
        var best = (start: -1, length: 0), i = 0
        while i < 8 {
            if groups[i] == 0 {
                var j = i
                while j < 8 && groups[j] == 0 { j += 1 }
                if j - i > best.length && j - i > 1 { best = (i, j - i) }
                i = j
            } else { i += 1 }
        }
        let hex = groups.map { String($0, radix: 16) }
        if best.start < 0 { return hex.joined(separator: ":") }
        groups = []
        let head = hex[..<best.start].joined(separator: ":")
        let tail = hex[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }

    public var description: String {
        let scope = isLinkLocal && interfaceIndex != 0 ? "%\(interfaceIndex)" : ""
        return isIPv4 ? "\(ipText):\(port)" : "[\(ipText)\(scope)]:\(port)"
    }

    static func parseIPv4(_ s: Substring) -> [UInt8]? {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let bytes = parts.compactMap { UInt8($0) }
        return bytes.count == 4 ? bytes : nil
    }

    static func parseIPv6(_ s: Substring) -> [UInt8]? {
        let halves = s.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            let g = part.split(separator: ":", omittingEmptySubsequences: false).map { UInt16($0, radix: 16) }
            return g.contains(nil) || g.contains { _ in false } ? nil : g.map { $0! }
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count < 8 else { return nil }
            all += [UInt16](repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
}

extension String {
    func components(separatedBy separator: String) -> [String] {
        var out: [String] = []
        var rest = Substring(self)
        while let r = rest.firstRange(of: separator) {
            out.append(String(rest[..<r.lowerBound]))
            rest = rest[r.upperBound...]
        }
        out.append(String(rest))
        return out
    }
}

/// One received datagram.
public struct Datagram: Sendable {
    public var bytes: [UInt8]
    public var from: PeerAddress
    public init(bytes: [UInt8], from: PeerAddress) {
        self.bytes = bytes
        self.from = from
    }
}

/// A datagram transport: real UDP, an in-memory network for tests, or a fault-injecting wrapper.
public protocol MessageTransport: Sendable {
    /// Sends one datagram; may throw on a local error (no route, closed socket).
    func send(_ bytes: [UInt8], to peer: PeerAddress) async throws(MessagingError)
    /// The datagrams that arrive, for one consumer.
    var incoming: AsyncStream<Datagram> { get }
    /// The local UDP port, where there is one.
    var localPort: UInt16 { get }
    func close()
    /// From now on hands each arriving datagram to `handler` on the transport's reading thread,
    /// instead of to `incoming`; false when the transport cannot (then `incoming` stays).
    /// `handler` must be short and must not close this transport or send on it (it may run under
    /// the reader's locks): resume a continuation, start a task.
    func deliverDirectly(to handler: @escaping @Sendable (Datagram) -> Void) -> Bool
}

extension MessageTransport {
    public func deliverDirectly(to handler: @escaping @Sendable (Datagram) -> Void) -> Bool { false }
}

/// The largest Matter message over IPv6 UDP: 1280-byte minimum MTU less IPv6 and UDP headers.
public let maximumMessageSize = 1232
