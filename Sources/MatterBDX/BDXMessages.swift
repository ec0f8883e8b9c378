/// Bulk Data Exchange messages (Matter Core 11.22.5), protocol 0x0002: little-endian binary, not
/// TLV. Sans-I/O: encode to bytes, decode from bytes with a typed error.

public enum BDXOpcode: UInt8, Sendable, Hashable {
    case sendInit = 0x01, sendAccept = 0x02, receiveInit = 0x04, receiveAccept = 0x05
    case blockQuery = 0x10, block = 0x11, blockEOF = 0x12, blockAck = 0x13, blockAckEOF = 0x14, blockQueryWithSkip = 0x15
}

/// The BDX status codes of a StatusReport (Matter Core 11.22.5.9 / the SDK's StatusCode).
public struct BDXStatus: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    public static let lengthTooLarge = BDXStatus(0x12)
    public static let lengthTooShort = BDXStatus(0x13)
    public static let lengthMismatch = BDXStatus(0x14)
    public static let lengthRequired = BDXStatus(0x15)
    public static let badMessageContents = BDXStatus(0x16)
    public static let badBlockCounter = BDXStatus(0x17)
    public static let unexpectedMessage = BDXStatus(0x18)
    public static let responderBusy = BDXStatus(0x19)
    public static let transferFailedUnknownError = BDXStatus(0x1F)
    public static let transferMethodNotSupported = BDXStatus(0x50)
    public static let fileDesignatorUnknown = BDXStatus(0x51)
    public static let startOffsetNotSupported = BDXStatus(0x52)
    public static let versionNotSupported = BDXStatus(0x53)
    public static let unknown = BDXStatus(0x5F)

    public var description: String {
        let names: [UInt16: String] = [0x12: "LengthTooLarge", 0x13: "LengthTooShort", 0x14: "LengthMismatch", 0x15: "LengthRequired",
                                       0x16: "BadMessageContents", 0x17: "BadBlockCounter", 0x18: "UnexpectedMessage",
                                       0x19: "ResponderBusy", 0x1F: "TransferFailedUnknownError", 0x50: "TransferMethodNotSupported",
                                       0x51: "FileDesignatorUnknown", 0x52: "StartOffsetNotSupported", 0x53: "VersionNotSupported",
                                       0x5F: "Unknown"]
        return "\(names[rawValue] ?? "status") (0x\(String(rawValue, radix: 16, uppercase: true)))"
    }
}

/// Proposed or chosen transfer control: the version (low 4 bits) and the drive modes.
public struct BDXTransferControl: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let senderDrive = BDXTransferControl(rawValue: 0x10)
    public static let receiverDrive = BDXTransferControl(rawValue: 0x20)
    public static let async = BDXTransferControl(rawValue: 0x40)
}

/// Why bytes are not a BDX message.
public struct BDXDecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Reads little-endian fields, throwing at the end of the bytes.
struct BDXReader {
    let bytes: [UInt8]
    var at = 0
    let what: String

    mutating func u8() throws(BDXDecodeError) -> UInt8 { UInt8(try uint(1)) }
    mutating func u16() throws(BDXDecodeError) -> UInt16 { UInt16(try uint(2)) }
    mutating func u32() throws(BDXDecodeError) -> UInt32 { UInt32(try uint(4)) }
    mutating func u64() throws(BDXDecodeError) -> UInt64 { try uint(8) }

    mutating func uint(_ n: Int) throws(BDXDecodeError) -> UInt64 {
        guard bytes.count - at >= n else { throw BDXDecodeError(message: "\(what): ends at byte \(bytes.count), a field needs \(n) more") }
        defer { at += n }
        return (0..<n).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * $1) }
    }

    mutating func take(_ n: Int) throws(BDXDecodeError) -> [UInt8] {
        guard bytes.count - at >= n else { throw BDXDecodeError(message: "\(what): ends at byte \(bytes.count), \(n) bytes expected") }
        defer { at += n }
        return Array(bytes[at..<at + n])
    }

    var rest: [UInt8] { Array(bytes[at...]) }
}

extension Array where Element == UInt8 {
    mutating func appendLE<T: FixedWidthInteger>(_ v: T) {
        for i in 0..<(T.bitWidth / 8) { append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }
}

/// The range control byte and the optional start offset and length it announces (32-bit unless
/// either needs 64), shared by TransferInit and ReceiveAccept.
enum BDXRange {
    static let definiteLength: UInt8 = 0x01
    static let startOffset: UInt8 = 0x02
    static let wide: UInt8 = 0x10

    /// The first two bytes and the range fields: `control`, the range byte, the block size, then
    /// the offset and length that are not zero.
    static func encode(control: UInt8, maxBlockSize: UInt16, startOffset: UInt64, length: UInt64) -> [UInt8] {
        let wide = startOffset > UInt32.max || length > UInt32.max
        var range: UInt8 = 0
        if length > 0 { range |= definiteLength }
        if startOffset > 0 { range |= Self.startOffset }
        if wide { range |= Self.wide }
        var out: [UInt8] = [control, range]
        out.appendLE(maxBlockSize)
        for v in [startOffset, length] where v > 0 { if wide { out.appendLE(v) } else { out.appendLE(UInt32(v)) } }
        return out
    }

