/// A strict DER parser (X.690 section 10): definite lengths only, in their shortest form,
/// high tag numbers in their shortest form, exactly one top-level element with no trailing
/// bytes, and a nesting limit. Constructed elements are parsed down to their primitives;
/// values encapsulated in OCTET/BIT STRINGs are parsed on request with `parse` again.
public enum DER {
    /// The default nesting limit; X.509 certificates need about 8.
    public static let defaultMaxDepth = 16

    /// Parses exactly one element from `bytes`.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws(CertificateError) -> DERNode {
        var offset = 0
        let node = try parseNode(bytes, &offset, end: bytes.count, depth: 0, maxDepth: maxDepth)
        guard offset == bytes.count else { throw .derTrailingBytes(offset: offset) }
        return node
    }

    /// Parses exactly one element from a slice (indices are the slice's own).
    public static func parse(_ bytes: ArraySlice<UInt8>, maxDepth: Int = defaultMaxDepth) throws(CertificateError) -> DERNode {
        try parse(Array(bytes), maxDepth: maxDepth)
    }

    private static func parseNode(_ b: [UInt8], _ offset: inout Int, end: Int, depth: Int,
                                  maxDepth: Int) throws(CertificateError) -> DERNode {
        let start = offset
        guard offset < end else { throw .derTruncated(offset: start) }
        let first = b[offset]
        offset += 1
        guard let tagClass = DERTagClass(rawValue: first >> 6) else { throw .derTruncated(offset: start) }
        let constructed = first & 0x20 != 0
        var number = UInt32(first & 0x1F)
        if number == 0x1F {
            // High tag number form: base-128, no leading 0x80, and only for numbers >= 31.
            number = 0
            var count = 0
            while true {
                guard offset < end else { throw .derTruncated(offset: start) }
                let byte = b[offset]
                offset += 1
                if count == 0 && byte == 0x80 { throw .derNonMinimalEncoding(offset: start) }
                count += 1
                guard count <= 4 else { throw .derLengthTooLarge(offset: start) }
                number = number << 7 | UInt32(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            guard number >= 31 else { throw .derNonMinimalEncoding(offset: start) }
        }

        guard offset < end else { throw .derTruncated(offset: start) }
        let lengthByte = b[offset]
        offset += 1
        var length = 0
        if lengthByte < 0x80 {
            length = Int(lengthByte)
        } else if lengthByte == 0x80 {
            throw .derIndefiniteLength(offset: start)
        } else {
            let count = Int(lengthByte & 0x7F)
            guard count <= 4 else { throw .derLengthTooLarge(offset: start) }
            guard end - offset >= count else { throw .derTruncated(offset: start) }
            if b[offset] == 0 { throw .derNonMinimalEncoding(offset: start) }
            for i in 0..<count { length = length << 8 | Int(b[offset + i]) }
            offset += count
            if length < 0x80 { throw .derNonMinimalEncoding(offset: start) }
        }
        guard length <= end - offset else {
            throw offset == end ? .derTruncated(offset: start) : .derLengthTooLarge(offset: start)
        }
        let headerLength = offset - start
        let contentEnd = offset + length

        var children: [DERNode] = []
        if constructed {
            guard depth < maxDepth else { throw .derDepthLimitExceeded(limit: maxDepth) }
            while offset < contentEnd {
                children.append(try parseNode(b, &offset, end: contentEnd, depth: depth + 1, maxDepth: maxDepth))
            }
        }
        offset = contentEnd
        return DERNode(tag: DERTag(tagClass, constructed: constructed, number),
                       encoded: Array(b[start..<contentEnd]), headerLength: headerLength,
                       offset: start, children: children)
    }
}
