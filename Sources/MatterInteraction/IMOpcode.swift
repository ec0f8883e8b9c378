/// A message type of the Interaction Model protocol (protocol ID 0x0001, Matter Core 10.2.1).
///
/// An open set: values this code does not name still round-trip.
public struct IMOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// The protocol ID of the Interaction Model in the Matter common vendor space.
    public static let protocolID: UInt16 = 0x0001

    public static let statusResponse = IMOpcode(0x01)
    public static let readRequest = IMOpcode(0x02)
    public static let subscribeRequest = IMOpcode(0x03)
    public static let subscribeResponse = IMOpcode(0x04)
    public static let reportData = IMOpcode(0x05)
    public static let writeRequest = IMOpcode(0x06)
    public static let writeResponse = IMOpcode(0x07)
    public static let invokeRequest = IMOpcode(0x08)
    public static let invokeResponse = IMOpcode(0x09)
    public static let timedRequest = IMOpcode(0x0A)

    public var name: String? {
        switch rawValue {
        case 0x01: return "StatusResponse"
        case 0x02: return "ReadRequest"
        case 0x03: return "SubscribeRequest"
        case 0x04: return "SubscribeResponse"
        case 0x05: return "ReportData"
        case 0x06: return "WriteRequest"
        case 0x07: return "WriteResponse"
        case 0x08: return "InvokeRequest"
        case 0x09: return "InvokeResponse"
        case 0x0A: return "TimedRequest"
        default: return nil
        }
    }

    public var description: String {
        let hex = "0x" + String(rawValue, radix: 16, uppercase: true)
        return name.map { "\($0) (\(hex))" } ?? "opcode \(hex)"
    }
}
