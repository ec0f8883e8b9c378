import MatterPlatform

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
        guard let end = try HTTPRequestHead.findHeadEnd(bytes) else {
            if bytes.count > HTTPRequestHead.maxHeadLength { throw .tooLong }
            return nil
        }
        if end > HTTPRequestHead.maxHeadLength { throw .tooLong }
        let (first, headers) = try HTTPRequestHead.splitHead(bytes[..<end])
        let status: (version: String, status: Int, reason: String)
        do { status = try HTTPHead.statusLine(ArraySlice(first.utf8)) } catch { throw .malformed(error.reason) }
        return (HTTPResponseHead(version: status.version, status: status.status, reason: status.reason, headers: headers), end + 4)
    }
}
