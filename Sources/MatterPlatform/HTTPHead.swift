/// The pieces of an HTTP/1.1 message head (RFC 9112) both the hub's HTTP parsers use (the trust
/// store's response parser, the WebSocket server's requests and client's upgrade answer):
/// strict where leniency has caused request smuggling. Lines end in CRLF (a bare CR or LF is
/// refused), field names are tokens, values hold no control characters, folded lines are refused.
package enum HTTPHead {
    /// Why a head was refused, worded to follow "malformed HTTP ...: ".
    package struct Malformed: Error, Sendable, Hashable {
        package let reason: String
        package init(_ reason: String) { self.reason = reason }
    }

    /// A header field: the name lower-cased, the value without surrounding whitespace.
    package struct Field: Sendable, Hashable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The offset of CRLF CRLF at or after `from` (the head began at `start`), nil when it has
    /// not arrived; refuses a bare CR or LF as soon as it arrives, so a head with the wrong line
    /// endings fails at once rather than waiting for a blank line that never comes.
    package static func end(_ bytes: [UInt8], from: Int = 0, start: Int = 0) throws(Malformed) -> Int? {
        var i = from
        while i < bytes.count {
            switch bytes[i] {
            case 13:
                guard i + 1 < bytes.count else { return nil }
                guard bytes[i + 1] == 10 else { throw Malformed("bare CR in the head") }
                if i + 3 < bytes.count, bytes[i + 2] == 13, bytes[i + 3] == 10 { return i }
            case 10:
                guard i > start, bytes[i - 1] == 13 else { throw Malformed("bare LF in the head") }
            default:
                break
            }
            i += 1
        }
        return nil
    }

    /// The lines of a head without its final CRLF CRLF: the start line first.
    package static func lines(_ bytes: ArraySlice<UInt8>) throws(Malformed) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var i = bytes.startIndex
        while i < bytes.endIndex {
            switch bytes[i] {
            case 13:
                guard i + 1 < bytes.endIndex, bytes[i + 1] == 10 else { throw Malformed("bare CR in the head") }
                lines.append(bytes[start..<i])
                i += 2
                start = i
            case 10: throw Malformed("bare LF in the head")
            default: i += 1
            }
        }
        lines.append(bytes[start..<bytes.endIndex])
        return lines
    }

    /// `HTTP/1.1 200 OK`: the version (HTTP/1.0 or HTTP/1.1), three digits, and a reason that
    /// may be empty (the space before it may be missing too).
    package static func statusLine(_ line: ArraySlice<UInt8>) throws(Malformed) -> (version: String, status: Int, reason: String) {
        let bytes = Array(line)
        guard bytes.count >= 12, bytes.starts(with: Array("HTTP/1.".utf8)), bytes[7] == 0x30 || bytes[7] == 0x31, bytes[8] == 0x20 else {
            throw Malformed("bad status line (expected HTTP/1.1 and a status code)")
        }
        let digits = bytes[9..<12]
        guard digits.allSatisfy({ (0x30...0x39).contains($0) }), let status = Int(String(decoding: digits, as: UTF8.self)),
              (100...599).contains(status) else {
            throw Malformed("bad status code in the status line")
        }
        var reason = ""
        if bytes.count > 12 {
            guard bytes[12] == 0x20 else { throw Malformed("bad status line (no space after the status code)") }
            let text = bytes[13...]
            guard text.allSatisfy(isFieldValueByte) else { throw Malformed("control character in the reason phrase") }
            reason = String(decoding: text, as: UTF8.self)
        }
        return (bytes[7] == 0x31 ? "HTTP/1.1" : "HTTP/1.0", status, reason)
    }

    /// `name: value`: a token, a colon, optional whitespace, a value of visible characters,
    /// spaces and tabs, optional whitespace.
    package static func field(_ line: ArraySlice<UInt8>) throws(Malformed) -> Field {
        guard let colon = line.firstIndex(of: 0x3A) else {
            if line.first == 0x20 || line.first == 0x09 { throw Malformed("folded header line (obs-fold)") }
            throw Malformed("header line without a colon")
        }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty else { throw Malformed("empty header field name") }
        guard name.allSatisfy(isTokenByte) else {
            throw Malformed(name.first == 0x20 || name.first == 0x09 ? "folded header line (obs-fold)" : "bad character in a header field name")
        }
        var value = line[(colon + 1)...]
        while let b = value.first, b == 0x20 || b == 0x09 { value = value.dropFirst() }
        while let b = value.last, b == 0x20 || b == 0x09 { value = value.dropLast() }
        let lowered = String(decoding: name, as: UTF8.self).lowercased()
        guard value.allSatisfy(isFieldValueByte) else { throw Malformed("control character in the \(lowered) field") }
        return Field(name: lowered, value: String(decoding: value, as: UTF8.self))
    }

    /// tchar (RFC 9110 section 5.6.2): methods and field names.
    package static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return Array("!#$%&'*+-.^_`|~".utf8).contains(b)
        }
    }

    /// field-vchar, SP or HTAB (obs-text allowed).
    package static func isFieldValueByte(_ b: UInt8) -> Bool {
        b == 0x09 || (b >= 0x20 && b != 0x7F)
    }
}
