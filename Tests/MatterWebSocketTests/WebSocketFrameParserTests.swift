import Foundation
import MatterWebSocket
import Testing
import TestSupport

/// The `frames` of testvectors/websocket.json.
let frameVectors: [Vector] = {
    guard let data = try? Data(contentsOf: TestVectors.directory.appendingPathComponent("websocket.json")),
          let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
          let frames = root["frames"] as? [[String: Any]] else { return [Vector(["id": "load-failure", "error": "websocket.json"])] }
    return frames.map(Vector.init)
}()

@Suite struct WebSocketFrameParserTests {
    @Test(arguments: frameVectors)
    func rfcExamples(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let frame = try #require(v.hex("frame"))
        let masked: Bool = try #require(v.bool("masked") as Bool?)
        let expected = try #require(v["events"] as? [[String: String]])
        // Fed whole and byte by byte, the parser yields the same events.
        for chunk in [frame.count, 1, 7] {
            var parser = WebSocketFrameParser(maxMessageSize: 1 << 20, requireMasked: masked)
            var events: [WebSocketFrameParser.Event] = []
            var i = 0
            while i < frame.count {
                parser.append(frame[i..<min(i + chunk, frame.count)])
                i += chunk
                while let e = try parser.next() { events.append(e) }
            }
            #expect(events.count == expected.count)
            for (e, x) in zip(events, expected) {
                switch e {
                case .text(let t): #expect(String(decoding: t, as: UTF8.self) == x["text"])
                case .binary(let b): #expect(Hex.encode(b) == x["binary"])
                case .ping(let p): #expect(Hex.encode(p) == x["ping"])
                case .pong(let p): #expect(Hex.encode(p) == x["pong"])
                case .close: Issue.record("unexpected close")
                }
            }
            #expect(parser.bufferedByteCount == 0)
        }
    }

