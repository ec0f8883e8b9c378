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
        _ = WebSocketHandshake.evaluate(head, path: "/ws", token: "t")
        _ = head.query
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
