/// Decodes TLV bytes into an element tree.
public enum TLVDecoder {
    /// Decodes exactly one element; anything after it is an error.
    public static func decode(_ bytes: [UInt8], maxDepth: Int = 32) throws(TLVError) -> TLVElement {
        var reader = TLVReader(bytes, maxDepth: maxDepth)
        let element = try readElement(&reader)
        guard reader.isAtEnd else { throw .trailingBytes(offset: reader.offset) }
        return element
    }

    /// Decodes a sequence of top-level elements (used where Matter concatenates elements).
    public static func decodeAll(_ bytes: [UInt8], maxDepth: Int = 32) throws(TLVError) -> [TLVElement] {
        var reader = TLVReader(bytes, maxDepth: maxDepth)
        var out: [TLVElement] = []
        while !reader.isAtEnd { out.append(try readElement(&reader)) }
        return out
    }

    /// Reads one element (and, for a container, all its members) from the reader.
    public static func readElement(_ reader: inout TLVReader) throws(TLVError) -> TLVElement {
        let start = reader.offset
        guard let token = try reader.next() else { throw .underrun(offset: start) }
        switch token {
        case .scalar(let tag, let value):
            return TLVElement(tag: tag, value)
        case .endOfContainer:
            throw .unexpectedEndOfContainer(offset: start)
        case .startContainer(let tag, let kind):
            var members: [TLVElement] = []
            while true {
                let memberStart = reader.offset
                guard reader.offset < reader.bytes.count else { throw .unterminatedContainer(offset: start) }
                if reader.bytes[memberStart] == 0x18 {
                    _ = try reader.next()
                    return TLVElement(tag: tag, .container(kind, members))
                }
                members.append(try readElement(&reader))
            }
        }
    }
}
