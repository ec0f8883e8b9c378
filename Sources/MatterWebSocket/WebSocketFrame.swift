/// A WebSocket frame opcode (RFC 6455 section 5.2).
public struct WebSocketOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let continuation = WebSocketOpcode(rawValue: 0x0)
    public static let text = WebSocketOpcode(rawValue: 0x1)
    public static let binary = WebSocketOpcode(rawValue: 0x2)
    public static let close = WebSocketOpcode(rawValue: 0x8)
    public static let ping = WebSocketOpcode(rawValue: 0x9)
    public static let pong = WebSocketOpcode(rawValue: 0xA)

    /// Control frames (close, ping, pong) have the high bit of the opcode set.
    public var isControl: Bool { rawValue & 0x8 != 0 }

    public var description: String {
        switch self {
        case .continuation: return "continuation"
        case .text: return "text"
        case .binary: return "binary"
        case .close: return "close"
        case .ping: return "ping"
        case .pong: return "pong"
        default: return "opcode 0x\(String(rawValue, radix: 16))"
        }
    }
}

/// A close status code (RFC 6455 section 7.4).
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let normal = WebSocketCloseCode(rawValue: 1000)
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// A data type the endpoint does not accept (binary frames here).
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// Text that is not UTF-8 (or a payload that is not what the protocol expects).
    public static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    public static let internalError = WebSocketCloseCode(rawValue: 1011)
    /// The server restarts what the client relies on: reconnect (RFC 6455's registry, 1012).
    public static let serviceRestart = WebSocketCloseCode(rawValue: 1012)
    public static let tryAgainLater = WebSocketCloseCode(rawValue: 1013)

    /// Whether a peer may send this code in a close frame: 1000-1003, 1007-1014 and 3000-4999
    /// (1004-1006 and 1015 are reserved and never on the wire).
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    public var description: String { String(rawValue) }
}

/// Builds frames. Server frames are unmasked; a client (tests) passes a masking key.
public enum WebSocketFrame {
    /// One frame. `fin` false starts or continues a fragmented message.
    public static func encode(_ opcode: WebSocketOpcode, _ payload: some Collection<UInt8>, fin: Bool = true,
                              maskingKey: [UInt8]? = nil, rsv: UInt8 = 0) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 14)
        out.append((fin ? 0x80 : 0) | (rsv & 0x7) << 4 | opcode.rawValue & 0x0F)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        let n = payload.count
        if n < 126 {
            out.append(maskBit | UInt8(n))
        } else if n <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(n >> 8))
            out.append(UInt8(n & 0xFF))
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: UInt64(n) >> UInt64(shift))) }
        }
        if let key = maskingKey {
            precondition(key.count == 4, "a masking key has 4 bytes")
            out.append(contentsOf: key)
            for (i, b) in payload.enumerated() { out.append(b ^ key[i & 3]) }
        } else {
            out.append(contentsOf: payload)
        }
        return out
    }

    /// A close frame with a code and a reason (cut to fit the 125-byte control payload).
    public static func close(_ code: WebSocketCloseCode, reason: String, maskingKey: [UInt8]? = nil) -> [UInt8] {
        var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        payload.append(contentsOf: utf8Prefix(reason, maxBytes: 123))
        return encode(.close, payload, maskingKey: maskingKey)
    }

    /// The longest prefix of `text` in at most `maxBytes` UTF-8 bytes that ends on a character.
    static func utf8Prefix(_ text: String, maxBytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        for ch in text {
            let bytes = Array(String(ch).utf8)
            if out.count + bytes.count > maxBytes { break }
            out.append(contentsOf: bytes)
        }
        return out
    }
}
