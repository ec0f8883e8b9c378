/// A StatusReport message (Matter Core Appendix D): general code, protocol and protocol-specific
/// code, optional data.
public struct StatusReport: Hashable, Sendable {
    public var generalCode: GeneralCode
    public var protocolID: ProtocolID
    public var protocolCode: UInt16
    public var data: [UInt8]

    public init(generalCode: GeneralCode, protocolID: ProtocolID, protocolCode: UInt16, data: [UInt8] = []) {
        self.generalCode = generalCode
        self.protocolID = protocolID
        self.protocolCode = protocolCode
        self.data = data
    }

    public struct GeneralCode: Hashable, Sendable, CustomStringConvertible {
        public var rawValue: UInt16
        public init(_ rawValue: UInt16) { self.rawValue = rawValue }
        public static let success = GeneralCode(0)
        public static let failure = GeneralCode(1)
        public static let badPrecondition = GeneralCode(2)
        public static let outOfRange = GeneralCode(3)
        public static let badRequest = GeneralCode(4)
        public static let unsupported = GeneralCode(5)
        public static let unexpected = GeneralCode(6)
        public static let resourceExhausted = GeneralCode(7)
        public static let busy = GeneralCode(8)
        public static let timeout = GeneralCode(9)
        public static let `continue` = GeneralCode(10)
        public static let aborted = GeneralCode(11)
        public static let invalidArgument = GeneralCode(12)
        public static let notFound = GeneralCode(13)
        public static let alreadyExists = GeneralCode(14)
        public static let permissionDenied = GeneralCode(15)
        public static let dataLoss = GeneralCode(16)

        public var description: String {
            let names = ["SUCCESS", "FAILURE", "BAD_PRECONDITION", "OUT_OF_RANGE", "BAD_REQUEST", "UNSUPPORTED",
                         "UNEXPECTED", "RESOURCE_EXHAUSTED", "BUSY", "TIMEOUT", "CONTINUE", "ABORTED",
                         "INVALID_ARGUMENT", "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "DATA_LOSS"]
            return Int(rawValue) < names.count ? names[Int(rawValue)] : "general code \(rawValue)"
        }
    }

    /// Protocol codes of the Secure Channel protocol (Matter Core 4.11.1.4).
    public enum SecureChannelCode {
        public static let sessionEstablishmentSuccess: UInt16 = 0
        public static let noSharedTrustRoots: UInt16 = 1
        public static let invalidParameter: UInt16 = 2
        public static let closeSession: UInt16 = 3
        public static let busy: UInt16 = 4
    }

    public var isSuccess: Bool { generalCode == .success }

    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.appendLittleEndian(generalCode.rawValue)
        out.appendLittleEndian(protocolID.fullID)
        out.appendLittleEndian(protocolCode)
        return out + data
    }

    public static func decode(_ bytes: [UInt8]) throws(MessagingError) -> StatusReport {
        var r = ByteReader(bytes)
        let general = try r.u16()
        let proto = try r.u32()
        let code = try r.u16()
        return StatusReport(generalCode: GeneralCode(general), protocolID: ProtocolID(fullID: proto),
                            protocolCode: code, data: r.rest())
    }

    /// A readable summary, e.g. "FAILURE (SecureChannel code 2: invalid parameter)".
    public var summary: String {
        var text = "\(generalCode) (\(protocolID) code \(protocolCode)"
        if protocolID == .secureChannel {
            let names = ["session established", "no shared trust roots", "invalid parameter", "close session", "busy"]
            if Int(protocolCode) < names.count { text += ": " + names[Int(protocolCode)] }
        }
        return text + ")"
    }
}
