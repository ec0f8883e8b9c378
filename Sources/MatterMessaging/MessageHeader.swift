/// Node IDs are UInt64 and group IDs UInt16 at this layer; typed identifiers live in MatterCertificates.

/// The unencrypted message header that starts every Matter message (Matter Core 4.4.1):
/// message flags, session ID, security flags, message counter, optional source node ID,
/// optional destination node or group ID, optional message extensions.
public struct MessageHeader: Hashable, Sendable {
    public enum Destination: Hashable, Sendable {
        case none
        case node(UInt64)
        case group(UInt16)
    }

    public enum SessionType: UInt8, Sendable {
        case unicast = 0
        case group = 1
    }

    public var sessionID: UInt16
    public var sessionType: SessionType
    /// P flag: the header is obfuscated with the privacy key.
    public var privacy: Bool
    /// C flag: a control message (e.g. message counter synchronization).
    public var control: Bool
    public var messageCounter: UInt32
    public var sourceNodeID: UInt64?
    public var destination: Destination
    /// MX block: skipped by receivers, kept for round trips.
    public var messageExtensions: [UInt8]?
    /// Reserved bits of the message flags (bit 3) and security flags (bits 2-4) as received:
    /// ignored, but kept so the security flags in the nonce are exactly the bytes sent.
    public var reservedMessageFlags: UInt8 = 0
    public var reservedSecurityFlags: UInt8 = 0

    public init(sessionID: UInt16, sessionType: SessionType = .unicast, privacy: Bool = false, control: Bool = false,
                messageCounter: UInt32, sourceNodeID: UInt64? = nil, destination: Destination = .none,
                messageExtensions: [UInt8]? = nil) {
        self.sessionID = sessionID
        self.sessionType = sessionType
        self.privacy = privacy
        self.control = control
        self.messageCounter = messageCounter
        self.sourceNodeID = sourceNodeID
        self.destination = destination
        self.messageExtensions = messageExtensions
    }

    /// Session ID 0 with unicast type is the unsecured session used before PASE/CASE.
    public var isUnsecured: Bool { sessionID == 0 && sessionType == .unicast }

    enum Flag {
        static let sourcePresent: UInt8 = 0x04
        static let destinationNode: UInt8 = 0x01
        static let destinationGroup: UInt8 = 0x02
        static let privacy: UInt8 = 0x80
        static let control: UInt8 = 0x40
        static let messageExtensions: UInt8 = 0x20
    }

    /// The security flags byte as sent; also the first byte of the AES-CCM nonce.
    public var securityFlags: UInt8 {
        (privacy ? Flag.privacy : 0) | (control ? Flag.control : 0)
            | (messageExtensions != nil ? Flag.messageExtensions : 0) | sessionType.rawValue | reservedSecurityFlags
    }

    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        var flags: UInt8 = (sourceNodeID != nil ? Flag.sourcePresent : 0) | reservedMessageFlags
        switch destination {
        case .none: break
        case .node: flags |= Flag.destinationNode
        case .group: flags |= Flag.destinationGroup
        }
        out.append(flags)
        out.appendLittleEndian(sessionID)
        out.append(securityFlags)
        out.appendLittleEndian(messageCounter)
        if let s = sourceNodeID { out.appendLittleEndian(s) }
        switch destination {
        case .none: break
        case .node(let n): out.appendLittleEndian(n)
        case .group(let g): out.appendLittleEndian(g)
        }
        if let mx = messageExtensions {
            out.appendLittleEndian(UInt16(truncatingIfNeeded: mx.count))
            out += mx
        }
        return out
    }

    /// Decodes the header at the start of `bytes`; returns it with its length.
    public static func decode(_ bytes: [UInt8]) throws(MessagingError) -> (MessageHeader, Int) {
        var r = ByteReader(bytes)
        let flags = try r.u8()
        guard flags >> 4 == 0 else { throw .unsupportedVersion(flags >> 4) }
        let sessionID = try r.u16()
        let security = try r.u8()
        guard let type = SessionType(rawValue: security & 0x03) else { throw .reservedSessionType(security & 0x03) }
        let counter = try r.u32()
        let source: UInt64? = flags & Flag.sourcePresent != 0 ? try r.u64() : nil
        let destination: Destination
        switch flags & 0x03 {
        case 0: destination = .none
        case 1: destination = .node(try r.u64())
        case 2: destination = .group(try r.u16())
        default: throw .reservedDestinationSize
        }
        var extensions: [UInt8]?
        if security & Flag.messageExtensions != 0 {
            let n = Int(try r.u16())
            extensions = try r.take(n)
        }
        var header = MessageHeader(sessionID: sessionID, sessionType: type, privacy: security & Flag.privacy != 0,
                                   control: security & Flag.control != 0, messageCounter: counter,
                                   sourceNodeID: source, destination: destination, messageExtensions: extensions)
        header.reservedMessageFlags = flags & 0x08
        header.reservedSecurityFlags = security & 0x1C
        return (header, r.offset)
    }
}