    /// Reads what ``encode`` wrote: (control, block size, start offset, length).
    static func decode(_ r: inout BDXReader) throws(BDXDecodeError) -> (UInt8, UInt16, UInt64, UInt64) {
        let control = try r.u8(), range = try r.u8(), blockSize = try r.u16()
        let isWide = range & wide != 0
        let offset = range & startOffset != 0 ? (isWide ? try r.u64() : UInt64(try r.u32())) : 0
        let length = range & definiteLength != 0 ? (isWide ? try r.u64() : UInt64(try r.u32())) : 0
        return (control, blockSize, offset, length)
    }
}

/// SendInit and ReceiveInit (same layout): what the initiator proposes.
public struct BDXTransferInit: Hashable, Sendable {
    public var version: UInt8 = 0
    public var control: BDXTransferControl
    public var maxBlockSize: UInt16
    /// 0: from the start.
    public var startOffset: UInt64 = 0
    /// 0: no definite length (to the end).
    public var maxLength: UInt64 = 0
    public var fileDesignator: [UInt8]
    public var metadata: [UInt8] = []

    public init(control: BDXTransferControl, maxBlockSize: UInt16, startOffset: UInt64 = 0, maxLength: UInt64 = 0,
                fileDesignator: [UInt8], metadata: [UInt8] = []) {
        self.control = control
        self.maxBlockSize = maxBlockSize
        self.startOffset = startOffset
        self.maxLength = maxLength
        self.fileDesignator = fileDesignator
        self.metadata = metadata
    }

    public func encoded() -> [UInt8] {
        var out = BDXRange.encode(control: version & 0x0F | control.rawValue, maxBlockSize: maxBlockSize, startOffset: startOffset,
                                  length: maxLength)
        out.appendLE(UInt16(fileDesignator.count))
        return out + fileDesignator + metadata
    }

    public init(decoding bytes: [UInt8]) throws(BDXDecodeError) {
        var r = BDXReader(bytes: bytes, what: "TransferInit")
        let (control, blockSize, offset, length) = try BDXRange.decode(&r)
        version = control & 0x0F
        self.control = BDXTransferControl(rawValue: control & 0xF0)
        maxBlockSize = blockSize
        startOffset = offset
        maxLength = length
        let designatorLength = Int(try r.u16())
        fileDesignator = try r.take(designatorLength)
        metadata = r.rest
    }
}

/// ReceiveAccept: the sender's choice (one drive mode), block size and length.
public struct BDXReceiveAccept: Hashable, Sendable {
    public var version: UInt8 = 0
    public var control: BDXTransferControl
    public var maxBlockSize: UInt16
    public var startOffset: UInt64 = 0
    /// 0: no definite length.
    public var length: UInt64
    public var metadata: [UInt8] = []

    public init(control: BDXTransferControl, maxBlockSize: UInt16, startOffset: UInt64 = 0, length: UInt64) {
        self.control = control
        self.maxBlockSize = maxBlockSize
        self.startOffset = startOffset
        self.length = length
    }

    public func encoded() -> [UInt8] {
        BDXRange.encode(control: version & 0x0F | control.rawValue, maxBlockSize: maxBlockSize, startOffset: startOffset,
                        length: length) + metadata
    }

    public init(decoding bytes: [UInt8]) throws(BDXDecodeError) {
        var r = BDXReader(bytes: bytes, what: "ReceiveAccept")
        let (control, blockSize, offset, length) = try BDXRange.decode(&r)
        version = control & 0x0F
        self.control = BDXTransferControl(rawValue: control & 0xF0)
        maxBlockSize = blockSize
        startOffset = offset
        self.length = length
        metadata = r.rest
    }
}

/// BlockQuery, BlockAck and BlockAckEOF: a block counter.
public struct BDXCounter: Hashable, Sendable {
    public var counter: UInt32
    public init(_ counter: UInt32) { self.counter = counter }
    public func encoded() -> [UInt8] { var out: [UInt8] = []; out.appendLE(counter); return out }
    public init(decoding bytes: [UInt8]) throws(BDXDecodeError) {
        var r = BDXReader(bytes: bytes, what: "block counter")
        counter = try r.u32()
    }
}

/// Block and BlockEOF: a counter and data.
public struct BDXBlock: Hashable, Sendable {
    public var counter: UInt32
    public var data: [UInt8]
    public init(counter: UInt32, data: [UInt8]) {
        self.counter = counter
        self.data = data
    }
    public func encoded() -> [UInt8] { var out: [UInt8] = []; out.appendLE(counter); return out + data }
    public init(decoding bytes: [UInt8]) throws(BDXDecodeError) {
        var r = BDXReader(bytes: bytes, what: "Block")
        counter = try r.u32()
        data = r.rest
    }
}
