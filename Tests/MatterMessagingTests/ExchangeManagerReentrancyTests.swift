import MatterCrypto
import MatterMessaging
import Synchronization
import Testing

/// The manager never holds its lock across a send: while its MRP timer awaits a send for one session, other calls run.
/// What they change (a send that advances another session's counter, a removed session) must
/// survive the timer's return: the timer must not write back state it read before the await.
@Suite struct ExchangeManagerReentrancyTests {
    static let proto = ProtocolID(vendorID: 0xFFF1, 0x0002)
    static let fast = MRPParameters(idleInterval: 20, activeInterval: 20)

    /// Two secure sessions to two silent peers, each with one unacknowledged message, so the
    /// timer retransmits on both in the same pass; the first retransmission blocks in `send`.
    struct Setup {
        let manager: ExchangeManager
        let clock: ManualClock
        let gate: GatedTransport
        let sessions: [PeerAddress: SessionHandle]
        let exchanges: [PeerAddress: Exchange]
    }

    static func setUp() async throws -> Setup {
        let net = MemoryNetwork()
        let gate = GatedTransport(inner: net.makeEndpoint())
        let peers = [net.makeEndpoint(), net.makeEndpoint()]  // nobody reads them: nothing is acked
        let clock = ManualClock()
        let manager = ExchangeManager(transport: gate, clock: clock, random: { 0 })
        var sessions: [PeerAddress: SessionHandle] = [:], exchanges: [PeerAddress: Exchange] = [:]
        for (i, peer) in peers.enumerated() {
            let key = SecretBytes(Array(repeating: UInt8(i + 1), count: 16))
            let handle = await manager.addSecureSession(SecureSessionParameters(
                localSessionID: UInt16(10 + i), peerSessionID: UInt16(20 + i), encryptKey: key, decryptKey: key,
                attestationChallenge: SecretBytes(Array(repeating: 0, count: 16)), peerAddress: peer.address,
                peerMRP: fast, peer: .pase, isInitiator: true))
            sessions[peer.address] = handle
            exchanges[peer.address] = try await manager.newExchange(on: handle)
        }
        for e in exchanges.values { try await e.send(proto, opcode: 1, payload: [1]) }
        gate.arm()  // the next send (the timer's first retransmission) waits for release()
        await manager.start()
        clock.advance(by: .milliseconds(25))  // both first retransmissions are due (22 ms)
        return Setup(manager: manager, clock: clock, gate: gate, sessions: sessions, exchanges: exchanges)
    }

    /// A send on the other session during the timer's await takes the next counter; the next
    /// send after the timer must take a newer one (a reused counter reuses the AES-CCM nonce).
    @Test func sendDuringTimerAwaitKeepsItsCounter() async throws {
        let s = try await Self.setUp()
        let blocked = try await s.gate.waitUntilBlocked()
        let other = try #require(s.sessions.keys.first { $0 != blocked })
        try await s.exchanges[other]!.send(Self.proto, opcode: 2, payload: [2], reliable: false)
        s.gate.release()
        try await s.gate.waitForFrames(to: other, count: 3)  // first send, the one above, its retransmission
        try await s.exchanges[other]!.send(Self.proto, opcode: 3, payload: [3], reliable: false)
        let frames = s.gate.frames(to: other)
        var byCounter: [UInt32: Set<[UInt8]>] = [:]
        for f in frames { byCounter[try MessageHeader.decode(f).0.messageCounter, default: []].insert(f) }
        let reused = byCounter.filter { $0.value.count > 1 }.keys.sorted()
        #expect(reused.isEmpty, "counters used for different messages: \(reused)")
        await s.manager.shutdown()
    }

    /// A session removed during the timer's await stays removed.
    @Test func sessionRemovedDuringTimerAwaitStaysRemoved() async throws {
        let s = try await Self.setUp()
        let blocked = try await s.gate.waitUntilBlocked()
        let other = try #require(s.sessions.keys.first { $0 != blocked })
        await s.manager.removeSession(s.sessions[other]!)
        s.gate.release()
        s.clock.advance(by: .milliseconds(30))  // the next retransmission (22 ms later)
        try await s.gate.waitForFrames(to: blocked, count: 3)  // the timer has run again since
        #expect(await s.manager.secureSession(s.sessions[other]!) == nil)
        await s.manager.shutdown()
    }
}

/// A transport that records every frame it sends and, once armed, holds the next send until
/// `release()`, so a test can act while the sender is suspended.
final class GatedTransport: MessageTransport {
    private struct State {
        var armed = false
        var blockedPeer: PeerAddress?
        var release: CheckedContinuation<Void, Never>?
        var frames: [(PeerAddress, [UInt8])] = []
    }
    private let inner: any MessageTransport
    private let state = Mutex(State())

    init(inner: any MessageTransport) { self.inner = inner }

    var incoming: AsyncStream<Datagram> { inner.incoming }
    var localPort: UInt16 { inner.localPort }
    func close() { inner.close() }

    func arm() { state.withLock { $0.armed = true } }

    func send(_ bytes: [UInt8], to peer: PeerAddress) async throws(MessagingError) {
        let hold = state.withLock { s -> Bool in
            s.frames.append((peer, bytes))
            guard s.armed else { return false }
            s.armed = false
            s.blockedPeer = peer
            return true
        }
        if hold { await withCheckedContinuation { c in state.withLock { $0.release = c } } }
        try await inner.send(bytes, to: peer)
    }

    func release() {
        state.withLock { s -> CheckedContinuation<Void, Never>? in defer { s.release = nil }; return s.release }?.resume()
    }

    func frames(to peer: PeerAddress) -> [[UInt8]] {
        state.withLock { $0.frames.filter { $0.0 == peer }.map(\.1) }
    }

    /// The peer of the held send, once a send is held (and can be released).
    func waitUntilBlocked() async throws -> PeerAddress {
        try await poll { s in s.release == nil ? nil : s.blockedPeer }
    }

    func waitForFrames(to peer: PeerAddress, count: Int) async throws {
        _ = try await poll { s in s.frames.filter { $0.0 == peer }.count >= count ? true : nil }
    }

    private func poll<T>(_ check: (State) -> T?) async throws -> T {
        for _ in 0..<500 {
            if let v = state.withLock({ check($0) }) { return v }
            try await Task.sleep(for: .milliseconds(2))
        }
        throw CancellationError()
    }
}
