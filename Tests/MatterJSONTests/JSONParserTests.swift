import Foundation
import MatterJSON
import Testing
import TestSupport

@Suite struct JSONParserTests {
    @Test func integersStayExact() throws {
        #expect(try JSONParser.parse("18446744073709551615") == .uint(UInt64.max))
        #expect(try JSONParser.parse("9223372036854775807") == .int(Int64.max))
        #expect(try JSONParser.parse("9223372036854775808") == .uint(1 << 63))
        #expect(try JSONParser.parse("-9223372036854775808") == .int(Int64.min))
        #expect(try JSONParser.parse("-0") == .int(0))
        // 2^53 + 1 is not representable as a Double; it must survive.
        #expect(try JSONParser.parse("9007199254740993") == .int(9_007_199_254_740_993))
        #expect(try JSONParser.parse("1.0") == .double(1.0))
        #expect(try JSONParser.parse("-2.5e-3") == .double(-0.0025))
    }

    @Test func prettyPrintedInputAsTheClientSendsIt() throws {
        let text = "{\n  \"message_id\": \"c9648fd9\",\n  \"command\": \"device_command\",\n  \"args\": {\n    \"node_id\": 30,\n    \"payload\": {}\n  }\n}\n"
        let v = try JSONParser.parse(text)
        #expect(v["message_id"] == .string("c9648fd9"))
        #expect(v["args"]?["node_id"] == .int(30))
        #expect(v["args"]?["payload"] == .object(JSONObject()))
    }

    @Test func stringsAndEscapes() throws {
        #expect(try JSONParser.parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{c}\n\r\t"))
        #expect(try JSONParser.parse(#""\u00fc\u2603\ud83d\ude00""#) == .string("ü☃😀"))
        #expect(try JSONParser.parse("\"Küche\"") == .string("Küche"))
    }

