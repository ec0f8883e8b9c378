import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A message a client sent.
public enum WebSocketMessage: Hashable, Sendable {
    case text([UInt8])
    case binary([UInt8])
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
    let limits: (messages: Int, bytes: Int)
    let wake: @Sendable () -> Void

    init(id: UInt64, peer: String, request: HTTPRequestHead, maxQueuedMessages: Int, maxQueuedBytes: Int,
         wake: @escaping @Sendable () -> Void) {
        self.id = id
        self.peer = peer
        self.request = request
        self.outbox = Mutex(Outbox())
        self.limits = (maxQueuedMessages, maxQueuedBytes)
        self.wake = wake
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

        var count: Int { frames.count - head }

        mutating func pop() -> (frame: [UInt8], isClose: Bool)? {
            guard head < frames.count else { return nil }
            let f = frames[head]
            let isClose = closeFrameIndex == head
            frames[head] = []
            head += 1
            bytes -= f.count
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
            if !isClose, box.count + 1 > limits.messages || box.bytes + frame.count > limits.bytes {
                box.state = .overflowed
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

    public static func == (l: WebSocketConnection, r: WebSocketConnection) -> Bool { l === r }
    public func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(self)) }
    public var description: String { "connection \(id) (\(peer))" }
}