    @Test func encoderMatchesTheRFCExamples() {
        #expect(Hex.encode(WebSocketFrame.encode(.text, Array("Hello".utf8))) == "810548656c6c6f")
        #expect(Hex.encode(WebSocketFrame.encode(.text, Array("Hello".utf8), maskingKey: [0x37, 0xFA, 0x21, 0x3D]))
            == "818537fa213d7f9f4d5158")
        #expect(Hex.encode(Array(WebSocketFrame.encode(.binary, [UInt8](repeating: 0, count: 256)).prefix(4))) == "827e0100")
        #expect(Hex.encode(Array(WebSocketFrame.encode(.binary, [UInt8](repeating: 0, count: 65536)).prefix(10)))
            == "827f0000000000010000")
    }

    @Test func controlFramesInsideAFragmentedMessage() throws {
        var p = WebSocketFrameParser()
        let key: [UInt8] = [1, 2, 3, 4]
        p.append(WebSocketFrame.encode(.text, Array("He".utf8), fin: false, maskingKey: key))
        p.append(WebSocketFrame.encode(.ping, [9], maskingKey: key))
        p.append(WebSocketFrame.encode(.continuation, Array("ll".utf8), fin: false, maskingKey: key))
        p.append(WebSocketFrame.encode(.continuation, Array("o".utf8), fin: true, maskingKey: key))
        #expect(try p.next() == .ping([9]))
        #expect(try p.next() == .text(Array("Hello".utf8)))
        #expect(try p.next() == nil)
    }

    @Test func closeFrames() throws {
        var p = WebSocketFrameParser()
        p.append(WebSocketFrame.close(.goingAway, reason: "bye", maskingKey: [9, 9, 9, 9]))
        #expect(try p.next() == .close(code: .goingAway, reason: "bye"))
        var q = WebSocketFrameParser()
        q.append(WebSocketFrame.encode(.close, [], maskingKey: [9, 9, 9, 9]))
        #expect(try q.next() == .close(code: nil, reason: ""))
    }

    static let key: [UInt8] = [0xA, 0xB, 0xC, 0xD]
    static let malformed: [(String, [UInt8], WebSocketCloseCode)] = [
        ("unmasked client frame", WebSocketFrame.encode(.text, Array("x".utf8)), .protocolError),
        ("reserved bit set", WebSocketFrame.encode(.text, Array("x".utf8), maskingKey: key, rsv: 4), .protocolError),
        ("unknown data opcode", WebSocketFrame.encode(WebSocketOpcode(rawValue: 3), [1], maskingKey: key), .protocolError),
        ("unknown control opcode", WebSocketFrame.encode(WebSocketOpcode(rawValue: 0xB), [1], maskingKey: key), .protocolError),
        ("fragmented ping", WebSocketFrame.encode(.ping, [1], fin: false, maskingKey: key), .protocolError),
        ("ping over 125 bytes", WebSocketFrame.encode(.ping, [UInt8](repeating: 1, count: 126), maskingKey: key), .protocolError),
        ("continuation with nothing to continue", WebSocketFrame.encode(.continuation, [1], maskingKey: key), .protocolError),
        ("new message inside a fragmented one", WebSocketFrame.encode(.text, [0x61], fin: false, maskingKey: key)
            + WebSocketFrame.encode(.text, [0x62], maskingKey: key), .protocolError),
        ("text not UTF-8", WebSocketFrame.encode(.text, [0xC0, 0xAF], maskingKey: key), .invalidPayload),
        ("text split inside a character, invalid overall", WebSocketFrame.encode(.text, [0xE2, 0x98], fin: false, maskingKey: key)
            + WebSocketFrame.encode(.continuation, [0x41], maskingKey: key), .invalidPayload),
        ("close with 1-byte payload", WebSocketFrame.encode(.close, [3], maskingKey: key), .protocolError),
        ("close code 1005 on the wire", WebSocketFrame.encode(.close, [0x03, 0xED], maskingKey: key), .protocolError),
        ("close code 999", WebSocketFrame.encode(.close, [0x03, 0xE7], maskingKey: key), .protocolError),
        ("close reason not UTF-8", WebSocketFrame.encode(.close, [0x03, 0xE8, 0xFF], maskingKey: key), .invalidPayload),
        ("16-bit length not minimal", [0x81, 0xFE, 0x00, 0x05] + key + [1, 2, 3, 4, 5], .protocolError),
        ("64-bit length not minimal", [0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0x01, 0x00] + key, .protocolError),
        ("64-bit length top bit", [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0] + key, .protocolError),
        ("frame over the limit (header only)", [0x82, 0xFF, 0, 0, 0, 0, 0, 0x10, 0, 0] + key, .messageTooBig),
        ("fragments over the limit", WebSocketFrame.encode(.binary, [UInt8](repeating: 0, count: 800), fin: false, maskingKey: key)
            + WebSocketFrame.encode(.continuation, [UInt8](repeating: 0, count: 300), maskingKey: key), .messageTooBig),
    ]

    @Test(arguments: malformed.indices)
    func refusesMalformed(_ i: Int) {
        let (name, bytes, code) = Self.malformed[i]
        var p = WebSocketFrameParser(maxMessageSize: 1024)
        p.append(bytes)
        do {
            while try p.next() != nil {}
            Issue.record("\(name): accepted")
        } catch {
            #expect(error.code == code, "\(name): \(error)")
            // The parser stays failed.
            #expect(throws: WebSocketFrameParser.Failure.self) { try p.next() }
        }
    }

    @Test func mutationsNeverTrap() {
        var rng = SeededRandom(seed: 1_6455)
        let seed = WebSocketFrame.encode(.text, Array("{\"message_id\":\"1\"}".utf8), fin: false, maskingKey: Self.key)
            + WebSocketFrame.encode(.ping, [1, 2], maskingKey: Self.key)
            + WebSocketFrame.encode(.continuation, Array("x".utf8), maskingKey: Self.key)
        for _ in 0..<5000 {
            var p = WebSocketFrameParser(maxMessageSize: 4096)
            p.append(Mutation.mutate(seed, using: &rng))
            while (try? p.next()) ?? nil != nil {}
        }
    }
}

