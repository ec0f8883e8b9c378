/// One step of a streaming TLV read.
public enum TLVToken: Hashable, Sendable {
    /// A scalar element (never `.container`).
    case scalar(TLVTag, TLVValue)
    /// The start of a container; its members follow until the matching `.endOfContainer`.
    case startContainer(TLVTag, TLVContainerKind)
    case endOfContainer
}

/// A streaming view over TLV bytes: yields one token at a time without building a tree.
///
/// It checks every length against the input and tracks container depth, so callers that
/// skip unknown elements cannot be led out of bounds. It does not check that the input holds a
/// single element; `TLVDecoder` does.
public struct TLVReader: Sendable {
    public let bytes: [UInt8]
    /// Offset of the next unread byte.
    public private(set) var offset: Int
    /// Current container depth (0 at top level).
    public private(set) var depth: Int = 0
    public let maxDepth: Int
    /// The kinds of the open containers, innermost last.
    private var open: [(kind: TLVContainerKind, start: Int)] = []

    public init(_ bytes: [UInt8], maxDepth: Int = 32) {
        self.bytes = bytes
        self.offset = 0
        self.maxDepth = maxDepth
    }

    public var isAtEnd: Bool { offset >= bytes.count }

    /// The start offset of the innermost open container, for error messages.
    public var openContainerStart: Int? { open.last?.start }

    /// Reads the next token, or returns nil at the end of the input.
    public mutating func next() throws(TLVError) -> TLVToken? {
        guard offset < bytes.count else {
            if let c = open.last { throw .unterminatedContainer(offset: c.start) }
            return nil
        }
        let start = offset
        let control = bytes[offset]
        offset += 1
        let type = control & 0x1F
        guard let tagControl = TagControl(rawValue: control >> 5) else {
            throw .invalidElementType(control, offset: start)  // unreachable: 3 bits always map
        }

        if type == 0x18 {
            guard tagControl == .anonymous, !open.isEmpty else { throw .unexpectedEndOfContainer(offset: start) }
            open.removeLast()
            depth -= 1
            return .endOfContainer
        }
        guard type <= 0x17 else { throw .invalidElementType(type, offset: start) }

        let tag = try readTag(tagControl)
        try checkTag(tag, at: start)

        switch type {
        case 0x00...0x03:
            let raw = try readLittleEndian(width: 1 << Int(type))
            return .scalar(tag, .signed(signExtend(raw, width: 1 << Int(type))))
        case 0x04...0x07:
            return .scalar(tag, .unsigned(try readLittleEndian(width: 1 << Int(type - 4))))
        case 0x08: return .scalar(tag, .bool(false))
        case 0x09: return .scalar(tag, .bool(true))
        case 0x0A: return .scalar(tag, .float(Float(bitPattern: UInt32(try readLittleEndian(width: 4)))))
        case 0x0B: return .scalar(tag, .double(Double(bitPattern: try readLittleEndian(width: 8))))
        case 0x0C...0x0F:
            let data = try readLengthPrefixed(width: 1 << Int(type - 0x0C))
            guard let s = String(validating: data, as: UTF8.self) else { throw .invalidUTF8(offset: start) }
            return .scalar(tag, .utf8(s))
        case 0x10...0x13:
            return .scalar(tag, .bytes(try readLengthPrefixed(width: 1 << Int(type - 0x10))))
        case 0x14: return .scalar(tag, .null)
        default:
            let kind: TLVContainerKind = type == 0x15 ? .structure : (type == 0x16 ? .array : .list)
            guard open.count < maxDepth else { throw .depthLimitExceeded(limit: maxDepth) }
            open.append((kind, start))
            depth += 1
            return .startContainer(tag, kind)
        }
    }

    /// Skips the rest of the container whose start token was just read.
    public mutating func skipContainer() throws(TLVError) {
        let target = depth - 1
        while depth > target {
            guard try next() != nil else { throw .underrun(offset: offset) }
        }
    }

    // MARK: - Primitive reads

    private mutating func readLittleEndian(width: Int) throws(TLVError) -> UInt64 {
        guard bytes.count - offset >= width else { throw .underrun(offset: offset) }
        var v: UInt64 = 0
        for i in 0..<width { v |= UInt64(bytes[offset + i]) << (8 * i) }
        offset += width
        return v
    }

    private func signExtend(_ raw: UInt64, width: Int) -> Int64 {
        let shift = UInt64(64 - 8 * width)
        return Int64(bitPattern: raw << shift) >> shift
    }

    private mutating func readLengthPrefixed(width: Int) throws(TLVError) -> [UInt8] {
        let lengthOffset = offset
        let length = try readLittleEndian(width: width)
        guard length <= UInt64(bytes.count - offset) else {
            throw offset == bytes.count && length > 0 ? .underrun(offset: offset) : .lengthTooLarge(offset: lengthOffset)
        }
        let n = Int(length)
        defer { offset += n }
        return Array(bytes[offset..<offset + n])
    }

    private mutating func readTag(_ control: TagControl) throws(TLVError) -> TLVTag {
        switch control {
        case .anonymous: return .anonymous
        case .context: return .context(UInt8(try readLittleEndian(width: 1)))
        case .commonProfile2: return .commonProfile(UInt32(try readLittleEndian(width: 2)))
        case .commonProfile4: return .commonProfile(UInt32(try readLittleEndian(width: 4)))
        case .implicitProfile2: return .implicitProfile(UInt32(try readLittleEndian(width: 2)))
        case .implicitProfile4: return .implicitProfile(UInt32(try readLittleEndian(width: 4)))
        case .fullyQualified6, .fullyQualified8:
            let vendor = UInt16(try readLittleEndian(width: 2))
            let profile = UInt16(try readLittleEndian(width: 2))
            let n = UInt32(try readLittleEndian(width: control == .fullyQualified6 ? 2 : 4))
            return .fullyQualified(vendorID: vendor, profile: profile, tag: n)
        }
    }

    /// Arrays hold anonymous members only; structures hold tagged members only (Matter Core A.11).
    private func checkTag(_ tag: TLVTag, at start: Int) throws(TLVError) {
        switch open.last?.kind {
        case .array? where tag != .anonymous: throw .invalidTagInContainer(tag, offset: start)
        case .structure? where tag == .anonymous: throw .invalidTagInContainer(tag, offset: start)
        default: return
        }
    }
}