    @Test func keyOrderIsKept() throws {
        let v = try JSONParser.parse(#"{"b":1,"a":2,"c":3}"#)
        #expect(v.objectValue?.keys == ["b", "a", "c"])
        #expect(JSONWriter.string(v) == #"{"b":1,"a":2,"c":3}"#)
    }

    static let malformed: [(String, [UInt8], JSONError)] = [
        ("empty", [], .unexpectedEnd(offset: 0)),
        ("trailing garbage", Array("{} x".utf8), .trailingBytes(offset: 3)),
        ("two values", Array("1 2".utf8), .trailingBytes(offset: 2)),
        ("trailing comma in array", Array("[1,]".utf8), .unexpectedByte(0x5D, offset: 3)),
        ("trailing comma in object", Array(#"{"a":1,}"#.utf8), .unexpectedByte(0x7D, offset: 7)),
        ("leading zero", Array("01".utf8), .invalidNumber(offset: 0)),
        ("bare minus", Array("-".utf8), .unexpectedEnd(offset: 1)),
        ("fraction without digits", Array("1.".utf8), .invalidNumber(offset: 0)),
        ("exponent without digits", Array("1e".utf8), .invalidNumber(offset: 0)),
        ("integer above UInt64", Array("18446744073709551616".utf8), .integerOutOfRange(offset: 0)),
        ("integer below Int64", Array("-9223372036854775809".utf8), .integerOutOfRange(offset: 0)),
        ("single quotes", Array("'a'".utf8), .unexpectedByte(0x27, offset: 0)),
        ("unterminated string", Array("\"abc".utf8), .unexpectedEnd(offset: 4)),
        ("raw newline in string", Array("\"a\nb\"".utf8), .controlCharacter(offset: 2)),
        ("bad escape", Array(#""\x""#.utf8), .invalidEscape(offset: 1)),
        ("lone high surrogate", Array(#""\ud83d""#.utf8), .invalidEscape(offset: 1)),
        ("lone low surrogate", Array(#""\ude00""#.utf8), .invalidEscape(offset: 1)),
        ("invalid UTF-8 byte", [0x22, 0xFF, 0x22], .invalidUTF8(offset: 1)),
        ("overlong UTF-8", [0x22, 0xC0, 0xAF, 0x22], .invalidUTF8(offset: 1)),
        ("UTF-8 surrogate", [0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8(offset: 1)),
        ("truncated UTF-8", [0x22, 0xE2, 0x98, 0x22], .invalidUTF8(offset: 1)),
        ("duplicate key", Array(#"{"a":1,"a":2}"#.utf8), .duplicateKey("a", offset: 7)),
        ("NaN", Array("NaN".utf8), .unexpectedByte(0x4E, offset: 0)),
        ("truncated literal", Array("tru".utf8), .unexpectedEnd(offset: 3)),
        ("wrong literal", Array("nul1".utf8), .unexpectedByte(0x31, offset: 3)),
        ("missing colon", Array(#"{"a" 1}"#.utf8), .unexpectedByte(0x31, offset: 5)),
        ("non-string key", Array("{1:2}".utf8), .unexpectedByte(0x31, offset: 1)),
        ("infinite double", Array("1e999".utf8), .invalidNumber(offset: 0)),
    ]

    @Test(arguments: malformed.indices)
    func refusesMalformed(_ i: Int) {
        let (name, input, expected) = Self.malformed[i]
        #expect(throws: expected, "\(name)") { try JSONParser.parse(input) }
    }

    @Test func depthLimit() throws {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONError.tooDeep(limit: 64, offset: 64)) { try JSONParser.parse(deep) }
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONParser.parse(ok) }
        // Deep input far past the limit fails fast instead of overflowing the stack.
        #expect(throws: JSONError.self) { try JSONParser.parse(String(repeating: "{\"a\":", count: 100_000)) }
    }

    /// Seeded mutations of real messages: each decodes or throws, and what decodes re-encodes to
    /// text that parses to the same value.
    @Test func mutationsNeverTrap() throws {
        let seeds = [
            #"{"message_id":"1","command":"device_command","args":{"node_id":30,"endpoint_id":1,"cluster_id":6,"command_name":"On","payload":{}}}"#,
            #"{"0/29/0":[{"0":22,"1":1}],"0/40/1":"Nabu Casa","0/54/4":-61,"1/6/16387":null,"x":[1.5,true,false,"\u00fc"]}"#,
        ]
        var rng = SeededRandom(seed: 16)
        for seed in seeds {
            for _ in 0..<3000 {
                let input = Mutation.mutate(Array(seed.utf8), using: &rng)
                guard let v = try? JSONParser.parse(input) else { continue }
                #expect(try JSONParser.parse(JSONWriter.encode(v)) == v)
            }
        }
    }

    @Test func speed() throws {
        // A node dump of 40 nodes of the HA fixture: a bound against quadratic work, not a speed
        // measure (10 s in a debug build on a loaded machine; it takes milliseconds).
        let fixture = TestVectors.directory.appendingPathComponent("matter-server/ha_mock_onoff_light.json")
        guard let node = try JSONParser.parse([UInt8](Data(contentsOf: fixture)))["node"] else {
            Issue.record("the fixture has no node")
            return
        }
        let text = JSONWriter.encode(.array(Array(repeating: node, count: 40)))
        let clock = ContinuousClock()
        var parsed: JSONValue = .null
        let elapsed = try clock.measure { parsed = try JSONParser.parse(text) }
        #expect(JSONWriter.encode(parsed) == text)
        #expect(elapsed < .seconds(10), "parsing \(text.count) bytes took \(elapsed)")
    }
}

@Suite struct JSONWriterTests {
    @Test func writesIntegersNeverAsFloats() {
        #expect(JSONWriter.string(.integer(UInt64.max)) == "18446744073709551615")
        #expect(JSONWriter.string(.integer(Int64.min)) == "-9223372036854775808")
        #expect(JSONWriter.string(.integer(0)) == "0")
        #expect(JSONWriter.string(.double(21.5)) == "21.5")
        #expect(JSONWriter.string(.double(.infinity)) == "null")
    }

    @Test func escapesControlCharacters() throws {
        let s = "a\u{0}b\u{1f}\"\\\n"
        let text = JSONWriter.string(.string(s))
        #expect(text == #""a\u0000b\u001f\"\\\n""#)
        #expect(try JSONParser.parse(text) == .string(s))
    }
}