@Suite struct WebSocketHandshakeTests {
    @Test func rfcAcceptValue() {
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    func head(_ text: String) throws -> HTTPRequestHead {
        try #require(try HTTPRequestHead.parse(Array(text.utf8))).head
    }

    static let upgrade = "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        + "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"

    @Test func upgradesAndDeclinesCompression() throws {
        guard case .upgrade(let response) = WebSocketHandshake.evaluate(try head(Self.upgrade), path: "/ws", token: nil) else {
            Issue.record("no upgrade"); return
        }
        #expect(response.status == 101)
        #expect(response.headers["Sec-WebSocket-Accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(response.headers["Sec-WebSocket-Extensions"] == nil)
    }

    @Test func tokens() throws {
        let withToken = Self.upgrade.replacingOccurrences(of: "GET /ws ", with: "GET /ws?token=s%3Dcret ")
        guard case .upgrade = WebSocketHandshake.evaluate(try head(withToken), path: "/ws", token: "s=cret") else {
            Issue.record("token refused"); return
        }
        for bad in [Self.upgrade, Self.upgrade.replacingOccurrences(of: "GET /ws ", with: "GET /ws?token=wrong ")] {
            guard case .reject(let r) = WebSocketHandshake.evaluate(try head(bad), path: "/ws", token: "s=cret") else {
                Issue.record("accepted without the token"); return
            }
            #expect(r.status == 401)
            #expect(!String(decoding: r.body, as: UTF8.self).contains("s=cret"))
        }
    }

    @Test func refusals() throws {
        func status(_ text: String) throws -> Int? {
            if case .reject(let r) = WebSocketHandshake.evaluate(try head(text), path: "/ws", token: nil) { return r.status }
            return nil
        }
        #expect(try status(Self.upgrade.replacingOccurrences(of: "Version: 13", with: "Version: 8")) == 426)
        #expect(try status(Self.upgrade.replacingOccurrences(of: "dGhlIHNhbXBsZSBub25jZQ==", with: "short")) == 400)
        #expect(try status(Self.upgrade.replacingOccurrences(of: "GET ", with: "POST ")) == 405)
        #expect(try status(Self.upgrade.replacingOccurrences(of: "HTTP/1.1", with: "HTTP/1.0")) == 400)
        #expect(try status(Self.upgrade.replacingOccurrences(of: "Upgrade: websocket\r\n", with: "")) == 426)
        #expect(try status(Self.upgrade.replacingOccurrences(of: "GET /ws ", with: "GET /other ")) == 404)
        let plain = try head("GET /info HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(WebSocketHandshake.evaluate(plain, path: "/ws", token: nil) == .plainHTTP)
    }

    @Test func requestHeadParsing() throws {
        #expect(try HTTPRequestHead.parse(Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8)) == nil)  // incomplete
        #expect(throws: HTTPRequestHead.ParseError.tooLong) {
            try HTTPRequestHead.parse([UInt8](repeating: 0x41, count: HTTPRequestHead.maxHeadLength + 1))
        }
        for bad in ["GARBAGE\r\n\r\n", "GET /ws\r\n\r\n", "GET ws HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
                    "GET / SPDY/3\r\n\r\n", "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n"] {
            #expect(throws: HTTPRequestHead.ParseError.self, "\(bad)") { try HTTPRequestHead.parse(Array(bad.utf8)) }
        }
        let h = try head("GET /ws?token=a+b&x HTTP/1.1\r\nX-A: 1\r\nx-a: 2\r\n\r\n")
        #expect(h.path == "/ws")
        #expect(h.query.first?.value == "a b")
        #expect(h.header("X-A") == "1, 2")
    }
}
