/// Writes TLV, always in the shortest form: integers, lengths and tags take the fewest bytes
/// that hold their value (Matter Core A.7: encoders should use the smallest encoding).
public struct TLVWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// Encodes one element tree.
    public static func encode(_ element: TLVElement) -> [UInt8] {
        var w = TLVWriter()
        w.write(element)
        return w.bytes
    }

    public mutating func write(_ element: TLVElement) {
        switch element.value {
        case .signed(let v):
            let width = Self.signedWidth(v)
            putControl(element.tag, type: UInt8(width.trailingZeroBitCount))
            putLittleEndian(UInt64(bitPattern: v), width: width)
        case .unsigned(let v):
            let width = Self.unsignedWidth(v)
            putControl(element.tag, type: 0x04 + UInt8(width.trailingZeroBitCount))
            putLittleEndian(v, width: width)
        case .bool(let b):
            putControl(element.tag, type: b ? 0x09 : 0x08)
        case .float(let f):
            putControl(element.tag, type: 0x0A)
            putLittleEndian(UInt64(f.bitPattern), width: 4)
        case .double(let d):
            putControl(element.tag, type: 0x0B)
            putLittleEndian(d.bitPattern, width: 8)
        case .utf8(let s):
            putString(element.tag, base: 0x0C, Array(s.utf8))
        case .bytes(let b):
            putString(element.tag, base: 0x10, b)
        case .null:
            putControl(element.tag, type: 0x14)
        case .container(let kind, let members):
            startContainer(element.tag, kind)
            for m in members { write(m) }
            endContainer()
        }
    }

    public mutating func startContainer(_ tag: TLVTag, _ kind: TLVContainerKind) {
        switch kind {
        case .structure: putControl(tag, type: 0x15)
        case .array: putControl(tag, type: 0x16)
        case .list: putControl(tag, type: 0x17)
        }
    }

    public mutating func endContainer() {
        bytes.append(0x18)
    }

    // MARK: - Pieces

    private mutating func putString(_ tag: TLVTag, base: UInt8, _ data: [UInt8]) {
        let width = Self.unsignedWidth(UInt64(data.count))
        putControl(tag, type: base + UInt8(width.trailingZeroBitCount))
        putLittleEndian(UInt64(data.count), width: width)
        bytes.append(contentsOf: data)
    }

    private mutating func putControl(_ tag: TLVTag, type: UInt8) {
        switch tag {
        case .anonymous:
            bytes.append(type)
        case .context(let n):
            bytes.append(TagControl.context.rawValue << 5 | type)
            bytes.append(n)
        case .commonProfile(let n):
            let short = n <= UInt16.max
            bytes.append((short ? TagControl.commonProfile2 : .commonProfile4).rawValue << 5 | type)
            putLittleEndian(UInt64(n), width: short ? 2 : 4)
        case .implicitProfile(let n):
            let short = n <= UInt16.max
            bytes.append((short ? TagControl.implicitProfile2 : .implicitProfile4).rawValue << 5 | type)
            putLittleEndian(UInt64(n), width: short ? 2 : 4)
        case .fullyQualified(let vendor, let profile, let n):
            let short = n <= UInt16.max
            bytes.append((short ? TagControl.fullyQualified6 : .fullyQualified8).rawValue << 5 | type)
            putLittleEndian(UInt64(vendor), width: 2)
            putLittleEndian(UInt64(profile), width: 2)
            putLittleEndian(UInt64(n), width: short ? 2 : 4)
        }
    }

    private mutating func putLittleEndian(_ v: UInt64, width: Int) {
        for i in 0..<width { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }

    static func unsignedWidth(_ v: UInt64) -> Int {
        v <= 0xFF ? 1 : v <= 0xFFFF ? 2 : v <= 0xFFFF_FFFF ? 4 : 8
    }

    static func signedWidth(_ v: Int64) -> Int {
        Int64(Int8.min)...Int64(Int8.max) ~= v ? 1
            : Int64(Int16.min)...Int64(Int16.max) ~= v ? 2
            : Int64(Int32.min)...Int64(Int32.max) ~= v ? 4 : 8
    }
}

extension TLVElement {
    /// This element in TLV bytes, shortest form.
    public var encoded: [UInt8] { TLVWriter.encode(self) }
}
