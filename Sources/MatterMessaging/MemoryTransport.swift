import Synchronization

/// An in-process network of datagram endpoints, for tests and in-process device <-> controller
/// runs. Each endpoint gets a distinct loopback-like address (::1 with its own port).
public final class MemoryNetwork: Sendable {
    private let endpoints = Mutex<[UInt16: AsyncStream<Datagram>.Continuation]>([:])
    private let nextPort = Atomic<UInt16>(40000)

    public init() {}

    public func makeEndpoint() -> MemoryTransport {
        let port = nextPort.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(of: Datagram.self, bufferingPolicy: .bufferingNewest(1024))
        endpoints.withLock { $0[port] = continuation }
        return MemoryTransport(network: self, port: port, incoming: stream)
    }

    func deliver(_ bytes: [UInt8], from: UInt16, to peer: PeerAddress) {
        let target = endpoints.withLock { $0[peer.port] }
        target?.yield(Datagram(bytes: bytes, from: MemoryNetwork.address(port: from)))
    }

    func remove(_ port: UInt16) {
        endpoints.withLock { $0.removeValue(forKey: port) }?.finish()
    }

    public static func address(port: UInt16) -> PeerAddress {
        PeerAddress(ip: [UInt8](repeating: 0, count: 15) + [1], port: port)
    }
}

public final class MemoryTransport: MessageTransport {
    private let network: MemoryNetwork
    public let localPort: UInt16
    public let incoming: AsyncStream<Datagram>

    init(network: MemoryNetwork, port: UInt16, incoming: AsyncStream<Datagram>) {
        self.network = network
        self.localPort = port
        self.incoming = incoming
    }

    public var address: PeerAddress { MemoryNetwork.address(port: localPort) }

    public func send(_ bytes: [UInt8], to peer: PeerAddress) async throws(MessagingError) {
        guard bytes.count <= maximumMessageSize else { throw MessagingError.tooLarge(bytes.count) }
        network.deliver(bytes, from: localPort, to: peer)
    }

    public func close() { network.remove(localPort) }
}

/// Wraps a transport and damages what it sends, with a seeded generator so a failing run can
/// be repeated: loss, duplication, reordering (holding a datagram back), delay, corruption.
public final class FaultInjectingTransport: MessageTransport {
    public struct Faults: Sendable {
        public var loss: Double = 0
        public var duplication: Double = 0
        public var reordering: Double = 0
        public var corruption: Double = 0
        /// Extra delay, uniformly 0...maxDelay milliseconds.
        public var maxDelay: Milliseconds = 0
        public init(loss: Double = 0, duplication: Double = 0, reordering: Double = 0, corruption: Double = 0,
                    maxDelay: Milliseconds = 0) {
            self.loss = loss
            self.duplication = duplication
            self.reordering = reordering
            self.corruption = corruption
            self.maxDelay = maxDelay
        }
    }

    public struct Statistics: Sendable {
        public var sent = 0, dropped = 0, duplicated = 0, reordered = 0, corrupted = 0
    }

    private let inner: any MessageTransport
    private let faults: Faults
    private let state: Mutex<(rng: SplitMix64, held: (bytes: [UInt8], peer: PeerAddress)?, stats: Statistics)>

    public init(wrapping inner: any MessageTransport, faults: Faults, seed: UInt64) {
        self.inner = inner
        self.faults = faults
        self.state = Mutex((SplitMix64(seed: seed), nil, Statistics()))
    }

    public var incoming: AsyncStream<Datagram> { inner.incoming }
    public var localPort: UInt16 { inner.localPort }
    public var statistics: Statistics { state.withLock { $0.stats } }
    public func close() { inner.close() }

    public func send(_ bytes: [UInt8], to peer: PeerAddress) async throws(MessagingError) {
        // Decide every fault under the lock, then send outside it.
        var out: [(bytes: [UInt8], peer: PeerAddress)] = []
        var delay: Milliseconds = 0
        state.withLock { s in
            s.stats.sent += 1
            if s.rng.chance(faults.loss) {
                s.stats.dropped += 1
                return
            }
            var b = bytes
            if s.rng.chance(faults.corruption), !b.isEmpty {
                b[Int(s.rng.next() % UInt64(b.count))] ^= UInt8(truncatingIfNeeded: s.rng.next() | 1)
                s.stats.corrupted += 1
            }
            if s.held == nil, s.rng.chance(faults.reordering) {
                s.held = (b, peer)  // goes out after the next datagram
                s.stats.reordered += 1
                return
            }
            out.append((b, peer))
            if s.rng.chance(faults.duplication) {
                out.append((b, peer))
                s.stats.duplicated += 1
            }
            if let h = s.held {
                out.append(h)
                s.held = nil
            }
            if faults.maxDelay > 0 { delay = s.rng.next() % (faults.maxDelay + 1) }
        }
        if delay > 0 { try? await Task.sleep(for: .milliseconds(delay)) }
        for o in out { try await inner.send(o.bytes, to: o.peer) }
    }
}

/// A small seeded generator (SplitMix64) for reproducible fault injection and jitter in tests.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func chance(_ p: Double) -> Bool {
        p > 0 && Double(next() >> 11) / Double(1 << 53) < p
    }
}
