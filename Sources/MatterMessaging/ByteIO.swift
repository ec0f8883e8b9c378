/// Little-endian byte reading and writing for the message layer's fixed-layout headers.
struct ByteReader {
    let bytes: [UInt8]
    private(set) var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }

    mutating func u8() throws(MessagingError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated(offset: offset) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() throws(MessagingError) -> UInt16 { UInt16(try little(2)) }
    mutating func u32() throws(MessagingError) -> UInt32 { UInt32(try little(4)) }
    mutating func u64() throws(MessagingError) -> UInt64 { try little(8) }

    mutating func take(_ n: Int) throws(MessagingError) -> [UInt8] {
        guard n >= 0, remaining >= n else { throw .truncated(offset: offset) }
        defer { offset += n }
        return Array(bytes[offset..<offset + n])
    }

    mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    private mutating func little(_ n: Int) throws(MessagingError) -> UInt64 {
        guard remaining >= n else { throw .truncated(offset: offset) }
        var v: UInt64 = 0
        for i in 0..<n { v |= UInt64(bytes[offset + i]) << (8 * i) }
        offset += n
        return v
    }
}

extension Array where Element == UInt8 {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ v: T) {
        for i in 0..<(T.bitWidth / 8) { append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }

    mutating func appendBigEndian<T: FixedWidthInteger>(_ v: T) {
        for i in (0..<(T.bitWidth / 8)).reversed() { append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }
}
