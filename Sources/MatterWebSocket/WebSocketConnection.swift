import MatterPlatform
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A message a client sent.
public enum WebSocketMessage: Hashable, Sendable {
    case text([UInt8])
    case binary([UInt8])

    var payloadCount: Int {
        switch self {
        case .text(let b), .binary(let b): return b.count
        }
    }
}

/// One upgraded WebSocket connection. Sending never blocks: when nothing is queued or being
/// written, the sender writes the frame to the (non-blocking) socket itself, which spares a
/// wake-up of the I/O thread per message; otherwise, or for what the socket did not take, the
/// frame goes into a bounded queue that the I/O thread drains. A client that lets the queue fill
/// up is disconnected.
public final class WebSocketConnection: Sendable, Hashable, CustomStringConvertible {
    /// Unique per server run.
    public let id: UInt64
    /// `address:port`, or `unix` for the Unix socket.
    public let peer: String
    /// The upgrade request (path, query, headers).
    public let request: HTTPRequestHead

    let outbox: Mutex<Outbox>
    let limits: Limits
    /// All connections' queued bytes (shared by the server's connections).
    let totalQueued: QueuedBytes
    let wake: @Sendable () -> Void
    /// Received messages not yet handled, and their bytes (see ``handled(_:)``).
    let inbound = Mutex<(messages: Int, bytes: Int)>((0, 0))
    private let drainHandler = SettableCallback<Void>()

    struct Limits {
        var messages: Int
        var bytes: Int
        var backlogBytes: Int
        var totalBytes: Int
        var messagesInFlight: Int
        var bytesInFlight: Int
    }

    init(id: UInt64, peer: String, request: HTTPRequestHead, limits: Limits, totalQueued: QueuedBytes,
         wake: @escaping @Sendable () -> Void) {
        self.id = id
        self.peer = peer
        self.request = request
        self.outbox = Mutex(Outbox(totalQueued: totalQueued))
        self.limits = limits
        self.totalQueued = totalQueued
        self.wake = wake
    }

    /// The bytes queued on every connection of one server, so that slow clients together are
    /// bounded too.
    final class QueuedBytes: Sendable {
        private let value = Mutex(0)
        func add(_ n: Int) { value.withLock { $0 += n } }
        var current: Int { value.withLock { $0 } }
    }

    struct Outbox {
        enum State: Equatable { case open, closeQueued, overflowed, closed }
        var frames: [[UInt8]] = []
        var head = 0
        var bytes = 0
        var state = State.open
        var closeFrameIndex: Int?
        /// The code and reason of the close frame the application queued.
        var closeInfo: (code: WebSocketCloseCode, reason: String)?
        /// The socket, while the I/O thread has nothing queued or half-written for it: a sender
        /// may then write a whole frame itself, under this lock. The I/O thread clears it (under
        /// the lock) before it writes anything, and before it closes the socket.
        var directFD: Int32?
        /// What a sender's write left unwritten: the I/O thread writes it before anything else.
        var partial: [UInt8] = []
        /// Went past the backlog mark since the drain handler last ran.
        var wasBacklogged = false
        /// The server-wide count that `bytes` is part of.
        var totalQueued: QueuedBytes?

        var count: Int { frames.count - head }

        mutating func pop() -> (frame: [UInt8], isClose: Bool)? {
            guard head < frames.count else { return nil }
            let f = frames[head]
            let isClose = closeFrameIndex == head
            frames[head] = []
            head += 1
            bytes -= f.count
            totalQueued?.add(-f.count)
            if head > 64, head * 2 > frames.count {
                frames.removeFirst(head)
                if let c = closeFrameIndex { closeFrameIndex = c - head }
                head = 0
            }
            return (f, isClose)
        }
    }

    /// Queues a text message (UTF-8 JSON). False when the connection is closing or closed, or
    /// when this message overflowed the queue (the connection is then dropped as too slow).
    @discardableResult
    public func send(text: [UInt8]) -> Bool {
        enqueue(WebSocketFrame.encode(.text, text), isClose: false)
    }

    /// Queues a binary message, as ``send(text:)``.
    @discardableResult
    public func send(binary: [UInt8]) -> Bool {
        enqueue(WebSocketFrame.encode(.binary, binary), isClose: false)
    }

