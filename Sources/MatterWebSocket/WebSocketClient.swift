import MatterCrypto
import MatterPlatform
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An RFC 6455 WebSocket client over TCP or a Unix socket. The opening handshake sends a fresh
/// random key and checks `Sec-WebSocket-Accept` (``WebSocketClientHandshake``); every frame it
/// sends is masked with a fresh random key; server frames are read by the same sans-I/O
/// ``WebSocketFrameParser`` as the server uses (refusing masked server frames). Pings are
/// answered at once; ``ping(timeout:)`` checks the server; ``close(_:reason:)`` runs the
/// closing handshake.
///
/// One thread per connection reads the socket; messages arrive on ``messages``, which ends when
/// the connection does (``closeInfo`` then says how).
public final class WebSocketClient: Sendable {
    public let url: WebSocketURL
    /// The server's 101 response.
    public let response: HTTPResponseHead
    /// Text and binary messages from the server, in order; finishes when the connection ends.
    public let messages: AsyncStream<WebSocketMessage>

    private let fd: Int32
    private let continuation: AsyncStream<WebSocketMessage>.Continuation
    private let io: Mutex<IOState>
    private let closeTimeout: Duration

    private struct IOState {
        var socketClosed = false
        var closeSent = false
        /// How the connection ended (or is ending): the code and reason of the first close frame.
        var closeInfo: (code: WebSocketCloseCode?, reason: String)?
        var pings: [[UInt8]: CheckedContinuation<Bool, Never>] = [:]
        var ended: [CheckedContinuation<Void, Never>] = []
        var readerDone = false
    }

    private init(url: WebSocketURL, fd: Int32, response: HTTPResponseHead, closeTimeout: Duration) {
        self.url = url
        self.fd = fd
        self.response = response
        self.closeTimeout = closeTimeout
        (messages, continuation) = AsyncStream.makeStream(of: WebSocketMessage.self)
        io = Mutex(IOState())
    }

    /// Connects, upgrades and starts reading. `timeout` bounds the connect and the handshake.
    public static func connect(to url: WebSocketURL, timeout: Duration = .seconds(10), maxMessageSize: Int = 64 << 20,
                               closeTimeout: Duration = .seconds(2)) async throws(WebSocketClientError) -> WebSocketClient {
        let result = await withCheckedContinuation { (k: CheckedContinuation<Result<(Int32, HTTPResponseHead, [UInt8]), WebSocketClientError>, Never>) in
            let started = DetachedThread.start(name: "matterhub.websocket-connect") {
                do throws(WebSocketClientError) { k.resume(returning: .success(try open(url, timeout: timeout))) } catch {
                    k.resume(returning: .failure(error))
                }
            }
            if !started { k.resume(returning: .failure(.connect(address: url.description, reason: "no thread could be started"))) }
        }
        let (fd, head, leftover) = try result.get()
        let client = WebSocketClient(url: url, fd: fd, response: head, closeTimeout: closeTimeout)
        let reading = DetachedThread.start(name: "matterhub.websocket-client") {
            var parser = WebSocketFrameParser(maxMessageSize: maxMessageSize, requireMasked: false)
            parser.append(leftover)
            client.readLoop(parser)
        }
        guard reading else {
            await client.close(.goingAway, reason: "no reader thread")
            throw .connect(address: url.description, reason: "no thread could be started")
        }
        return client
    }

