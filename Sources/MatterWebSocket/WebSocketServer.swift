internal import CNet
import MatterPlatform
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An RFC 6455 WebSocket server over POSIX sockets: one I/O thread polls every listener and
/// connection (all non-blocking), so no client can stall another. The protocol work is done by
/// the sans-I/O ``WebSocketHandshake`` and ``WebSocketFrameParser``; this type only moves bytes.
///
/// Each connection has a bounded send queue (``WebSocketConnection/send(text:)``); a client that
/// falls behind is dropped. Pings are answered with pongs (only the latest one, so a ping flood
/// costs nothing), silent connections are pinged and closed when they do not answer, and reading
/// stops while the application has too much of a connection's input in hand. Requests must pass
/// the token (when set) and the ``RequestOriginPolicy``. Plain GETs on other paths go to the
/// delegate (`/`, `/info`, static files).
public final class WebSocketServer: Sendable {
    public let configuration: WebSocketServerConfiguration
    /// The addresses actually bound (ports resolved when 0 was asked for), in configuration order.
    public let boundAddresses: [ListenAddress]
    private let listeners: [Listener]
    private let delegate: any WebSocketServerDelegate
    private let wakePipe: (read: Int32, write: Int32)
    private let control = Mutex(Control())
    private let stopped = Mutex<Bool>(false)
    /// Answers to POST bodies handed to a sink, by peer serial, waiting for the I/O thread.
    private let bodyAnswers = Mutex<[UInt64: HTTPResponse]>([:])

    private struct Listener: Sendable {
        let fd: Int32
        let isUnix: Bool
        let unixPath: String?
        /// What the origin policy knows of it.
        let policy: RequestOriginPolicy.Listener
    }

    /// Every connection's queued bytes together (``WebSocketServerConfiguration/maxTotalQueuedBytes``).
    private let totalQueued = WebSocketConnection.QueuedBytes()

    private struct Control {
        var stopRequested = false
        var running = false
        var finished: [CheckedContinuation<Void, Never>] = []
        var done = false
    }