    /// Sends a close frame after what is already queued; nothing can be sent afterwards.
    public func close(_ code: WebSocketCloseCode = .normal, reason: String = "") {
        outbox.withLock { box in
            if box.state == .open { box.closeInfo = (code, reason) }
        }
        enqueue(WebSocketFrame.close(code, reason: reason), isClose: true)
    }

    @discardableResult
    private func enqueue(_ frame: [UInt8], isClose: Bool) -> Bool {
        enum Outcome { case written, queued, refused }
        let outcome = outbox.withLock { box -> Outcome in
            guard box.state == .open else { return .refused }
            if !isClose, let fd = box.directFD {
                let n = frame.withUnsafeBufferPointer { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n == frame.count { return .written }
                // Short write, a full socket or an error: the I/O thread takes over from here
                // (and meets the error itself).
                box.directFD = nil
                box.partial = n > 0 ? Array(frame[n...]) : frame
                return .queued
            }
            // Checked before adding: one message larger than the limit still goes to a client
            // that reads; a slow client among many is dropped sooner.
            let backlogged = box.bytes + box.partial.count > limits.backlogBytes
            if !isClose, box.count + 1 > limits.messages || box.bytes >= limits.bytes
                || (backlogged && totalQueued.current > limits.totalBytes) {
                box.state = .overflowed
                totalQueued.add(-box.bytes)
                box.frames = []
                box.head = 0
                box.bytes = 0
                return .queued  // wake the loop so it drops the connection
            }
            if isClose {
                box.state = .closeQueued
                box.closeFrameIndex = box.frames.count
            }
            box.frames.append(frame)
            box.bytes += frame.count
            totalQueued.add(frame.count)
            if box.bytes > limits.backlogBytes { box.wasBacklogged = true }
            return .queued
        }
        switch outcome {
        case .written: return true
        case .refused: return false
        case .queued:
            wake()
            return outbox.withLock { $0.state != .overflowed }
        }
    }

    /// Whether the connection still accepts messages.
    public var isOpen: Bool { outbox.withLock { $0.state == .open } }

    /// Whether more than the backlog mark waits to be written: the client reads slowly, and
    /// what can be coalesced should wait (``setDrainHandler(_:)`` says when to go on).
    public var isBacklogged: Bool { outbox.withLock { $0.bytes + $0.partial.count > limits.backlogBytes } }

    /// Called on the I/O thread when a backlogged connection's queue has drained below half the
    /// backlog mark (it must return quickly and never block).
    public func setDrainHandler(_ handler: @escaping @Sendable () -> Void) {
        drainHandler.set { handler() }
    }

    /// The I/O thread, after writing: runs the drain handler once the queue has come down.
    func noteWritten() {
        let drained = outbox.withLock { box -> Bool in
            guard box.wasBacklogged, box.bytes + box.partial.count <= limits.backlogBytes / 2 else { return false }
            box.wasBacklogged = false
            return true
        }
        if drained { drainHandler(()) }
    }

    /// The application is done with a message it received (answered it, or gave up on it): it
    /// no longer counts against the in-flight limits, and reading resumes when it was paused.
    public func handled(_ message: WebSocketMessage) {
        let size = message.payloadCount
        let resume = inbound.withLock { box -> Bool in
            let wasFull = box.messages >= limits.messagesInFlight || box.bytes >= limits.bytesInFlight
            box.messages = max(0, box.messages - 1)
            box.bytes = max(0, box.bytes - size)
            return wasFull && box.messages < limits.messagesInFlight && box.bytes < limits.bytesInFlight
        }
        if resume { wake() }
    }

    /// Counts a message handed to the application; false once a limit is reached (stop reading).
    func admitInbound(_ message: WebSocketMessage) -> Bool {
        inbound.withLock { box in
            box.messages += 1
            box.bytes += message.payloadCount
            return box.messages < limits.messagesInFlight && box.bytes < limits.bytesInFlight
        }
    }

    /// Whether the application may be handed another message now.
    var acceptsInbound: Bool {
        inbound.withLock { $0.messages < limits.messagesInFlight && $0.bytes < limits.bytesInFlight }
    }

    public static func == (l: WebSocketConnection, r: WebSocketConnection) -> Bool { l === r }
    public func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(self)) }
    public var description: String { "connection \(id) (\(peer))" }
}
