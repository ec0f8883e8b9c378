import MatterPlatform

/// The head of an HTTP/1.1 request (RFC 9112): request line and header fields.
public struct HTTPRequestHead: Hashable, Sendable, HTTPHeaderFields {
    /// The most header bytes accepted before the blank line.
    public static let maxHeadLength = 8192

    public var method: String
    /// The request target as sent (`/ws?token=...`).
    public var target: String
    public var version: String
    /// Header fields in order; names lower-cased.
    public var headers: [(name: String, value: String)]

    public static func == (l: HTTPRequestHead, r: HTTPRequestHead) -> Bool {
        l.method == r.method && l.target == r.target && l.version == r.version
            && l.headers.map(\.name) == r.headers.map(\.name) && l.headers.map(\.value) == r.headers.map(\.value)
    }

    public func hash(into h: inout Hasher) {
        h.combine(method)
        h.combine(target)
    }

    /// The path part of the target (before `?`).
    public var path: String { String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]) }

    /// The query parameters, percent-decoded (`+` is a space); nil values for bare keys.
    public var query: [(name: String, value: String)] {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return [] }
        return parts[1].split(separator: "&").map { pair in
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (percentDecode(kv[0]), kv.count > 1 ? percentDecode(kv[1]) : "")
        }
    }

    /// Why a request head was refused (answered with 400, 431 when too long, 505 for a version
    /// other than HTTP/1.0 and 1.1).
    public enum ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        case tooLong
        case malformed(String)
        case unsupportedVersion(String)
        public var description: String {
            switch self {
            case .tooLong: return "request head longer than \(HTTPRequestHead.maxHeadLength) bytes"
            case .malformed(let why): return "malformed HTTP request: \(why)"
            case .unsupportedVersion(let v): return "\(v) is not supported; this hub speaks HTTP/1.1 (and 1.0)"
            }
        }

        /// The status line that answers it.
        public var status: (code: Int, reason: String) {
            switch self {
            case .tooLong: return (431, "Request Header Fields Too Large")
            case .malformed: return (400, "Bad Request")
            case .unsupportedVersion: return (505, "HTTP Version Not Supported")
            }
        }
    }

    /// Parses a request head from the start of `bytes`: the head and the bytes it used, or nil
    /// when the blank line has not arrived yet.
    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> (head: HTTPRequestHead, consumed: Int)? {
        guard let end = try findHeadEnd(bytes) else {
            if bytes.count > maxHeadLength { throw .tooLong }
            return nil
        }
        if end > maxHeadLength { throw .tooLong }
        let (first, headers) = try splitHead(bytes[..<end])
        let requestLine = first.split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, !requestLine[0].isEmpty, requestLine[1].first == "/",
              requestLine[0].utf8.allSatisfy(HTTPHead.isTokenByte), requestLine[1].utf8.allSatisfy(isVisibleByte) else {
            throw .malformed("bad request line")
        }
        let version = String(requestLine[2])
        guard version.hasPrefix("HTTP/") else { throw .malformed("bad request line") }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { throw .unsupportedVersion(version) }
        return (HTTPRequestHead(method: String(requestLine[0]), target: String(requestLine[1]), version: version,
                                headers: headers), end + 4)
    }

    /// The start line and the header fields (names lower-cased) of a head without its blank
    /// line, through ``HTTPHead`` (the trust store's response parser reads fields the same way).
    static func splitHead(_ bytes: ArraySlice<UInt8>) throws(ParseError) -> (first: Substring, headers: [(name: String, value: String)]) {
        do throws(HTTPHead.Malformed) {
            let lines = try HTTPHead.lines(bytes)
            guard let first = String(validating: lines[0], as: UTF8.self), !first.isEmpty else { throw HTTPHead.Malformed("no start line") }
            var headers: [(name: String, value: String)] = []
            for line in lines.dropFirst() where !line.isEmpty {
                let field = try HTTPHead.field(line)
                headers.append((field.name, field.value))
            }
            return (Substring(first), headers)
        } catch {
            throw .malformed(error.reason)
        }
    }

    /// The offset of "\r\n\r\n", if present; a bare CR or LF is refused at once.
    static func findHeadEnd(_ bytes: [UInt8]) throws(ParseError) -> Int? {
        do { return try HTTPHead.end(bytes) } catch { throw .malformed(error.reason) }
    }
}

public struct HTTPResponse: Hashable, Sendable {
    public var status: Int
    public var reason: String
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, reason: String, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
    }

    /// A plain-text response (errors say what to do).
    public static func text(_ status: Int, _ reason: String, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, reason: reason, headers: ["Content-Type": "text/plain; charset=utf-8"],
                     body: Array((message + "\n").utf8))
    }

    /// The bytes on the wire, with Content-Length and (unless upgrading) Connection: close.
    public var encoded: [UInt8] {
        var text = "HTTP/1.1 \(status) \(reason)\r\n"
        var fields = headers
        if status != 101 {
            fields["Content-Length"] = String(body.count)
            fields["Connection"] = fields["Connection"] ?? "close"
        }
        for key in fields.keys.sorted() { text += "\(key): \(fields[key]!)\r\n" }
        text += "\r\n"
        return Array(text.utf8) + body
    }
}

/// A visible ASCII character (a request target has no space, control or non-ASCII byte).
private func isVisibleByte(_ b: UInt8) -> Bool { b > 0x20 && b < 0x7F }

extension StringProtocol {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}

private func percentDecode(_ s: Substring) -> String {
    var out: [UInt8] = []
    var bytes = Array(s.utf8)[...]
    while let b = bytes.popFirst() {
        if b == UInt8(ascii: "+") { out.append(0x20); continue }
        if b == UInt8(ascii: "%"), bytes.count >= 2, let h = hexValue(bytes[bytes.startIndex]),
           let l = hexValue(bytes[bytes.startIndex + 1]) {
            out.append(h << 4 | l)
            bytes.removeFirst(2)
            continue
        }
        out.append(b)
    }
    return String(decoding: out, as: UTF8.self)
}

private func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case 0x30...0x39: return c - 0x30
    case 0x41...0x46: return c - 0x41 + 10
    case 0x61...0x66: return c - 0x61 + 10
    default: return nil
    }
}

/// Header lookup shared by request and response heads.
public protocol HTTPHeaderFields {
    /// Header fields in order; names lower-cased.
    var headers: [(name: String, value: String)] { get }
}

extension HTTPHeaderFields {
    /// The value of the header `name` (case-insensitive); several fields are joined with ", ".
    public func header(_ name: String) -> String? {
        let n = name.lowercased()
        let values = headers.filter { $0.name == n }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The Content-Length, when it is one non-negative decimal number.
    public var contentLength: Int? {
        guard let text = header("content-length"), !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    /// Whether the comma-separated header `name` lists `token` (case-insensitive).
    public func headerHasToken(_ name: String, _ token: String) -> Bool {
        guard let v = header(name) else { return false }
        return v.split(separator: ",").contains { $0.trimmingSpaces.lowercased() == token.lowercased() }
    }
}
