import MatterPlatform

/// An HTTP/1.1 response parser (RFC 9112) for a client that sent one GET with
/// `Connection: close` and `Accept-Encoding: identity`: bytes in, head and body out, no I/O.
///
/// Strict where leniency has caused request smuggling and worse: lines end in CRLF (a bare CR
/// or LF is refused), the version is HTTP/1.0 or HTTP/1.1, field names are tokens, values hold
/// no control characters, folded lines are refused, Content-Length is digits (repeated values
/// must agree), Transfer-Encoding is `chunked` or absent and never comes with Content-Length.
/// Bounded: the head (and a chunked body's trailers) at most `maxHeadLength` bytes and
/// `maxFields` fields, a chunk-size line at most `maxLineLength` bytes, the body at most
/// `bodyLimit` bytes, refused as soon as a declared length (Content-Length or a chunk size) or
/// the bytes received pass it. Interim 1xx responses are skipped.
///
/// Use: ``consume(_:)`` what arrives until ``head`` is set; look at the status; for a body you
/// want, ``acceptBody()`` (which checks the declared length), keep consuming until
/// ``isComplete``, and call ``finish()`` at the end of the stream.
package struct HTTPResponseParser: Sendable {
    package static let maxHeadLength = 16 << 10
    package static let maxFields = 100
    package static let maxLineLength = 4096
    static let maxInterimResponses = 10

    /// A response's status line and header fields.
    package struct Head: Sendable, Hashable {
        package var version: String
        package var status: Int
        package var reason: String
        /// Fields in order; names lower-cased, values without surrounding whitespace.
        package var fields: [Field]
        /// How the body is delimited.
        package var framing: Framing

        /// The first value of a field (name in any case).
        package func field(_ name: String) -> String? {
            let lower = name.lowercased()
            return fields.first { $0.name == lower }?.value
        }
    }

    package typealias Field = HTTPHead.Field

    package enum Framing: Sendable, Hashable {
        /// No body (1xx, 204, 304).
        case none
        /// Exactly this many bytes (Content-Length).
        case length(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
        /// Everything until the server closes the connection.
        case untilClose
    }

    /// Why a response was refused.
    package enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The response breaks HTTP/1.1's syntax.
        case malformed(String)
        /// The head (or the trailers) passed `maxHeadLength` bytes.
        case headTooLong(Int)
        /// The body passed the limit: `declared` is the Content-Length when one said so.
        case bodyTooLarge(declared: Int?, limit: Int)
        /// The stream ended before the response did.
        case truncated(String)

        package var description: String {
            switch self {
            case .malformed(let why): return "malformed HTTP response: \(why)"
            case .headTooLong(let limit): return "the HTTP response head is longer than \(limit) bytes"
            case .bodyTooLarge(let declared?, let limit): return "sent \(declared) bytes; the limit is \(limit)"
            case .bodyTooLarge(nil, let limit): return "sent more than \(limit) bytes"
            case .truncated(let why): return why
            }
        }
    }

    private enum State: Sendable, Hashable {
        case head
        /// The head is parsed; the caller has not asked for the body yet.
        case awaitingBody
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(bytes: Int)
        case untilClose
        case done
    }

    package let bodyLimit: Int
    package let maxHeadLength: Int
    /// The final (non-1xx) response head, once it has arrived.
    package private(set) var head: Head?
    /// The body received so far (de-chunked).
    package private(set) var body: [UInt8] = []
    private var state: State = .head
    private var pending: [UInt8] = []
    /// How far past the start of `pending` the search for the end of the head has looked.
    private var scanned = 0
    private var interim = 0

    package init(bodyLimit: Int, maxHeadLength: Int = HTTPResponseParser.maxHeadLength) {
        self.bodyLimit = max(0, bodyLimit)
        self.maxHeadLength = maxHeadLength
    }

    /// True once the whole response has been read (the body by its framing).
    package var isComplete: Bool { state == .done }

    /// Parses what `bytes` add. Stops at the end of the head until ``acceptBody()``.
    package mutating func consume(_ bytes: some Collection<UInt8>) throws(Failure) {
        switch state {
        case .done: return
        case .untilClose where pending.isEmpty:
            guard body.count + bytes.count <= bodyLimit else { throw .bodyTooLarge(declared: nil, limit: bodyLimit) }
            body.append(contentsOf: bytes)
            return
        default:
            pending.append(contentsOf: bytes)
            try advance()
        }
    }

    /// Lets the body be read: refuses a declared Content-Length over the limit at once.
    package mutating func acceptBody() throws(Failure) {
        guard state == .awaitingBody, let head else { return }
        switch head.framing {
        case .none: state = .done
        case .length(let n):
            guard n <= bodyLimit else { throw .bodyTooLarge(declared: n, limit: bodyLimit) }
            state = n == 0 ? .done : .fixed(remaining: n)
        case .chunked: state = .chunkSize
        case .untilClose: state = .untilClose
        }
        try advance()
    }

    /// The end of the stream: complete for a read-until-close body, an error if the response
    /// was cut short.
    package mutating func finish() throws(Failure) {
        if state == .awaitingBody { try acceptBody() }
        switch state {
        case .done: return
        case .untilClose: state = .done
        case .head where pending.isEmpty && interim == 0:
            throw .truncated("the server closed the connection without answering")
        case .head: throw .truncated("the server closed the connection in the middle of the response head")
        case .fixed(let remaining):
            guard let head, case .length(let total) = head.framing else { throw .truncated("the body was cut short") }
            throw .truncated("the server closed the connection after \(total - remaining) of \(total) body bytes")
        case .chunkSize, .chunkData, .chunkDataEnd, .trailers:
            throw .truncated("the server closed the connection in the middle of the chunked body (after \(body.count) bytes)")
        case .awaitingBody: return
        }
    }

    /// Parses a whole response as received up to the end of the stream (tests and fuzzing).
    package static func parse(_ bytes: [UInt8], bodyLimit: Int) throws(Failure) -> (head: Head, body: [UInt8]) {
        var parser = HTTPResponseParser(bodyLimit: bodyLimit)
        try parser.consume(bytes)
        try parser.finish()
        guard let head = parser.head else { throw .truncated("no response") }
        return (head, parser.body)
    }

    // MARK: - The state machine

    private mutating func advance() throws(Failure) {
        var at = 0
        defer { pending.removeFirst(at) }
        while true {
            switch state {
            case .head:
                guard let end = try Self.headEnd(pending, from: at + scanned, start: at) else {
                    if pending.count - at > maxHeadLength { throw .headTooLong(maxHeadLength) }
                    scanned = max(0, pending.count - at - 3)  // pending loses its first `at` bytes below
                    return
                }
                guard end + 4 - at <= maxHeadLength else { throw .headTooLong(maxHeadLength) }
                let parsed = try Self.parseHead(pending[at..<end])
                at = end + 4
                scanned = 0
                if (100..<200).contains(parsed.status) {
                    guard parsed.status != 101 else { throw .malformed("101 Switching Protocols to a GET") }
                    interim += 1
                    guard interim <= Self.maxInterimResponses else { throw .malformed("more than \(Self.maxInterimResponses) interim 1xx responses") }
                    continue
                }
                head = parsed
                state = .awaitingBody
            case .awaitingBody, .done:
                return
            case .untilClose:
                let n = pending.count - at
                guard body.count + n <= bodyLimit else { throw .bodyTooLarge(declared: nil, limit: bodyLimit) }
                body.append(contentsOf: pending[at...])
                at = pending.count
                return
            case .fixed(let remaining), .chunkData(let remaining):
                let n = min(remaining, pending.count - at)
                guard n > 0 else { return }
                body.append(contentsOf: pending[at..<(at + n)])
                at += n
                if case .fixed = state {
                    state = remaining == n ? .done : .fixed(remaining: remaining - n)
                } else {
                    state = remaining == n ? .chunkDataEnd : .chunkData(remaining: remaining - n)
                }
            case .chunkDataEnd:
                guard pending.count - at >= 2 else { return }
                guard pending[at] == 13, pending[at + 1] == 10 else { throw .malformed("chunk data not followed by CRLF") }
                at += 2
                state = .chunkSize
            case .chunkSize:
                guard let line = try line(from: at, limit: Self.maxLineLength, what: "chunk-size line") else { return }
                let size = try Self.chunkSize(pending[at..<line])
                at = line + 2
                if size == 0 {
                    state = .trailers(bytes: 0)
                } else {
                    guard size <= bodyLimit - body.count else { throw .bodyTooLarge(declared: nil, limit: bodyLimit) }
                    state = .chunkData(remaining: size)
                }
            case .trailers(let bytes):
                guard bytes <= maxHeadLength else { throw .malformed("trailer section longer than \(maxHeadLength) bytes") }
                guard let line = try line(from: at, limit: maxHeadLength - bytes, what: "trailer section") else { return }
                if line == at {
                    at += 2
                    state = .done
                } else {
                    _ = try Self.parseField(pending[at..<line])
                    state = .trailers(bytes: bytes + line + 2 - at)
                    at = line + 2
                }
            }
        }
    }

    /// The offset of the CRLF ending the line that starts at `start`, nil when it has not
    /// arrived; refuses lines longer than `limit` and a bare CR or LF.
    private func line(from start: Int, limit: Int, what: String) throws(Failure) -> Int? {
        var i = start
        while i < pending.count {
            if i - start > limit { throw .malformed("\(what) longer than \(limit) bytes") }
            switch pending[i] {
            case 13:
                guard i + 1 < pending.count else { return nil }
                guard pending[i + 1] == 10 else { throw .malformed("bare CR in the \(what)") }
                return i
            case 10: throw .malformed("bare LF in the \(what)")
            default: i += 1
            }
        }
        if i - start > limit { throw .malformed("\(what) longer than \(limit) bytes") }
        return nil
    }

    static func headEnd(_ bytes: [UInt8], from: Int, start: Int) throws(Failure) -> Int? {
        do { return try HTTPHead.end(bytes, from: from, start: start) } catch { throw .malformed(error.reason) }
    }

    // MARK: - Pure pieces

    /// Parses a head without its final CRLF CRLF: the status line, then field lines.
    package static func parseHead(_ bytes: ArraySlice<UInt8>) throws(Failure) -> Head {
        let lines: [ArraySlice<UInt8>]
        do { lines = try HTTPHead.lines(bytes) } catch { throw .malformed(error.reason) }
        let (version, status, reason) = try parseStatusLine(lines[0])
        guard lines.count - 1 <= maxFields else { throw .malformed("more than \(maxFields) header fields") }
        var fields: [Field] = []
        for line in lines.dropFirst() { fields.append(try parseField(line)) }
        let framing = try framing(status: status, fields: fields)
        return Head(version: version, status: status, reason: reason, fields: fields, framing: framing)
    }

    package static func parseStatusLine(_ line: ArraySlice<UInt8>) throws(Failure) -> (version: String, status: Int, reason: String) {
        do { return try HTTPHead.statusLine(line) } catch { throw .malformed(error.reason) }
    }

    package static func parseField(_ line: ArraySlice<UInt8>) throws(Failure) -> Field {
        do { return try HTTPHead.field(line) } catch { throw .malformed(error.reason) }
    }

    /// The body's framing (RFC 9112 section 6.3) for a response to GET.
    package static func framing(status: Int, fields: [Field]) throws(Failure) -> Framing {
        if (100..<200).contains(status) || status == 204 || status == 304 { return .none }
        let codings = fields.filter { $0.name == "transfer-encoding" }
            .flatMap { $0.value.split(separator: ",") }
            .map { $0.trimmedOWS.lowercased() }
        let lengths = fields.filter { $0.name == "content-length" }
            .flatMap { $0.value.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmedOWS }
        if !codings.isEmpty {
            guard lengths.isEmpty else { throw .malformed("both Transfer-Encoding and Content-Length") }
            guard codings == ["chunked"] else {
                throw .malformed("unsupported Transfer-Encoding '\(codings.joined(separator: ", "))' (only chunked)")
            }
            return .chunked
        }
        guard let first = lengths.first else { return .untilClose }
        guard lengths.allSatisfy({ $0 == first }), !first.isEmpty, first.count <= 18,
              first.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let n = Int(first) else {
            throw .malformed("bad Content-Length '\(lengths.joined(separator: ", "))'")
        }
        return .length(n)
    }

    /// `1*HEXDIG [ BWS ";" chunk-ext ]`: the size; the extensions are checked for control
    /// characters and ignored.
    package static func chunkSize(_ line: ArraySlice<UInt8>) throws(Failure) -> Int {
        var size = 0
        var digits = 0
        var i = line.startIndex
        while i < line.endIndex, let d = hexValue(line[i]) {
            digits += 1
            guard digits <= 15 else { throw .malformed("chunk size too long") }
            size = size << 4 | d
            i += 1
        }
        guard digits > 0 else { throw .malformed("chunk size is not hexadecimal") }
        var rest = line[i...]
        while let b = rest.first, b == 0x20 || b == 0x09 { rest = rest.dropFirst() }
        if let b = rest.first {
            guard b == 0x3B, rest.allSatisfy(isFieldValueByte) else { throw .malformed("bad chunk extension") }
        }
        return size
    }

    private static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case 0x30...0x39: return Int(b - 0x30)
        case 0x41...0x46: return Int(b - 0x41 + 10)
        case 0x61...0x66: return Int(b - 0x61 + 10)
        default: return nil
        }
    }

    private static func isFieldValueByte(_ b: UInt8) -> Bool { HTTPHead.isFieldValueByte(b) }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (OWS).
    fileprivate var trimmedOWS: String {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }
}
