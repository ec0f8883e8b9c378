import MatterTrustStore
#if !FUZZING
import FuzzSupport
#endif

/// libFuzzer target for the trust store's HTTP/1.1 response parser (`HTTPResponseParser`). The
/// first byte picks the piece size and the body limit; the rest is the response, fed in pieces
/// as a socket would deliver it, then the end of the stream. The parser parses or throws, never
/// traps; no body passes its limit; a Content-Length body is exactly that long; and a response
/// that parses in pieces parses the same in one go.
func fuzzOne(_ input: [UInt8]) {
    guard let control = input.first else { return }
    let piece = Int(control & 0x0F) + 1
    let limit = [0, 1, 16, 100, 1000, 4096, 1 << 20, Int.max >> 1][Int(control >> 4) & 7]
    let response = Array(input.dropFirst())
    let headLimit = 1024  // small, so the head and trailer limits are reachable

    var parser = HTTPResponseParser(bodyLimit: limit, maxHeadLength: headLimit)
    var incremental: (HTTPResponseParser.Head, [UInt8])?
    do {
        var i = 0
        while i < response.count, !parser.isComplete {
            try parser.consume(response[i..<min(i + piece, response.count)])
            if parser.head != nil { try parser.acceptBody() }
            i += piece
        }
        try parser.finish()
        guard let head = parser.head else { fatalError("a finished parser without a head") }
        incremental = (head, parser.body)
    } catch {}
    guard parser.body.count <= limit else { fatalError("body of \(parser.body.count) bytes over the limit \(limit)") }

    var whole = HTTPResponseParser(bodyLimit: limit, maxHeadLength: headLimit)
    var oneShot: (HTTPResponseParser.Head, [UInt8])?
    do {
        try whole.consume(response)
        try whole.acceptBody()
        try whole.finish()
        if let head = whole.head { oneShot = (head, whole.body) }
    } catch {}

    if let (head, body) = incremental {
        if case .length(let n) = head.framing, body.count != n { fatalError("Content-Length \(n) but \(body.count) body bytes") }
        guard let (head2, body2) = oneShot, head2 == head, body2 == body else { fatalError("parsed in pieces but not in one go") }
    } else if oneShot != nil {
        fatalError("parsed in one go but not in pieces")
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
