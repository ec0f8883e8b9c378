import Synchronization

/// A message a client sent.
public enum WebSocketMessage: Hashable, Sendable {
    case text([UInt8])
    case binary([UInt8])
}

/// One upgraded WebSocket connection. Sending never blocks: frames go into a bounded queue that
/// the server's I/O thread drains; a client that lets the queue fill up is disconnected.
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
        let queued = outbox.withLock { box -> Bool in
            guard box.state == .open else { return false }
            if !isClose, box.count + 1 > limits.messages || box.bytes + frame.count > limits.bytes {
                box.state = .overflowed
                box.frames = []
                box.head = 0
                box.bytes = 0
                return true  // wake the loop so it drops the connection
            }
            if isClose {
                box.state = .closeQueued
                box.closeFrameIndex = box.frames.count
            }
            box.frames.append(frame)
            box.bytes += frame.count
            return true
        }
        if queued { wake() }
        return queued && outbox.withLock { $0.state != .overflowed }
    }

    /// Whether the connection still accepts messages.
    public var isOpen: Bool { outbox.withLock { $0.state == .open } }

    public static func == (l: WebSocketConnection, r: WebSocketConnection) -> Bool { l === r }
    public func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(self)) }
    public var description: String { "connection \(id) (\(peer))" }
}
