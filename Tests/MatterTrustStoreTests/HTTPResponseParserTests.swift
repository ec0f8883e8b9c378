import Foundation
import MatterTrustStore
import Testing
import TestSupport

/// The sans-I/O HTTP/1.1 response parser: framings, strictness, limits, incremental input, and
/// seeded mutations (parse or throw, never trap, never pass the limit).
@Suite struct HTTPResponseParserTests {
    typealias Parser = HTTPResponseParser

    struct Valid: Sendable, CustomTestStringConvertible {
        let name: String
        let response: String
        let status: Int
        let body: String
        let framing: Parser.Framing
        var testDescription: String { name }
    }

    static let valid: [Valid] = [
        Valid(name: "content-length", response: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
              status: 200, body: "{}", framing: .length(2)),
        Valid(name: "repeated equal lengths", response: "HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc",
              status: 200, body: "abc", framing: .length(3)),
        Valid(name: "zero length", response: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", status: 200, body: "", framing: .length(0)),
        Valid(name: "chunked", response: "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n4\r\nWiki\r\n5;ext=1\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\n\r\n",
              status: 200, body: "Wikipedia in\r\n\r\nchunks.", framing: .chunked),
        Valid(name: "chunked with trailers", response: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\n0123456789\r\n0\r\nDigest: x\r\nX-Y: z\r\n\r\n",
              status: 200, body: "0123456789", framing: .chunked),
        Valid(name: "until close, HTTP/1.0", response: "HTTP/1.0 200 OK\r\n\r\nall of it\r\n", status: 200, body: "all of it\r\n", framing: .untilClose),
        Valid(name: "no reason phrase", response: "HTTP/1.1 404\r\nContent-Length: 1\r\n\r\nx", status: 404, body: "x", framing: .length(1)),
        Valid(name: "empty reason phrase", response: "HTTP/1.1 302 \r\nLocation: /b\r\nContent-Length: 0\r\n\r\n", status: 302, body: "", framing: .length(0)),
        Valid(name: "interim responses", response: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n!",
              status: 200, body: "!", framing: .length(1)),
        Valid(name: "no content", response: "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", status: 204, body: "", framing: .none),
        Valid(name: "whitespace around values, empty value", response: "HTTP/1.1 200 OK\r\nX-Empty:\r\nContent-Length: \t2 \r\n\r\nok",
              status: 200, body: "ok", framing: .length(2)),
    ]

    @Test(arguments: valid)
    func parsesAWholeResponse(_ v: Valid) throws {
        let (head, body) = try Parser.parse(Array(v.response.utf8), bodyLimit: 1000)
        #expect(head.status == v.status)
        #expect(head.framing == v.framing)
        #expect(String(decoding: body, as: UTF8.self) == v.body)
    }

    @Test(arguments: valid)
    func parsesAResponseByteByByte(_ v: Valid) throws {
        var parser = Parser(bodyLimit: 1000)
        for byte in v.response.utf8 {
            try parser.consume([byte])
            if parser.head != nil { try parser.acceptBody() }
        }
        try parser.finish()
        #expect(parser.head?.status == v.status)
        #expect(String(decoding: parser.body, as: UTF8.self) == v.body)
        #expect(parser.isComplete)
    }

    @Test func fieldsAreLowerCasedAndFound() throws {
        let (head, _) = try Parser.parse(Array("HTTP/1.1 301 Moved Permanently\r\nLOCATION:  https://x/y \r\nContent-Length: 0\r\n\r\n".utf8),
                                         bodyLimit: 0)
        #expect(head.reason == "Moved Permanently")
        #expect(head.field("Location") == "https://x/y")
        #expect(head.fields.map(\.name) == ["location", "content-length"])
    }

    /// The head alone is parsed first; the body waits for `acceptBody` (so a 404's declared
    /// length does not turn into "too large").
    @Test func theBodyWaitsUntilItIsAccepted() throws {
        var parser = Parser(bodyLimit: 10)
        try parser.consume(Array("HTTP/1.1 404 Not Found\r\nContent-Length: 5000\r\n\r\nxxxx".utf8))
        #expect(parser.head?.status == 404)
        #expect(parser.body.isEmpty)
        #expect(throws: Parser.Failure.bodyTooLarge(declared: 5000, limit: 10)) { try parser.acceptBody() }
    }

    static let malformed: [(String, Parser.Failure)] = [
        ("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n", .bodyTooLarge(declared: 11, limit: 10)),
        ("HTTP/1.1 200 OK\r\n\r\n0123456789A", .bodyTooLarge(declared: nil, limit: 10)),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nB\r\n", .bodyTooLarge(declared: nil, limit: 10)),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n6\r\n", .bodyTooLarge(declared: nil, limit: 10)),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFF\r\n", .malformed("chunk size too long")),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", .malformed("chunk size is not hexadecimal")),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1 x\r\n", .malformed("bad chunk extension")),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n", .malformed("chunk data not followed by CRLF")),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbad trailer\r\n\r\n", .malformed("header line without a colon")),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\n", .malformed("bare LF in the chunk-size line")),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\rx", .malformed("bare CR in the chunk-size line")),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "0", count: 5000), .malformed("chunk-size line longer than 4096 bytes")),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "e", count: 5000), .malformed("chunk-size line longer than 4096 bytes")),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\n\r\n", .malformed("unsupported Transfer-Encoding 'identity' (only chunked)")),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", .malformed("unsupported Transfer-Encoding 'chunked, chunked' (only chunked)")),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", .malformed("both Transfer-Encoding and Content-Length")),
        ("HTTP/1.1 200 OK\r\nContent-Length: 0x10\r\n\r\n", .malformed("bad Content-Length '0x10'")),
        ("HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n", .malformed("bad Content-Length ''")),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1,\r\n\r\n", .malformed("bad Content-Length '1, '")),
        ("HTTP/1.1 200 OK\r\nContent-Length: +1\r\n\r\n", .malformed("bad Content-Length '+1'")),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", .malformed("bad Content-Length '1, 2'")),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1000000000000000000\r\n\r\n", .malformed("bad Content-Length '1000000000000000000'")),
        ("HTTP/1.1 101 Switching Protocols\r\n\r\n", .malformed("101 Switching Protocols to a GET")),
        (String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 11), .malformed("more than 10 interim 1xx responses")),
        ("HTTP/1.1 20 OK\r\n\r\n", .malformed("bad status code in the status line")),
        ("HTTP/1.1 2000 OK\r\n\r\n", .malformed("bad status line (no space after the status code)")),
        ("HTTP/1.1 099 OK\r\n\r\n", .malformed("bad status code in the status line")),
        ("HTTP/1.1 600 OK\r\n\r\n", .malformed("bad status code in the status line")),
        ("HTTP/1.2 200 OK\r\n\r\n", .malformed("bad status line (expected HTTP/1.1 and a status code)")),
        ("http/1.1 200 OK\r\n\r\n", .malformed("bad status line (expected HTTP/1.1 and a status code)")),
        ("HTTP/1.1  200 OK\r\n\r\n", .malformed("bad status code in the status line")),
        ("\r\nHTTP/1.1 200 OK\r\n\r\n", .malformed("bad status line (expected HTTP/1.1 and a status code)")),
        ("HTTP/1.1 200 O\u{1}K\r\n\r\n", .malformed("control character in the reason phrase")),
        ("HTTP/1.1 200 OK\r\nX: a\u{0}b\r\n\r\n", .malformed("control character in the x field")),
        ("HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", .malformed("bare CR in the head")),
        ("HTTP/1.1 200 OK\r\nX: a\nb\r\n\r\n", .malformed("bare LF in the head")),
        ("HTTP/1.1 200 OK\r\n: a\r\n\r\n", .malformed("empty header field name")),
        ("HTTP/1.1 200 OK\r\nX : a\r\n\r\n", .malformed("bad character in a header field name")),
        ("HTTP/1.1 200 OK\r\nX(y): a\r\n\r\n", .malformed("bad character in a header field name")),
        ("HTTP/1.1 200 OK\r\nX: a\r\n\tb\r\n\r\n", .malformed("folded header line (obs-fold)")),
        ("HTTP/1.1 200 OK\r\nX: a\r\n b: c\r\n\r\n", .malformed("folded header line (obs-fold)")),
        ("HTTP/1.1 200 OK\r\n" + String(repeating: "A: b\r\n", count: 101) + "\r\n", .malformed("more than 100 header fields")),
        ("HTTP/1.1 200 OK\r\nX: " + String(repeating: "y", count: 16_400) + "\r\n\r\n", .headTooLong(16384)),
        ("HTTP/1.1 200 OK\r\nX: " + String(repeating: "y", count: 16_400), .headTooLong(16384)),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + String(repeating: "T: v\r\n", count: 3000), .malformed("trailer section longer than 16384 bytes")),
        ("", .truncated("the server closed the connection without answering")),
        ("HTTP/1.1 200 OK\r\n", .truncated("the server closed the connection in the middle of the response head")),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", .truncated("the server closed the connection after 2 of 5 body bytes")),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", .truncated("the server closed the connection in the middle of the chunked body (after 2 bytes)")),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n", .truncated("the server closed the connection in the middle of the chunked body (after 0 bytes)")),
    ]

    @Test(arguments: malformed)
    func refusesMalformedOrOversizedResponses(_ response: String, _ expected: Parser.Failure) {
        #expect(throws: expected) { _ = try Parser.parse(Array(response.utf8), bodyLimit: 10) }
    }

    /// Fed in small pieces, each malformed response fails the same way.
    @Test(arguments: malformed)
    func refusesMalformedResponsesInPieces(_ response: String, _ expected: Parser.Failure) {
        #expect(throws: expected) {
            var parser = Parser(bodyLimit: 10)
            let bytes = Array(response.utf8)
            var i = 0
            while i < bytes.count {
                try parser.consume(bytes[i..<min(i + 7, bytes.count)])
                if parser.head != nil { try parser.acceptBody() }
                i += 7
            }
            try parser.finish()
        }
    }

    @Test func parsesTheRequestTarget() throws {
        let t = try HTTPRequestTarget(URL(string: "https://on.dcl.csa-iot.org/dcl/pki/root-certificates?pagination.key=a%2B#x")!)
        #expect(t.host == "on.dcl.csa-iot.org" && t.port == 443 && t.isTLS)
        #expect(t.target == "/dcl/pki/root-certificates?pagination.key=a%2B")
        #expect(String(decoding: t.request, as: UTF8.self) == "GET /dcl/pki/root-certificates?pagination.key=a%2B HTTP/1.1\r\n"
                + "Host: on.dcl.csa-iot.org\r\nUser-Agent: MatterHub\r\nAccept: */*\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n")
        let v6 = try HTTPRequestTarget(URL(string: "http://[::1]:8080")!)
        #expect(v6.host == "::1" && v6.port == 8080 && !v6.isTLS && v6.target == "/" && v6.hostField == "[::1]:8080")
        #expect(throws: TrustStoreError.self) { try HTTPRequestTarget(URL(string: "https://host:0/")!) }
    }

    /// Seeded mutations of the valid responses: each parses or throws, and no body passes the limit.
    @Test func mutatedResponsesNeverTrap() {
        var rng = SeededRandom(seed: 0x4854_5450)
        let seeds = Self.valid.map { Array($0.response.utf8) } + Self.malformed.map { Array($0.0.utf8) }
        for i in 0..<4_000 {  // fuzz-http-response goes deeper; this keeps the test pool free
            var input = seeds[i % seeds.count]
            for _ in 0..<(1 + Int(rng.next() % 3)) { input = Mutation.mutate(input, using: &rng) }
            let limit = Int(rng.next() % 64)
            if let (_, body) = try? Parser.parse(input, bodyLimit: limit) {
                #expect(body.count <= limit)
            }
        }
    }
}
