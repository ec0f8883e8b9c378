/// A strict JSON parser (RFC 8259) over UTF-8 bytes.
///
/// Accepts whitespace anywhere between tokens (the Python clients send pretty-printed JSON) and
/// refuses everything else a lenient parser might let through: trailing data, nesting deeper than
/// `maxDepth`, invalid UTF-8 (overlong forms, surrogates), lone surrogate escapes, raw control
/// characters in strings, duplicate keys, leading zeros, and integers outside 64 bits.
/// Integers are accumulated exactly; only numbers with a fraction or exponent become `Double`.
public enum JSONParser {
    /// The default nesting limit (objects and arrays), far above any API message.
    public static let defaultMaxDepth = 64

    public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws(JSONError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) -> JSONValue in
            var parser = Cursor(buffer: buffer, maxDepth: maxDepth)
            return try parser.document()
        }
    }

    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }
}

private struct Cursor {
    let buffer: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0
    var depth = 0
    /// Scratch for strings with escapes, reused.
    var scratch: [UInt8] = []

    init(buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.buffer = buffer
        self.maxDepth = maxDepth
    }

    mutating func document() throws(JSONError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index != buffer.count { throw .trailingBytes(offset: index) }
        return value
    }

    @inline(__always) mutating func skipWhitespace() {
        while index < buffer.count {
            switch buffer[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    @inline(__always) func peek() throws(JSONError) -> UInt8 {
        guard index < buffer.count else { throw .unexpectedEnd(offset: index) }
        return buffer[index]
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        let start = literal.utf8Start
        for i in 0..<count {
            guard index < buffer.count else { throw .unexpectedEnd(offset: index) }
            guard buffer[index] == start[i] else { throw .unexpectedByte(buffer[index], offset: index) }
            index += 1
        }
    }

    mutating func parseValue() throws(JSONError) -> JSONValue {
        let byte = try peek()
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw .unexpectedByte(byte, offset: index)
        }
    }

    mutating func enter() throws(JSONError) {
        depth += 1
        if depth > maxDepth { throw .tooDeep(limit: maxDepth, offset: index) }
    }

    mutating func parseObject() throws(JSONError) -> JSONValue {
        try enter()
        index += 1  // {
        var members: [JSONObject.Member] = []
        var seen: Set<String>? = nil
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(JSONObject())
        }
        while true {
            skipWhitespace()
            let keyOffset = index
            guard try peek() == UInt8(ascii: "\"") else { throw .unexpectedByte(buffer[index], offset: index) }
            let key = try parseString()
            // Duplicate check: linear for small objects, a set once they grow (node attribute maps).
            if members.count < 16 {
                if members.contains(where: { $0.key == key }) { throw .duplicateKey(key, offset: keyOffset) }
            } else {
                if seen == nil { seen = Set(members.map(\.key)) }
                if !seen!.insert(key).inserted { throw .duplicateKey(key, offset: keyOffset) }
            }
            skipWhitespace()
            guard try peek() == UInt8(ascii: ":") else { throw .unexpectedByte(buffer[index], offset: index) }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            members.append(JSONObject.Member(key: key, value: value))
            skipWhitespace()
            let next = try peek()
            index += 1
            if next == UInt8(ascii: ",") { continue }
            if next == UInt8(ascii: "}") { break }
            throw .unexpectedByte(next, offset: index - 1)
        }
        depth -= 1
        return .object(JSONObject(members))
    }

    mutating func parseArray() throws(JSONError) -> JSONValue {
        try enter()
        index += 1  // [
        var items: [JSONValue] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            let next = try peek()
            index += 1
            if next == UInt8(ascii: ",") { continue }
            if next == UInt8(ascii: "]") { break }
            throw .unexpectedByte(next, offset: index - 1)
        }
        depth -= 1
        return .array(items)
    }