    /// The blocking part of connecting: socket, upgrade request, response head.
    private static func open(_ url: WebSocketURL, timeout: Duration) throws(WebSocketClientError) -> (Int32, HTTPResponseHead, [UInt8]) {
        let deadline = ContinuousClock.now + timeout
        func remainingMs() -> Int32 { Int32(clamping: max(0, (deadline - ContinuousClock.now).milliseconds)) }
        let fd = try Sockets.connectClient(url.endpoint, timeoutMs: remainingMs())
        let handshake = WebSocketClientHandshake(host: url.hostHeader, target: url.target)
        let address = url.description
        guard Sockets.writeAll(fd, handshake.request, timeoutMs: remainingMs()) else {
            Glibc.close(fd)
            throw .noResponse(address: address, "the upgrade request could not be sent")
        }
        var buffer: [UInt8] = []
        while true {
            let parsed: (head: HTTPResponseHead, consumed: Int)?
            do { parsed = try HTTPResponseHead.parse(buffer) } catch {
                Glibc.close(fd)
                throw .handshake(address: address, .invalidResponse(error.description))
            }
            if let (head, consumed) = parsed {
                var rest = Array(buffer[consumed...])
                if head.status != 101 {
                    // Read the rest of a short refusal body (the server closes after it).
                    while rest.count < 512, remainingMs() > 0, let more = Sockets.readSome(fd, timeoutMs: min(remainingMs(), 500)),
                          !more.isEmpty { rest += more }
                }
                do throws(WebSocketClientHandshake.Failure) { try handshake.validate(head, body: rest) } catch {
                    Glibc.close(fd)
                    throw .handshake(address: address, error)
                }
                return (fd, head, rest)
            }
            let wait = remainingMs()
            guard wait > 0 else {
                Glibc.close(fd)
                throw .noResponse(address: address, "no upgrade response within \(timeout)")
            }
            guard let more = Sockets.readSome(fd, timeoutMs: wait) else { continue }
            if more.isEmpty {
                Glibc.close(fd)
                throw .noResponse(address: address, "the server closed the connection during the upgrade")
            }
            buffer += more
        }
    }

    // MARK: - Sending

    /// Sends a text message (one masked frame).
    public func send(text: String) throws(WebSocketClientError) {
        try send(.text, Array(text.utf8))
    }

    public func send(text: [UInt8]) throws(WebSocketClientError) {
        try send(.text, text)
    }

    public func send(binary: [UInt8]) throws(WebSocketClientError) {
        try send(.binary, binary)
    }

