/// Where the body of an accepted POST goes (an OTA image upload): written piece by piece as it
/// arrives, so a large body is never held whole, and answered once it is complete.
///
/// ``write(_:)`` runs on the server's I/O thread and must be quick (a local file write);
/// ``finish(respond:)`` hands the complete body over and may answer later, from any thread.
public protocol HTTPBodySink: AnyObject, Sendable {
    /// The next bytes of the body, in order. A response ends the upload with it (the sink is
    /// then ``abandon()``ed).
    func write(_ bytes: ArraySlice<UInt8>) -> HTTPResponse?
    /// The whole body arrived: call `respond` once, from any thread, with the answer. The sink
    /// owns what it wrote from here on.
    func finish(respond: @escaping @Sendable (HTTPResponse) -> Void)
    /// The upload ended before ``finish(respond:)``: the client went away, stalled, sent too
    /// much or was refused. Discard what was written.
    func abandon()
}

/// What the application makes of a POST (``WebSocketServerDelegate/httpBody(for:peer:)``).
public enum HTTPBodyDecision: Sendable {
    /// Answer at once (an unknown upload id); the body is read and discarded so the client
    /// sees the answer rather than a reset connection.
    case refuse(HTTPResponse)
    /// Stream a body of at most `maxBytes` into `sink`. It must carry a Content-Length (411
    /// otherwise); a larger one is refused with 413 before a byte is written.
    case accept(any HTTPBodySink, maxBytes: Int)
}

extension WebSocketServerDelegate {
    /// No POST is taken unless the delegate says so: 405.
    public func httpBody(for request: HTTPRequestHead, peer: String) -> HTTPBodyDecision? { nil }
}

/// A peer address as an upload's owner: the port dropped, an IPv4-mapped IPv6 address and
/// both loopbacks made one (a client's WebSocket and its POST may use either family).
public enum PeerIdentity {
    public static func of(_ peer: String) -> String {
        var host = peer
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.lastIndex(of: ":") {
            host = String(host[..<colon])
        }
        if host.lowercased().hasPrefix("::ffff:") { host = String(host.dropFirst(7)) }
        return host == "127.0.0.1" || host == "::1" ? "loopback" : host
    }
}
