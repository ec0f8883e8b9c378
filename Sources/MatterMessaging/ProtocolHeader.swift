/// A protocol identifier: vendor ID (0 for Matter) and protocol number.
public struct ProtocolID: Hashable, Sendable, CustomStringConvertible {
    public var vendorID: UInt16
    public var number: UInt16
    public init(vendorID: UInt16 = 0, _ number: UInt16) {
        self.vendorID = vendorID
        self.number = number
    }
    public static let secureChannel = ProtocolID(0x0000)
    public static let interactionModel = ProtocolID(0x0001)
    public static let bdx = ProtocolID(0x0002)
    public static let userDirectedCommissioning = ProtocolID(0x0003)

    /// The 32-bit form used in StatusReport: vendor << 16 | protocol.
    public var fullID: UInt32 { UInt32(vendorID) << 16 | UInt32(number) }
    public init(fullID: UInt32) {
        self.init(vendorID: UInt16(fullID >> 16), UInt16(truncatingIfNeeded: fullID))
    }

    public var description: String {
        switch self {
        case .secureChannel: return "SecureChannel"
        case .interactionModel: return "InteractionModel"
        case .bdx: return "BDX"
        case .userDirectedCommissioning: return "UDC"
        default: return "0x\(String(vendorID, radix: 16)):0x\(String(number, radix: 16))"
        }
    }
}

/// The protocol header at the start of a message's (encrypted) payload (Matter Core 4.4.3).
public struct ProtocolHeader: Hashable, Sendable {
    /// I flag: sent by the exchange's initiator.
    public var isInitiator: Bool
    /// R flag: the sender wants an acknowledgement (MRP).
    public var needsAck: Bool
    /// A flag with the counter of the message this one acknowledges.
    public var ackCounter: UInt32?
    public var opcode: UInt8
    public var exchangeID: UInt16
    public var protocolID: ProtocolID
    /// SX block: skipped by receivers, kept for round trips.
    public var securedExtensions: [UInt8]?

    public init(isInitiator: Bool, needsAck: Bool, ackCounter: UInt32? = nil, opcode: UInt8, exchangeID: UInt16,
                protocolID: ProtocolID, securedExtensions: [UInt8]? = nil) {
        self.isInitiator = isInitiator
        self.needsAck = needsAck
        self.ackCounter = ackCounter
        self.opcode = opcode
        self.exchangeID = exchangeID
        self.protocolID = protocolID
        self.securedExtensions = securedExtensions
    }

    enum Flag {
        static let initiator: UInt8 = 0x01
        static let ack: UInt8 = 0x02
        static let reliable: UInt8 = 0x04
        static let securedExtensions: UInt8 = 0x08
        static let vendor: UInt8 = 0x10
    }

    public func encoded() -> [UInt8] {
        var flags: UInt8 = 0
        if isInitiator { flags |= Flag.initiator }
        if ackCounter != nil { flags |= Flag.ack }
        if needsAck { flags |= Flag.reliable }
        if securedExtensions != nil { flags |= Flag.securedExtensions }
        if protocolID.vendorID != 0 { flags |= Flag.vendor }
        var out: [UInt8] = [flags, opcode]
        out.appendLittleEndian(exchangeID)
        if protocolID.vendorID != 0 { out.appendLittleEndian(protocolID.vendorID) }
        out.appendLittleEndian(protocolID.number)
        if let ack = ackCounter { out.appendLittleEndian(ack) }
        if let sx = securedExtensions {
            out.appendLittleEndian(UInt16(truncatingIfNeeded: sx.count))
            out += sx
        }
        return out
    }

    /// Decodes the protocol header at the start of a (decrypted) payload; returns it with its length.
    public static func decode(_ bytes: [UInt8]) throws(MessagingError) -> (ProtocolHeader, Int) {
        var r = ByteReader(bytes)
        let flags = try r.u8()
        let opcode = try r.u8()
        let exchangeID = try r.u16()
        let vendor = flags & Flag.vendor != 0 ? try r.u16() : 0
        let number = try r.u16()
        let ack = flags & Flag.ack != 0 ? try r.u32() : nil
        var sx: [UInt8]?
        if flags & Flag.securedExtensions != 0 {
            sx = try r.take(Int(try r.u16()))
        }
        let header = ProtocolHeader(isInitiator: flags & Flag.initiator != 0, needsAck: flags & Flag.reliable != 0,
                                    ackCounter: ack, opcode: opcode, exchangeID: exchangeID,
                                    protocolID: ProtocolID(vendorID: vendor, number), securedExtensions: sx)
        return (header, r.offset)
    }
}

/// Opcodes of the Secure Channel protocol (Matter Core 4.11.1.3).
public struct SecureChannelOpcode: Hashable, Sendable {
    public var rawValue: UInt8
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }
    public static let messageCounterSyncRequest = SecureChannelOpcode(0x00)
    public static let messageCounterSyncResponse = SecureChannelOpcode(0x01)
    public static let standaloneAck = SecureChannelOpcode(0x10)
    public static let pbkdfParamRequest = SecureChannelOpcode(0x20)
    public static let pbkdfParamResponse = SecureChannelOpcode(0x21)
    public static let pake1 = SecureChannelOpcode(0x22)
    public static let pake2 = SecureChannelOpcode(0x23)
    public static let pake3 = SecureChannelOpcode(0x24)
    public static let sigma1 = SecureChannelOpcode(0x30)
    public static let sigma2 = SecureChannelOpcode(0x31)
    public static let sigma3 = SecureChannelOpcode(0x32)
    public static let sigma2Resume = SecureChannelOpcode(0x33)
    public static let statusReport = SecureChannelOpcode(0x40)
    public static let icdCheckIn = SecureChannelOpcode(0x50)
}