    private func send(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws(WebSocketClientError) {
        let frame = WebSocketFrame.encode(opcode, payload, maskingKey: SecureRandom.bytes(4))
        try write(frame, isClose: false)
    }

    private func write(_ frame: [UInt8], isClose: Bool) throws(WebSocketClientError) {
        let failure = io.withLock { s -> WebSocketClientError? in
            if s.socketClosed || s.closeSent { return .closed(code: s.closeInfo?.code, reason: s.closeInfo?.reason ?? "") }
            if isClose { s.closeSent = true }
            if !Sockets.writeAll(fd, frame, timeoutMs: 10_000) {
                shutdown(fd, Int32(SHUT_RDWR))
                return .closed(code: nil, reason: "the server stopped reading")
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Sends a ping with a random payload and waits for its pong; returns the round trip.
    @discardableResult
    public func ping(timeout: Duration = .seconds(5)) async throws(WebSocketClientError) -> Duration {
        let payload = SecureRandom.bytes(8)
        let started = ContinuousClock.now
        let answered = await withCheckedContinuation { (k: CheckedContinuation<Bool, Never>) in
            let ok = io.withLock { s -> Bool in
                guard !s.readerDone else { return false }
                s.pings[payload] = k
                return true
            }
            guard ok else { return k.resume(returning: false) }
            do throws(WebSocketClientError) {
                try write(WebSocketFrame.encode(.ping, payload, maskingKey: SecureRandom.bytes(4)), isClose: false)
            } catch {
                return resolvePing(payload, false)
            }
            Task {
                try? await Task.sleep(for: timeout)
                self.resolvePing(payload, false)
            }
        }
        guard answered else {
            if let info = closeInfo { throw .closed(code: info.code, reason: info.reason) }
            throw .pingTimeout
        }
        return ContinuousClock.now - started
    }

    private func resolvePing(_ payload: [UInt8], _ answered: Bool) {
        io.withLock { $0.pings.removeValue(forKey: payload) }?.resume(returning: answered)
    }

    /// Starts the closing handshake (section 7.1.2) and waits until the server answers with its
    /// close frame and the connection ends, at most the close timeout. Idempotent.
    public func close(_ code: WebSocketCloseCode = .normal, reason: String = "") async {
        io.withLock { s in
            if s.closeInfo == nil, !s.closeSent, !s.socketClosed { s.closeInfo = (code, reason) }
        }
        try? write(WebSocketFrame.close(code, reason: reason, maskingKey: SecureRandom.bytes(4)), isClose: true)
        let finished = Task {
            await withCheckedContinuation { (k: CheckedContinuation<Void, Never>) in
                let done = io.withLock { s -> Bool in
                    if s.readerDone { return true }
                    s.ended.append(k)
                    return false
                }
                if done { k.resume() }
            }
        }
        let timer = Task {
            try? await Task.sleep(for: closeTimeout)
            // The server never closed: end the connection from this side.
            self.io.withLock { s in if !s.socketClosed { shutdown(self.fd, Int32(SHUT_RDWR)) } }
        }
        await finished.value
        timer.cancel()
    }

    /// How the connection ended (or is ending): the close code and reason of the first close
    /// frame sent or received; nil while open, or when the socket just dropped.
    public var closeInfo: (code: WebSocketCloseCode?, reason: String)? { io.withLock { $0.closeInfo } }

    /// Whether the reading side still runs.
    public var isOpen: Bool { io.withLock { !$0.readerDone && !$0.closeSent } }

    // MARK: - Reading (the reader thread only)

    private func readLoop(_ initial: WebSocketFrameParser) {
        var parser = initial
        var closeReceivedAt: ContinuousClock.Instant?
        reading: while true {
            do throws(WebSocketFrameParser.Failure) {
                while let event = try parser.next() {
                    switch event {
                    case .text(let t): continuation.yield(.text(t))
                    case .binary(let b): continuation.yield(.binary(b))
                    case .ping(let p): try? write(WebSocketFrame.encode(.pong, p, maskingKey: SecureRandom.bytes(4)), isClose: false)
                    case .pong(let p): resolvePing(p, true)
                    case .close(let code, let reason):
                        let echo = io.withLock { s -> Bool in
                            if s.closeInfo == nil { s.closeInfo = (code, reason) }
                            return !s.closeSent
                        }
                        if echo {
                            let frame = code.map { WebSocketFrame.close($0, reason: "", maskingKey: SecureRandom.bytes(4)) }
                                ?? WebSocketFrame.encode(.close, [], maskingKey: SecureRandom.bytes(4))
                            try? write(frame, isClose: true)
                        }
                        continuation.finish()
                        closeReceivedAt = .now
                    }
                }
            } catch {
                // The server broke the protocol: fail the connection with the parser's code.
                io.withLock { s in if s.closeInfo == nil { s.closeInfo = (error.code, error.reason) } }
                try? write(WebSocketFrame.close(error.code, reason: error.reason, maskingKey: SecureRandom.bytes(4)), isClose: true)
                break reading
            }
            // After the close frames crossed, the server ends TCP; wait a little for it.
            if let at = closeReceivedAt, ContinuousClock.now - at > closeTimeout { break }
            guard let bytes = Sockets.readSome(fd, timeoutMs: 200) else { continue }
            if bytes.isEmpty { break }
            if closeReceivedAt == nil { parser.append(bytes) }
        }
        continuation.finish()
        let (pings, ended) = io.withLock { s -> ([CheckedContinuation<Bool, Never>], [CheckedContinuation<Void, Never>]) in
            s.socketClosed = true
            s.readerDone = true
            Glibc.close(fd)
            defer { s.pings = [:]; s.ended = [] }
            return (Array(s.pings.values), s.ended)
        }
        for p in pings { p.resume(returning: false) }
        for e in ended { e.resume() }
    }
}

extension Duration {
    /// Whole milliseconds (rounded down).
    var milliseconds: Int64 {
        let (s, a) = components
        return s * 1000 + a / 1_000_000_000_000_000
    }
}
