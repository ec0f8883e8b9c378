import MatterMessaging
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real UDP socket, over loopback only.
@Suite struct UDPTransportTests {
    final class Shared<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ v: Value) { value = Mutex(v) }
        func with<R>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
    }

    static func loopback(_ t: UDPTransport) -> PeerAddress { PeerAddress("127.0.0.1", port: t.localPort)! }

    /// Whether a UDP socket of this machine is bound to `port` (from /proc/net/udp6 and udp).
    static func isBound(_ port: UInt16) -> Bool {
        let hex = String(port, radix: 16, uppercase: true)
        let suffix = ":" + String(repeating: "0", count: 4 - hex.count) + hex
        for table in ["/proc/net/udp6", "/proc/net/udp"] {
            guard let f = fopen(table, "r") else { continue }
            defer { fclose(f) }
            var line = [CChar](repeating: 0, count: 512)
            while fgets(&line, Int32(line.count), f) != nil {
                let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let fields = text.split(separator: " ")
                if fields.count > 1, fields[1].hasSuffix(suffix) { return true }
            }
        }
        return false
    }

    static func waitFor(_ what: String, _ condition: () -> Bool) async throws {
        for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition(), "\(what) within 5 s")
    }

    /// Datagrams go to `incoming` until a handler is set, then to the handler only.
    /// A 4-byte address is taken as IPv4 (stored IPv4-mapped, as the parser does); an address of
    /// another size is printed as what it is, never read past its end.
    @Test func peerAddressesOfEverySize() {
        #expect(PeerAddress(ip: [127, 0, 0, 1], port: 5540) == PeerAddress("127.0.0.1", port: 5540))
        #expect(PeerAddress(ip: [127, 0, 0, 1], port: 5540).description == "127.0.0.1:5540")
        let odd = PeerAddress(ip: [1, 2, 3], port: 1)
        #expect(!odd.isIPv4 && !odd.isLinkLocal && odd.description == "[<3-byte address>]:1")
    }

    @Test func deliversToTheStreamThenDirectly() async throws {
        let a = try UDPTransport(), b = try UDPTransport()
        defer { a.close(); b.close() }
        try await a.send([1, 2, 3], to: Self.loopback(b))
        var iterator = b.incoming.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.bytes == [1, 2, 3])
        #expect(first?.from.port == a.localPort)

        let direct = Shared<[[UInt8]]>([])
        #expect(b.deliverDirectly { d in direct.with { $0.append(d.bytes) } })
        for i in 0..<20 { try await a.send([UInt8(i)], to: Self.loopback(b)) }
        try await Self.waitFor("20 datagrams handed over directly") { direct.with { $0.count } == 20 }
        #expect(Set(direct.with { $0 }) == Set((0..<20).map { [UInt8($0)] }))
    }

    /// Senders on several tasks while the transport closes: every send succeeds or throws a
    /// transport error, a send after close throws, and the socket is closed once the last
    /// send is out (no descriptor is left open, none is closed under a send).
    @Test func closeWhileSendingClosesTheSocketOnce() async throws {
        let sink = try UDPTransport()
        defer { sink.close() }
        let target = Self.loopback(sink)
        let transport = try UDPTransport()
        #expect(Self.isBound(transport.localPort))
        let outcomes = Shared((sent: 0, refused: 0, other: [String]()))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for i in 0..<500 {
                        if i % 10 == 0 { await Task.yield() }  // the closing task gets its turn
                        do {
                            try await transport.send([0xAB], to: target)
                            outcomes.with { $0.sent += 1 }
                        } catch let error as MessagingError {
                            if case .transport = error { outcomes.with { $0.refused += 1 } } else {
                                outcomes.with { $0.other.append("\(error)") }
                            }
                        } catch {
                            outcomes.with { $0.other.append("\(error)") }
                        }
                    }
                }
            }
            group.addTask {
                while outcomes.with({ $0.sent }) < 200 { await Task.yield() }
                transport.close()
            }
        }
        let o = outcomes.with { $0 }
        #expect(o.other.isEmpty)
        #expect(o.sent + o.refused == 2000)
        #expect(o.sent >= 200 && o.refused > 0, "the close came while sends went on (\(o.sent) sent, \(o.refused) refused)")
        await #expect(throws: MessagingError.self) { try await transport.send([1], to: target) }
        #expect(!Self.isBound(transport.localPort), "the socket is still open after close and the last send")
    }
}