    /// Parses a string token starting at the opening quote.
    mutating func parseString() throws(JSONError) -> String {
        index += 1  // "
        let start = index
        // Fast path: no escapes. Scan to the closing quote; validate UTF-8 once at the end.
        var hasHighBytes = false
        while index < buffer.count {
            let b = buffer[index]
            if b == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: buffer[start..<index])
                index += 1
                if !hasHighBytes { return String(decoding: slice, as: UTF8.self) }
                guard let s = String(validating: slice, as: UTF8.self) else { throw .invalidUTF8(offset: start) }
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw .controlCharacter(offset: index) }
            if b >= 0x80 { hasHighBytes = true }
            index += 1
        }
        guard index < buffer.count else { throw .unexpectedEnd(offset: index) }
        // Slow path: copy what was scanned, then decode escapes.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<index]))
        while true {
            guard index < buffer.count else { throw .unexpectedEnd(offset: index) }
            let b = buffer[index]
            if b == UInt8(ascii: "\"") {
                index += 1
                guard let s = String(validating: scratch, as: UTF8.self) else { throw .invalidUTF8(offset: start) }
                return s
            }
            if b < 0x20 { throw .controlCharacter(offset: index) }
            if b != UInt8(ascii: "\\") {
                scratch.append(b)
                index += 1
                continue
            }
            let escapeOffset = index
            index += 1
            guard index < buffer.count else { throw .unexpectedEnd(offset: index) }
            let e = buffer[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): scratch.append(0x22)
            case UInt8(ascii: "\\"): scratch.append(0x5C)
            case UInt8(ascii: "/"): scratch.append(0x2F)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(at: escapeOffset)
                if (0xD800...0xDBFF).contains(scalar) {
                    // A high surrogate must be followed by an escaped low surrogate.
                    guard index + 1 < buffer.count, buffer[index] == UInt8(ascii: "\\"),
                          buffer[index + 1] == UInt8(ascii: "u") else { throw .invalidEscape(offset: escapeOffset) }
                    index += 2
                    let low = try hex4(at: escapeOffset)
                    guard (0xDC00...0xDFFF).contains(low) else { throw .invalidEscape(offset: escapeOffset) }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw .invalidEscape(offset: escapeOffset)
                }
                guard let u = Unicode.Scalar(scalar) else { throw .invalidEscape(offset: escapeOffset) }
                scratch.append(contentsOf: UTF8.encode(u)!)
            default:
                throw .invalidEscape(offset: escapeOffset)
            }
        }
    }

    mutating func hex4(at escapeOffset: Int) throws(JSONError) -> UInt32 {
        guard index + 4 <= buffer.count else { throw .unexpectedEnd(offset: buffer.count) }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = buffer[index]
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: throw .invalidEscape(offset: escapeOffset)
            }
            v = v << 4 | UInt32(d)
            index += 1
        }
        return v
    }

    mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        var negative = false
        if buffer[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < buffer.count else { throw .unexpectedEnd(offset: index) }
        let first = buffer[index]
        guard isDigit(first) else { throw .invalidNumber(offset: start) }
        var magnitude: UInt64 = 0
        var overflow = false
        if first == UInt8(ascii: "0") {
            index += 1
            if index < buffer.count, isDigit(buffer[index]) { throw .invalidNumber(offset: start) }  // leading zero
        } else {
            while index < buffer.count, isDigit(buffer[index]) {
                let (m1, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (m2, o2) = m1.addingReportingOverflow(UInt64(buffer[index] - UInt8(ascii: "0")))
                overflow = overflow || o1 || o2
                magnitude = m2
                index += 1
            }
        }
        var isInteger = true
        if index < buffer.count, buffer[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < buffer.count, isDigit(buffer[index]) else { throw .invalidNumber(offset: start) }
            while index < buffer.count, isDigit(buffer[index]) { index += 1 }
        }
        if index < buffer.count, buffer[index] == UInt8(ascii: "e") || buffer[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < buffer.count, buffer[index] == UInt8(ascii: "+") || buffer[index] == UInt8(ascii: "-") { index += 1 }
            guard index < buffer.count, isDigit(buffer[index]) else { throw .invalidNumber(offset: start) }
            while index < buffer.count, isDigit(buffer[index]) { index += 1 }
        }
        if isInteger {
            if overflow { throw .integerOutOfRange(offset: start) }
            if negative {
                if magnitude == 0 { return .int(0) }
                guard magnitude <= UInt64(Int64.max) + 1 else { throw .integerOutOfRange(offset: start) }
                return .int(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
            }
            return .integer(magnitude)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<index]), as: UTF8.self)
        guard let d = Double(text), d.isFinite else { throw .invalidNumber(offset: start) }
        return .double(d)
    }

    @inline(__always) func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
}
