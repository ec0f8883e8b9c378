/// The head of an HTTP/1.1 response (RFC 9112): status line and header fields, as a WebSocket
/// client reads the answer to its upgrade request.
public struct HTTPResponseHead: Sendable, HTTPHeaderFields {
    public var version: String
    public var status: Int
    public var reason: String
    /// Header fields in order; names lower-cased.
    public var headers: [(name: String, value: String)]

    /// Parses a response head from the start of `bytes`: the head and the bytes it used, or nil
    /// when the blank line has not arrived yet. Heads over ``HTTPRequestHead/maxHeadLength`` are refused.
    public static func parse(_ bytes: [UInt8]) throws(HTTPRequestHead.ParseError) -> (head: HTTPResponseHead, consumed: Int)? {
        guard let end = HTTPRequestHead.findHeadEnd(bytes) else {
            if bytes.count > HTTPRequestHead.maxHeadLength { throw .tooLong }
            return nil
        }
        if end > HTTPRequestHead.maxHeadLength { throw .tooLong }
        let (first, headers) = try HTTPRequestHead.splitHead(bytes[..<end])
        // HTTP/1.1 101 Switching Protocols (the reason may be empty or hold spaces).
        let parts = first.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3,
              parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let status = Int(parts[1]) else {
            throw .malformed("bad status line")
        }
        return (HTTPResponseHead(version: String(parts[0]), status: status, reason: parts.count > 2 ? String(parts[2]) : "",
                                 headers: headers), end + 4)
    }
}
