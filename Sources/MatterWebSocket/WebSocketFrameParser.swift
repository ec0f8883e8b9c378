/// The receiving half of the WebSocket framing protocol (RFC 6455 section 5) as a sans-I/O state
/// machine: bytes in (``append(_:)``), messages and control frames out (``next()``).
///
/// It unmasks client frames, reassembles fragmented messages, checks text for UTF-8, and refuses
/// with the close code to send back: unmasked client frames, reserved bits (no extension is ever
/// negotiated), unknown opcodes, fragmented or oversized (> 125 bytes) control frames, a
/// continuation with nothing to continue, a new message inside a fragmented one, non-minimal or
/// 64-bit lengths with the top bit set, and messages over `maxMessageSize` (checked from the
/// headers, before the payload is buffered). After an error the parser stays failed.
public struct WebSocketFrameParser: Sendable {
    /// What the parser produced.
    public enum Event: Hashable, Sendable {
        /// A complete text message (valid UTF-8).
        case text([UInt8])
        case binary([UInt8])
        case ping([UInt8])
        case pong([UInt8])
        /// A close frame; `code` nil when it had no payload.
        case close(code: WebSocketCloseCode?, reason: String)
    }

    /// Why the stream is refused, and the close code to answer with.
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        public var code: WebSocketCloseCode
        public var reason: String
        public var description: String { "\(reason) (close code \(code))" }
    }

    /// The default message limit, 1 MiB.
    public static let defaultMaxMessageSize = 1 << 20

    public let maxMessageSize: Int
    public let requireMasked: Bool
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// The opcode and payload of a fragmented message in progress.
    private var fragmentOpcode: WebSocketOpcode?
    private var fragments: [UInt8] = []
    private var failure: Failure?

    /// `requireMasked` is true on a server (clients must mask, section 5.1).
    public init(maxMessageSize: Int = WebSocketFrameParser.defaultMaxMessageSize, requireMasked: Bool = true) {
        self.maxMessageSize = maxMessageSize
        self.requireMasked = requireMasked
    }

    /// Bytes buffered but not yet consumed.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    public mutating func append(_ bytes: some Collection<UInt8>) {
        // Compact once the consumed prefix dominates, so the buffer does not grow without bound.
        if readIndex > 0, readIndex >= buffer.count / 2 {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    private mutating func fail(_ code: WebSocketCloseCode, _ reason: String) -> Failure {
        let f = Failure(code: code, reason: reason)
        failure = f
        return f
    }

    /// The next event, nil when more bytes are needed. Throws once the stream breaks the protocol.
    public mutating func next() throws(Failure) -> Event? {
        if let failure { throw failure }
        while true {
            let available = buffer.count - readIndex
            guard available >= 2 else { return nil }
            let b0 = buffer[readIndex], b1 = buffer[readIndex + 1]
            let fin = b0 & 0x80 != 0
            let rsv = b0 & 0x70
            let opcode = WebSocketOpcode(rawValue: b0 & 0x0F)
            let masked = b1 & 0x80 != 0
            let len7 = b1 & 0x7F

            if rsv != 0 { throw fail(.protocolError, "reserved bits set in a frame header (no extension was negotiated)") }
            switch opcode {
            case .continuation, .text, .binary, .close, .ping, .pong: break
            default: throw fail(.protocolError, "unknown \(opcode)")
            }
            if requireMasked, !masked { throw fail(.protocolError, "a client frame was not masked") }
            if !requireMasked, masked { throw fail(.protocolError, "a server frame was masked") }

            var headerLength = 2
            var length: UInt64
            if len7 == 126 {
                guard available >= 4 else { return nil }
                length = UInt64(buffer[readIndex + 2]) << 8 | UInt64(buffer[readIndex + 3])
                if length < 126 { throw fail(.protocolError, "a frame length was not minimally encoded") }
                headerLength = 4
            } else if len7 == 127 {
                guard available >= 10 else { return nil }
                length = 0
                for i in 0..<8 { length = length << 8 | UInt64(buffer[readIndex + 2 + i]) }
                if length >> 63 != 0 { throw fail(.protocolError, "a 64-bit frame length had its top bit set") }
                if length <= 0xFFFF { throw fail(.protocolError, "a frame length was not minimally encoded") }
                headerLength = 10
            } else {
                length = UInt64(len7)
            }

            if opcode.isControl {
                if !fin { throw fail(.protocolError, "a fragmented \(opcode) frame") }
                if length > 125 { throw fail(.protocolError, "a \(opcode) frame longer than 125 bytes") }
            } else if opcode == .continuation {
                if fragmentOpcode == nil { throw fail(.protocolError, "a continuation frame with no message to continue") }
            } else if fragmentOpcode != nil {
                throw fail(.protocolError, "a new \(opcode) message began before the fragmented one ended")
            }
            if !opcode.isControl {
                let soFar = UInt64(fragments.count)
                if length > UInt64(maxMessageSize) || soFar + length > UInt64(maxMessageSize) {
                    throw fail(.messageTooBig, "message larger than the \(maxMessageSize)-byte limit")
                }
            }

            let maskLength = masked ? 4 : 0
            let total = headerLength + maskLength + Int(length)
            guard available >= total else { return nil }

            let payloadStart = readIndex + headerLength + maskLength
            var payload = Array(buffer[payloadStart..<(payloadStart + Int(length))])
            if masked {
                let k0 = buffer[readIndex + headerLength], k1 = buffer[readIndex + headerLength + 1]
                let k2 = buffer[readIndex + headerLength + 2], k3 = buffer[readIndex + headerLength + 3]
                let key = [k0, k1, k2, k3]
                payload.withUnsafeMutableBufferPointer { p in
                    for i in p.indices { p[i] ^= key[i & 3] }
                }
            }
            readIndex += total
            if readIndex == buffer.count {
                buffer.removeAll(keepingCapacity: buffer.count <= 1 << 16)
                readIndex = 0
            }

            switch opcode {
            case .ping: return .ping(payload)
            case .pong: return .pong(payload)
            case .close: return try closeEvent(payload)
            case .continuation:
                fragments.append(contentsOf: payload)
                if fin {
                    let op = fragmentOpcode!
                    let message = fragments
                    fragmentOpcode = nil
                    fragments = []
                    return try complete(op, message)
                }
            default:  // text, binary
                if fin { return try complete(opcode, payload) }
                fragmentOpcode = opcode
                fragments = payload
            }
        }
    }

    private mutating func complete(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws(Failure) -> Event {
        if opcode == .binary { return .binary(payload) }
        guard String(validating: payload, as: UTF8.self) != nil else {
            throw fail(.invalidPayload, "a text message that is not valid UTF-8")
        }
        return .text(payload)
    }

    private mutating func closeEvent(_ payload: [UInt8]) throws(Failure) -> Event {
        if payload.isEmpty { return .close(code: nil, reason: "") }
        if payload.count == 1 { throw fail(.protocolError, "a close frame with a 1-byte payload") }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        if !code.isValidOnWire { throw fail(.protocolError, "close code \(code) may not be sent") }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else {
            throw fail(.invalidPayload, "a close reason that is not valid UTF-8")
        }
        return .close(code: code, reason: reason)
    }
}
