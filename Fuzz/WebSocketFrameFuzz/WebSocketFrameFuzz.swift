import MatterWebSocket
#if !FUZZING
import FuzzSupport
#endif

/// libFuzzer target for the WebSocket frame parser (and the HTTP upgrade request and response parsers). The input is
/// fed in chunks whose sizes come from the first byte; the parser yields events or fails with a
/// close code, never traps, and never buffers more than the message limit plus one header.
/// Every complete text message is valid UTF-8.
func fuzzOne(_ input: [UInt8]) {
    let limit = 4096
    var parser = WebSocketFrameParser(maxMessageSize: limit)
    let chunk = Int(input.first ?? 1) % 32 + 1
    var i = 1
    while i < input.count {
        parser.append(input[i..<min(i + chunk, input.count)])
        i += chunk
        do {
            while let event = try parser.next() {
                switch event {
                case .text(let t):
                    guard t.count <= limit, String(validating: t, as: UTF8.self) != nil else { fatalError("bad text message") }
                case .binary(let b): guard b.count <= limit else { fatalError("message over the limit") }
                case .ping(let p), .pong(let p): guard p.count <= 125 else { fatalError("control frame over 125 bytes") }
                case .close: break
                }
            }
        } catch {
            guard (try? parser.next()) == nil else { fatalError("a failed parser produced an event") }
            break
        }
    }
    if let (head, _) = try? HTTPRequestHead.parse(input) {
        guard head.version == "HTTP/1.1" || head.version == "HTTP/1.0" else { fatalError("accepted \(head.version)") }
        guard head.headers.allSatisfy({ $0.value.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) } }) else {
            fatalError("a control byte in a header value")
        }
        _ = WebSocketHandshake.evaluate(head, path: "/ws", token: "t")
        _ = head.query
        // The browser rules: any Host and Origin is accepted or refused, never a trap; a
        // loopback listener never lets a non-loopback Host through.
        let policy = RequestOriginPolicy(allowedOrigins: ["https://ha.example:8123"], allowedHosts: ["hub"])
        let loopback = RequestOriginPolicy.Listener(host: "127.0.0.1", port: 5580, isUnix: false)
        let listeners = [loopback, .init(host: "::1", port: 5580, isUnix: false), .init(host: "", port: 0, isUnix: true)]
        let refusal = policy.refusal(of: head, on: loopback, checksOrigin: true, listeners: listeners)
        if refusal == nil, let host = head.header("host")?.lowercased(),
           !(host.hasPrefix("127.") || host.hasPrefix("[::1]") || host.hasPrefix("localhost") || host.hasPrefix("hub")) {
            fatalError("Host \(host) passed on loopback")
        }
        _ = head.header("origin").flatMap(RequestOriginPolicy.normalizedOrigin)
    }
    // The client's side: the upgrade response, and server frames (which must not be masked).
    if let (head, consumed) = try? HTTPResponseHead.parse(input) {
        _ = try? WebSocketClientHandshake(host: "h", target: "/ws", key: "dGhlIHNhbXBsZSBub25jZQ==").validate(head)
        var client = WebSocketFrameParser(maxMessageSize: limit, requireMasked: false)
        client.append(input[consumed...])
        while (try? client.next()) ?? nil != nil {}
    }
}

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    fuzzOne(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
#else
@main enum Replay {
    static func main() { FuzzReplay.run(fuzzOne) }
}
#endif