    /// Binds every address (throws if one fails, closing the others). Call ``start()`` to serve.
    public init(configuration: WebSocketServerConfiguration, delegate: any WebSocketServerDelegate) throws(WebSocketServerError) {
        self.configuration = configuration
        self.delegate = delegate
        var listeners: [Listener] = []
        var bound: [ListenAddress] = []
        do throws(WebSocketServerError) {
            for address in configuration.addresses {
                switch address {
                case .tcp(let host, let port):
                    let (fd, actual) = try Sockets.listenTCP(host: host, port: port)
                    listeners.append(Listener(fd: fd, isUnix: false, unixPath: nil,
                                              policy: .init(host: host, port: actual, isUnix: false)))
                    bound.append(.tcp(host: host, port: actual))
                case .unix(let path):
                    let fd = try Sockets.listenUnix(path: path)
                    listeners.append(Listener(fd: fd, isUnix: true, unixPath: path, policy: .init(host: "", port: 0, isUnix: true)))
                    bound.append(address)
                }
            }
        } catch {
            for l in listeners {
                close(l.fd)
                if let p = l.unixPath { unlink(p) }
            }
            throw error
        }
        var fds: [Int32] = [0, 0]
        let piped = cnet_pipe_cloexec(&fds)
        guard piped == 0 else {
            for l in listeners { close(l.fd) }
            throw Sockets.failure("wake pipe", "create", -piped)
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        wakePipe = (fds[0], fds[1])
        self.listeners = listeners
        self.boundAddresses = bound
    }

    /// The port of the first TCP address (handy when port 0 was asked for).
    public var tcpPort: UInt16? {
        for case .tcp(_, let port) in boundAddresses { return port }
        return nil
    }

    /// Starts the I/O thread.
    public func start() {
        let startNow = control.withLock { c -> Bool in
            guard !c.running, !c.done else { return false }
            c.running = true
            return true
        }
        guard startNow else { return }
        let started = DetachedThread.start(name: "matterhub.websocket") { [self] in
            var loop = EventLoop(server: self)
            loop.run()
            self.finish()
        }
        if !started { finish() }  // no I/O thread: stop() returns at once, nothing is served
    }

    /// Closes every connection (close code 1001, "server shutting down"), stops listening and
    /// removes the Unix socket files. Returns when the I/O thread has ended.
    public func stop() async {
        let wasRunning = control.withLock { c -> Bool in
            c.stopRequested = true
            return c.running && !c.done
        }
        if wasRunning {
            wake()
            await withCheckedContinuation { (k: CheckedContinuation<Void, Never>) in
                let already = control.withLock { c -> Bool in
                    if c.done { return true }
                    c.finished.append(k)
                    return false
                }
                if already { k.resume() }
            }
        }
        closeListeners()
    }

    private func finish() {
        closeListeners()
        let waiting = control.withLock { c -> [CheckedContinuation<Void, Never>] in
            c.done = true
            defer { c.finished = [] }
            return c.finished
        }
        for k in waiting { k.resume() }
    }

    private func closeListeners() {
        let first = stopped.withLock { s -> Bool in
            defer { s = true }
            return !s
        }
        guard first else { return }
        for l in listeners {
            close(l.fd)
            if let p = l.unixPath { unlink(p) }
        }
        close(wakePipe.read)
        close(wakePipe.write)
    }

    fileprivate var stopRequested: Bool { control.withLock { $0.stopRequested } }

    /// Hands a sink's answer to the I/O thread (any thread, once per upload).
    fileprivate func answerBody(of serial: UInt64, with response: HTTPResponse) {
        bodyAnswers.withLock { $0[serial] = response }
        wake()
    }

    fileprivate func takeBodyAnswers() -> [UInt64: HTTPResponse] {
        bodyAnswers.withLock { a in
            defer { a = [:] }
            return a
        }
    }

    fileprivate func wake() {
        var one: UInt8 = 1
        _ = write(wakePipe.write, &one, 1)
    }

    deinit {
        closeListeners()
    }

    // MARK: - The I/O loop (runs on its own thread only)

    private struct EventLoop {
        let server: WebSocketServer
        var connections: [Int32: Peer] = [:]
        var nextID: UInt64 = 1
        var nextPeerSerial: UInt64 = 1
        var shuttingDownSince: ContinuousClock.Instant?

        init(server: WebSocketServer) { self.server = server }

        var config: WebSocketServerConfiguration { server.configuration }

        mutating func run() {
            let wakeFD = server.wakePipe.read
            while true {
                if server.stopRequested, shuttingDownSince == nil { beginShutdown() }
                if let since = shuttingDownSince, connections.isEmpty || ContinuousClock.now - since > .seconds(1) {
                    for fd in Array(connections.keys) { drop(fd, code: .goingAway, reason: "server shutting down") }
                    return
                }
                var fds: [pollfd] = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
                if shuttingDownSince == nil {
                    for l in server.listeners { fds.append(pollfd(fd: l.fd, events: Int16(POLLIN), revents: 0)) }
                }
                let listenerCount = fds.count - 1
                let order = Array(connections.keys)
                for fd in order {
                    let peer = connections[fd]!
                    // A paused connection is not read: TCP slows its client down.
                    var events = peer.readPaused ? Int16(0) : Int16(POLLIN)
                    if peer.wantsWrite { events |= Int16(POLLOUT) }
                    fds.append(pollfd(fd: fd, events: events, revents: 0))
                }
                let n = poll(&fds, nfds_t(fds.count), 200)
                if n < 0, errno != EINTR { return }
                if fds[0].revents != 0 { drainWake(wakeFD) }
                for i in 0..<listenerCount where fds[1 + i].revents & Int16(POLLIN) != 0 {
                    acceptAll(server.listeners[i])
                }
                for (k, fd) in order.enumerated() {
                    let revents = fds[1 + listenerCount + k].revents
                    if revents & Int16(POLLHUP | POLLERR) != 0, connections[fd]?.readPaused == true {
                        // Not read while paused, so poll would report this again at once.
                        drop(fd, code: nil, reason: "the client went away")
                    } else if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                        readable(fd)
                    }
                }
                deliverBodyAnswers()
                // Outboxes may have been filled, and handled messages released, from other threads
                // whatever poll said.
                for fd in Array(connections.keys) {
                    resumeReading(fd)
                    service(fd)
                }
                checkDeadlines()
            }
        }

        func drainWake(_ fd: Int32) {
            var buffer = [UInt8](repeating: 0, count: 256)
            while read(fd, &buffer, buffer.count) > 0 {}
        }

        mutating func beginShutdown() {
            shuttingDownSince = .now
            for (_, peer) in connections {
                if let c = peer.connection { c.close(.goingAway, reason: "server shutting down") } else { peer.finishAfterWrite = true }
            }
        }

        mutating func acceptAll(_ listener: Listener) {
            while true {
                // Close-on-exec from the start: a child spawned meanwhile must not hold it open.
                let fd = cnet_accept_cloexec(listener.fd, 1)
                if fd < 0 { return }
                var one: Int32 = 1
                if !listener.isUnix { setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size)) }
                if listener.isUnix, let uid = Sockets.peerUID(fd), uid != geteuid(), uid != 0 {
                    close(fd)  // owner-only: another user's process may not talk to the hub
                    continue
                }
                let name = listener.isUnix ? "unix" : Sockets.peerName(fd)
                let peer = Peer(fd: fd, serial: nextPeerSerial, name: name, listener: listener.policy,
                                deadline: .now + config.handshakeTimeout, maxMessageSize: config.maxMessageSize)
                nextPeerSerial += 1
                makeRoomForHandshake(of: peer)
                connections[fd] = peer
            }
        }

        /// Keeps the pools of sockets that have not upgraded within their limits (per listener
        /// kind, per address): the oldest socket of a full pool is closed to make room, so sockets
        /// that never send a byte cannot keep out a client that does.
        mutating func makeRoomForHandshake(of newcomer: Peer) {
            func oldest(_ include: (Peer) -> Bool) -> Peer? {
                connections.values.filter { $0.counts(asHandshakeOf: newcomer.isUnix) && include($0) }.min { $0.acceptedAt < $1.acceptedAt }
            }
            let sameAddress = connections.values.filter { $0.counts(asHandshakeOf: newcomer.isUnix) && $0.address == newcomer.address }
            if sameAddress.count >= config.maxHandshakesPerAddress, let victim = oldest({ $0.address == newcomer.address }) {
                drop(victim.fd, code: nil, reason: "the upgrade did not come in time (\(config.maxHandshakesPerAddress) sockets of \(victim.address) were waiting)")
            }
            let all = connections.values.filter { $0.counts(asHandshakeOf: newcomer.isUnix) }
            if all.count >= config.maxHandshakes, let victim = oldest({ _ in true }) {
                drop(victim.fd, code: nil, reason: "the upgrade did not come in time (\(config.maxHandshakes) sockets were waiting)")
            }
        }

        mutating func readable(_ fd: Int32) {
            guard let peer = connections[fd], !peer.readPaused else { return }
            var buffer = [UInt8](repeating: 0, count: 65536)
            var budget = 4  // reads per poll round, so one busy client cannot starve the others
            while budget > 0 {
                budget -= 1
                let n = recv(fd, &buffer, buffer.count, 0)
                if n == 0 {
                    drop(fd, code: nil, reason: "the client closed the connection")
                    return
                }
                if n < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
                    drop(fd, code: nil, reason: "read failed: \(errnoText(errno))")
                    return
                }
                peer.lastHeard = .now
                peer.pingSentAt = nil
                received(peer, buffer[0..<n])
                guard connections[fd] != nil, !peer.finishAfterWrite, !peer.readPaused else { return }
            }
        }

        mutating func received(_ peer: Peer, _ bytes: ArraySlice<UInt8>) {
            switch peer.phase {
            case .handshake:
                peer.handshakeBuffer.append(contentsOf: bytes)
                let parsed: (head: HTTPRequestHead, consumed: Int)?
                do {
                    parsed = try HTTPRequestHead.parse(peer.handshakeBuffer)
                } catch {
                    respond(peer, .text(error.status.code, error.status.reason, "\(error)"))
                    return
                }
                guard let (head, consumed) = parsed else { return }
                let leftover = Array(peer.handshakeBuffer[consumed...])
                peer.handshakeBuffer = []
                handshake(peer, head, leftover: leftover)
            case .open:
                peer.parser.append(bytes)
                frames(peer)
            case .closing:
                // Only the client's close frame matters now; after a protocol error nothing it
                // sends can be read, so it is discarded, not buffered.
                guard !peer.parserFailed else { return }
                peer.parser.append(bytes)
                while true {
                    do {
                        guard let event = try peer.parser.next() else { return }
                        if case .close = event { drop(peer.fd, code: peer.closeCode, reason: peer.closeReason); return }
                    } catch {
                        peer.parserFailed = true
                        return
                    }
                }
            case .receivingBody(let sink, let remaining):
                bodyBytes(peer, sink, remaining, bytes)
            case .awaitingAnswer:
                break  // anything past the body is not read
            case .httpOnly:
                // The rest of a refused body: read and dropped, then the connection closes.
                peer.discardRemaining = max(0, peer.discardRemaining - bytes.count)
            }
        }

        /// A POST the delegate takes: checks its length, then streams its body into the sink.
        mutating func startBody(_ peer: Peer, _ head: HTTPRequestHead, leftover: [UInt8]) {
            guard let decision = server.delegate.httpBody(for: head, peer: peer.name) else {
                respond(peer, HTTPResponse(status: 405, reason: "Method Not Allowed", headers: ["Allow": "GET, HEAD"]),
                        discarding: (head.contentLength ?? 0) - leftover.count)
                return
            }
            switch decision {
            case .refuse(let response):
                respond(peer, response, discarding: (head.contentLength ?? 0) - leftover.count)
            case .accept(let sink, let maxBytes):
                guard head.header("transfer-encoding") == nil, let length = head.contentLength else {
                    sink.abandon()
                    respond(peer, .text(411, "Length Required", "Send the body with a Content-Length (no chunked encoding)."))
                    return
                }
                guard length <= maxBytes else {
                    sink.abandon()
                    respond(peer, .text(413, "Content Too Large", "The body is \(length) bytes; this hub takes at most \(maxBytes)."),
                            discarding: length - leftover.count)
                    return
                }
                if head.headerHasToken("expect", "100-continue") {
                    peer.writeBuffer = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
                    peer.writeOffset = 0
                }
                peer.phase = .receivingBody(sink, remaining: length)
                peer.deadline = .now + config.bodyIdleTimeout
                bodyBytes(peer, sink, length, leftover[...])
            }
        }

        func bodyBytes(_ peer: Peer, _ sink: any HTTPBodySink, _ remaining: Int, _ bytes: ArraySlice<UInt8>) {
            let part = bytes.prefix(remaining)
            if !part.isEmpty, let refusal = sink.write(part) {
                sink.abandon()
                respond(peer, refusal, discarding: remaining - part.count)
                return
            }
            let left = remaining - part.count
            guard left == 0 else {
                peer.phase = .receivingBody(sink, remaining: left)
                peer.deadline = .now + config.bodyIdleTimeout
                return
            }
            peer.phase = .awaitingAnswer
            peer.deadline = .now + config.bodyAnswerTimeout
            let server = self.server, serial = peer.serial
            sink.finish { response in server.answerBody(of: serial, with: response) }
        }

        /// Sends the answers sinks gave since the last round to their peers, if still there.
        func deliverBodyAnswers() {
            let answers = server.takeBodyAnswers()
            guard !answers.isEmpty else { return }
            for peer in connections.values {
                guard case .awaitingAnswer = peer.phase, let answer = answers[peer.serial] else { continue }
                respond(peer, answer)
            }
        }

        mutating func handshake(_ peer: Peer, _ head: HTTPRequestHead, leftover: [UInt8]) {
            // A browser sends Origin on an upgrade and on a POST: both are checked.
            let checksOrigin = head.headerHasToken("upgrade", "websocket") || head.method == "POST"
            if let refusal = config.originPolicy.refusal(of: head, on: peer.listener, checksOrigin: checksOrigin,
                                                         listeners: server.listeners.map(\.policy)) {
                respond(peer, refusal, discarding: (head.contentLength ?? 0) - leftover.count)
                return
            }
            if head.method == "POST", head.path != config.path {
                startBody(peer, head, leftover: leftover)
                return
            }
            let tokenNeeded = peer.isUnix ? (config.tokenRequiredOnUnixSocket ? config.token : nil) : config.token
            switch WebSocketHandshake.evaluate(head, path: config.path, token: tokenNeeded) {
            case .reject(let response):
                respond(peer, response)
            case .plainHTTP:
                guard head.method == "GET" || head.method == "HEAD" else {
                    respond(peer, HTTPResponse(status: 405, reason: "Method Not Allowed", headers: ["Allow": "GET, HEAD"]))
                    return
                }
                var response = server.delegate.httpResponse(for: head)
                    ?? .text(404, "Not Found", "Nothing at \(head.path); the WebSocket API is at \(config.path)")
                if let cookie = WebSocketHandshake.tokenCookieHeader(for: head, token: tokenNeeded), response.status == 200 {
                    response.headers["Set-Cookie"] = cookie
                }
                if head.method == "HEAD" {
                    response.headers["Content-Length"] = String(response.body.count)
                    response.body = []
                }
                respond(peer, response)
            case .upgrade(let response):
                let limit = peer.isUnix ? config.maxUnixConnections : config.maxConnections
                let upgraded = connections.values.filter { $0.connection != nil && $0.isUnix == peer.isUnix }.count
                guard upgraded < limit else {
                    respond(peer, .text(503, "Service Unavailable", """
                        This hub already serves \(limit) WebSocket connections \(peer.isUnix ? "on its Unix socket" : "over TCP"); \
                        close one or try again later.
                        """))
                    return
                }
                let id = nextID
                nextID += 1
                let server = self.server
                let limits = WebSocketConnection.Limits(
                    messages: config.maxQueuedMessages, bytes: config.maxQueuedBytes, backlogBytes: config.backlogBytes,
                    totalBytes: config.maxTotalQueuedBytes, messagesInFlight: config.maxMessagesInFlight,
                    bytesInFlight: config.maxBytesInFlight)
                let connection = WebSocketConnection(id: id, peer: peer.name, request: head, limits: limits,
                                                     totalQueued: server.totalQueued, wake: { server.wake() })
                peer.connection = connection
                peer.phase = .open
                peer.deadline = nil
                peer.lastHeard = .now
                peer.writeBuffer = response.encoded
                peer.writeOffset = 0
                server.delegate.connectionOpened(connection)
                if !leftover.isEmpty {
                    peer.parser.append(leftover)
                    frames(peer)
                }
            }
        }

        /// A non-upgrade response: write it, then close. When `discarding` bytes of a body are
        /// still to come, they are read and dropped first (within ``WebSocketServerConfiguration/bodyIdleTimeout``):
        /// closing with unread input resets the connection, and the client would not see the answer.
        func respond(_ peer: Peer, _ response: HTTPResponse, discarding: Int = 0) {
            peer.phase = .httpOnly
            peer.writeBuffer += response.encoded  // after a 100 Continue still being written
            peer.finishAfterWrite = true
            peer.discardRemaining = max(0, discarding)
            peer.deadline = .now + (peer.discardRemaining > 0 ? config.bodyIdleTimeout : config.closeTimeout)
        }

        mutating func frames(_ peer: Peer) {
            guard let connection = peer.connection else { return }
            while case .open = peer.phase {
                // The application has enough of this client's input in hand: leave the rest in
                // the parser (and the socket) until it has handled some.
                guard connection.acceptsInbound else {
                    peer.readPaused = true
                    return
                }
                let event: WebSocketFrameParser.Event?
                do {
                    event = try peer.parser.next()
                } catch {
                    // Fail the connection (RFC 6455 7.1.7): our close frame, then the TCP
                    // connection closes; nothing after the bad frame can be read reliably.
                    peer.parserFailed = true
                    startClosing(peer, error.code, error.reason, notify: true)
                    peer.finishAfterWrite = true
                    return
                }
                guard let event else { return }
                switch event {
                case .text(let payload): deliver(.text(payload), on: connection)
                case .binary(let payload): deliver(.binary(payload), on: connection)
                case .ping(let payload):
                    // Taken over first, so a message sent after this ping cannot pass its pong.
                    // A flood holds only the answers to the latest pings (RFC 6455 5.5.3 lets
                    // an endpoint answer only the most recent one).
                    takeOverWrites(peer)
                    if peer.pendingPongs.count >= Peer.maxPendingPongs { peer.pendingPongs.removeFirst() }
                    peer.pendingPongs.append(WebSocketFrame.encode(.pong, payload))
                case .pong: break
                case .close(let code, let reason):
                    // Echo the close (section 5.5.1) and finish once it is written.
                    peer.control.append(WebSocketFrame.close(code ?? .normal, reason: ""))
                    peer.closeCode = code
                    peer.closeReason = reason.isEmpty ? "the client closed the connection" : reason
                    peer.finishAfterWrite = true
                    connection.outbox.withLock { $0.state = .closed }
                    notifyClosed(peer, code, peer.closeReason)
                    return
                }
            }
        }

        func deliver(_ message: WebSocketMessage, on connection: WebSocketConnection) {
            _ = connection.admitInbound(message)
            server.delegate.connection(connection, received: message)
        }

        /// Parses what a paused connection left in its parser, and reads again, once the
        /// application has handled enough of its messages.
        mutating func resumeReading(_ fd: Int32) {
            guard let peer = connections[fd], peer.readPaused, let c = peer.connection, c.acceptsInbound else { return }
            peer.readPaused = false
            peer.lastHeard = .now  // the silence while paused was ours
            frames(peer)
        }

        /// Sends our close frame (after control frames, before anything else queued) and waits
        /// for the client's.
        func startClosing(_ peer: Peer, _ code: WebSocketCloseCode, _ reason: String, notify: Bool) {
            peer.control.append(WebSocketFrame.close(code, reason: reason))
            peer.readPaused = false
            peer.phase = .closing
            peer.closeCode = code
            peer.closeReason = reason
            peer.deadline = .now + config.closeTimeout
            peer.connection?.outbox.withLock { $0.state = .closed }
            if notify { notifyClosed(peer, code, reason) }
        }

        func notifyClosed(_ peer: Peer, _ code: WebSocketCloseCode?, _ reason: String) {
            guard let c = peer.connection, !peer.notified else { return }
            peer.notified = true
            server.delegate.connectionClosed(c, code: code, reason: reason)
        }

        /// Moves queued frames to the socket while it takes them.
        mutating func service(_ fd: Int32) {
            guard let peer = connections[fd] else { return }
            if let c = peer.connection, case .open = peer.phase, c.outbox.withLock({ $0.state == .overflowed }) {
                drop(fd, code: .policyViolation, reason: "the client read too slowly (send queue full)")
                return
            }
            takeOverWrites(peer)
            while true {
                if peer.writeOffset >= peer.writeBuffer.count {
                    peer.writeBuffer = []
                    peer.writeOffset = 0
                    if !peer.pendingPongs.isEmpty {
                        peer.writeBuffer = peer.pendingPongs.removeFirst()
                    } else if !peer.control.isEmpty {
                        peer.writeBuffer = peer.control.removeFirst()
                    } else if case .open = peer.phase, let c = peer.connection,
                              let (frame, isClose) = c.outbox.withLock({ popOrHandOver(&$0, peer) }) {
                        peer.writeBuffer = frame
                        if isClose {
                            peer.closeFrameQueuedByApp = true
                            if let info = c.outbox.withLock({ $0.closeInfo }) {
                                peer.appCloseCode = info.code
                                peer.appCloseReason = info.reason
                            }
                        }
                    } else if peer.finishAfterWrite {
                        if peer.discardRemaining > 0 { return }  // the rest of a refused body first
                        drop(fd, code: peer.closeCode, reason: peer.closeReason)
                        return
                    } else {
                        peer.connection?.noteWritten()
                        return
                    }
                }
                let n = peer.writeBuffer.withUnsafeBufferPointer { b in
                    send(fd, b.baseAddress! + peer.writeOffset, b.count - peer.writeOffset, Int32(MSG_NOSIGNAL))
                }
                if n < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                        peer.connection?.noteWritten()
                        return
                    }
                    drop(fd, code: nil, reason: "write failed: \(errnoText(errno))")
                    return
                }
                peer.writeOffset += n
                if peer.writeOffset >= peer.writeBuffer.count, peer.closeFrameQueuedByApp {
                    // The application's close frame is out: wait for the client's reply.
                    peer.closeFrameQueuedByApp = false
                    peer.writeBuffer = []
                    peer.writeOffset = 0
                    let (code, reason) = Self.closeFields(of: peer)
                    peer.phase = .closing
                    peer.closeCode = code
                    peer.closeReason = reason
                    peer.deadline = .now + config.closeTimeout
                    notifyClosed(peer, code, reason)
                }
            }
        }

        /// Ends senders' direct writes before this thread writes (see `Outbox.directFD`), and
        /// takes what the last one left unwritten.
        func takeOverWrites(_ peer: Peer) {
            guard let c = peer.connection else { return }
            let rest = c.outbox.withLock { box -> [UInt8] in
                box.directFD = nil
                defer { box.partial = [] }
                return box.partial
            }
            guard !rest.isEmpty else { return }
            if peer.writeOffset >= peer.writeBuffer.count {
                peer.writeBuffer = rest
                peer.writeOffset = 0
            } else {
                peer.control.insert(rest, at: 0)  // not reached: senders write only when nothing is in flight
            }
        }

        /// The next queued frame; when there is none and nothing else is due, hands the socket
        /// to senders until this thread next takes over.
        func popOrHandOver(_ box: inout WebSocketConnection.Outbox, _ peer: Peer) -> (frame: [UInt8], isClose: Bool)? {
            if let next = box.pop() { return next }
            if box.state == .open, !peer.finishAfterWrite { box.directFD = peer.fd }
            return nil
        }

        static func closeFields(of peer: Peer) -> (WebSocketCloseCode, String) {
            (peer.appCloseCode ?? .normal, peer.appCloseReason ?? "closed by the server")
        }

        mutating func checkDeadlines() {
            let now = ContinuousClock.now
            for (fd, peer) in connections {
                if case .open = peer.phase { checkSilence(peer, now: now) }
                guard let deadline = peer.deadline, now >= deadline else { continue }
                switch peer.phase {
                case .handshake: respond(peer, .text(408, "Request Timeout", "The upgrade request did not arrive in time."))
                case .awaitingAnswer:
                    respond(peer, .text(503, "Service Unavailable", "The hub did not finish with the upload in time; try again."))
                default: drop(fd, code: peer.closeCode, reason: peer.closeReason.isEmpty ? "timed out" : peer.closeReason)
                }
            }
        }

        /// A connection silent for a ping interval gets a ping; one silent for another interval
        /// after it is closed (a client gone without a FIN, or one holding a slot it never uses).
        /// Silence while the server does not read (paused) is not the client's.
        func checkSilence(_ peer: Peer, now: ContinuousClock.Instant) {
            guard !peer.readPaused else { return }
            if let sent = peer.pingSentAt {
                if now - sent >= config.pingInterval {
                    startClosing(peer, .goingAway, "no answer to a ping within \(config.pingInterval)", notify: true)
                    // It answers nothing: no point waiting the close timeout for its close frame.
                    peer.deadline = now + .milliseconds(250)
                }
            } else if now - peer.lastHeard >= config.pingInterval {
                takeOverWrites(peer)
                peer.control.append(WebSocketFrame.encode(.ping, []))
                peer.pingSentAt = now
            }
        }

        mutating func drop(_ fd: Int32, code: WebSocketCloseCode?, reason: String) {
            guard let peer = connections.removeValue(forKey: fd) else { return }
            if case .receivingBody(let sink, _) = peer.phase { sink.abandon() }
            peer.connection?.outbox.withLock { box in
                box.state = .closed
                box.directFD = nil  // before close(fd): the number may be reused at once
                box.totalQueued?.add(-box.bytes)
                box.partial = []
                box.frames = []
                box.head = 0
                box.bytes = 0
            }
            notifyClosed(peer, code, reason)
            close(fd)
        }
    }

    /// One socket's state, owned by the I/O thread.
    private final class Peer {
        enum Phase {
            case handshake, open, closing, httpOnly
            /// A POST body on its way into a sink.
            case receivingBody(any HTTPBodySink, remaining: Int)
            /// The body is in; the sink's answer is awaited (``WebSocketServer/answerBody(of:with:)``).
            case awaitingAnswer
        }
        let fd: Int32
        /// Unique for the server's life (a file descriptor is reused at once).
        let serial: UInt64
        let name: String
        let listener: RequestOriginPolicy.Listener
        var isUnix: Bool { listener.isUnix }
        /// The peer's address without its port: the unit of the handshake pool's per-address cap.
        let address: String
        let acceptedAt = ContinuousClock.now
        /// When a byte last arrived, and when the ping that asks for one went out.
        var lastHeard = ContinuousClock.now
        var pingSentAt: ContinuousClock.Instant?
        /// Answers to the latest pings (at most ``maxPendingPongs``), written before anything else.
        var pendingPongs: [[UInt8]] = []
        static let maxPendingPongs = 16
        /// Not read while the application holds too much of its input.
        var readPaused = false
        /// The frame parser failed: whatever else arrives is discarded.
        var parserFailed = false
        var phase = Phase.handshake
        var handshakeBuffer: [UInt8] = []
        var parser: WebSocketFrameParser
        var connection: WebSocketConnection?
        /// The frame being written and how much of it is out.
        var writeBuffer: [UInt8] = []
        var writeOffset = 0
        /// Pongs and close frames: written before queued messages.
        var control: [[UInt8]] = []
        var finishAfterWrite = false
        /// Bytes of a refused body still to be read and dropped before closing.
        var discardRemaining = 0
        var closeFrameQueuedByApp = false
        var appCloseCode: WebSocketCloseCode?
        var appCloseReason: String?
        var closeCode: WebSocketCloseCode?
        var closeReason = ""
        var notified = false
        var deadline: ContinuousClock.Instant?

        init(fd: Int32, serial: UInt64, name: String, listener: RequestOriginPolicy.Listener, deadline: ContinuousClock.Instant,
             maxMessageSize: Int) {
            self.fd = fd
            self.serial = serial
            self.name = name
            self.listener = listener
            self.address = listener.isUnix ? "unix" : (name.lastIndex(of: ":").map { String(name[..<$0]) } ?? name)
            self.deadline = deadline
            self.parser = WebSocketFrameParser(maxMessageSize: maxMessageSize)
        }

        /// Whether it takes a slot of the handshake pool of its kind (TCP or Unix): not upgraded
        /// and not yet closing.
        func counts(asHandshakeOf unix: Bool) -> Bool {
            guard isUnix == unix else { return false }
            switch phase {
            case .handshake, .httpOnly: return true
            // An upload holds its own socket for its length, not a handshake slot.
            case .open, .closing, .receivingBody, .awaitingAnswer: return false
            }
        }

        var wantsWrite: Bool {
            if writeOffset < writeBuffer.count || !pendingPongs.isEmpty || !control.isEmpty || finishAfterWrite { return true }
            if case .open = phase, let c = connection { return c.outbox.withLock { $0.count > 0 || $0.state == .overflowed } }
            return false
        }
    }
}
