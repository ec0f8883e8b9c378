import MatterClusters
import MatterServerAPI
import MatterTLV
import Testing
import TestSupport

@Suite struct AttributeValueCodingTests {
    /// TLV from the SDK's Python writer -> the JSON python-matter-server sends, exactly; and back
    /// from that JSON, with the element's own types as schema, to the same element.
    @Test(arguments: TestVectors.vectors("matter-server/attribute_values.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let tlv = try #require(v.hex("tlv"))
        let expected = try #require(v.string("json"))
        let element = try TLVDecoder.decode(tlv)
        let json = try AttributeValueCoding.json(from: element)
        #expect(JSONWriter.string(json) == expected)
        #expect(try JSONParser.parse(expected) == json)
        let back = try AttributeValueCoding.tlv(from: json, as: Self.schema(of: element))
        #expect(back == element)
    }

    /// The data type that describes `element` (its own widths are not kept in the tree).
    static func schema(of element: TLVElement) -> MatterDataType {
        switch element.value {
        case .bool: return .bool
        case .unsigned: return .uint64
        case .signed: return .int64
        case .float: return .float
        case .double: return .double
        case .utf8: return .string
        case .bytes: return .bytes
        case .null: return .nullable(.bool)
        case .container(.structure, let members):
            return .structure(members.map { m -> MatterField in
                guard case .context(let tag) = m.tag else { return MatterField("?", tag: 0, .any) }
                return MatterField("f\(tag)", tag: tag, schema(of: m))
            })
        case .container(_, let members):
            return .list(members.first.map(schema(of:)) ?? .any)
        }
    }

    @Test func structKeysMayBeNamesOrTags() throws {
        let type = MatterDataType.structure([MatterField("caseSessionsPerFabric", tag: 0, .uint16),
                                             MatterField("subscriptionsPerFabric", tag: 1, .uint16)])
        let byTag = try AttributeValueCoding.tlv(from: JSONParser.parse(#"{"0":3,"1":4}"#), as: type)
        let byName = try AttributeValueCoding.tlv(from: JSONParser.parse(#"{"caseSessionsPerFabric":3,"subscriptionsPerFabric":4}"#), as: type)
        #expect(byTag == byName)
        #expect(byTag == .structure([.unsigned(.context(0), UInt16(3)), .unsigned(.context(1), UInt16(4))]))
    }

    static let refusals: [(String, String, MatterDataType)] = [
        ("float for int", "1.0", .uint8),
        ("bool as 1", "1", .bool),
        ("out of range uint8", "256", .uint8),
        ("negative for unsigned", "-1", .uint16),
        ("int8 overflow", "128", .int8),
        ("int8 underflow", "-129", .int8),
        ("string for bytes, not base64", "\"abc\"", .bytes),
        ("array of ints for bytes", "[1,2]", .bytes),
        ("null for non-nullable", "null", .uint8),
        ("unknown struct key", #"{"9":1}"#, .structure([MatterField("a", tag: 0, .uint8)])),
        ("struct key twice (tag and name)", #"{"0":1,"a":2}"#, .structure([MatterField("a", tag: 0, .uint8)])),
        ("list element wrong", #"[1,"x"]"#, .list(.uint8)),
    ]

    @Test(arguments: refusals.indices)
    func refusesMismatches(_ i: Int) throws {
        let (name, text, type) = Self.refusals[i]
        #expect(throws: ValueCodingError.self, "\(name)") { try AttributeValueCoding.tlv(from: JSONParser.parse(text), as: type) }
    }

    @Test func refusesNonContextStructureTags() {
        let element = TLVElement.structure([TLVElement(tag: .commonProfile(5), .bool(true))])
        #expect(throws: ValueCodingError.self) { try AttributeValueCoding.json(from: element) }
    }

    @Test func untypedConversion() throws {
        let element = try AttributeValueCoding.tlv(from: JSONParser.parse(#"[{"0":256,"1":-1,"2":null,"3":"x"}]"#), as: .any)
        #expect(element == .array([.structure([.unsigned(.context(0), UInt16(256)), .signed(.context(1), Int8(-1)),
                                               .null(.context(2)), .utf8(.context(3), "x")])]))
        #expect(throws: ValueCodingError.self) { try AttributeValueCoding.tlv(from: JSONParser.parse(#"{"name":1}"#), as: .any) }
    }

    @Test func mutatedTLVNeverTraps() throws {
        let vectors = try TestVectors.load("matter-server/attribute_values.json")
        var rng = SeededRandom(seed: 6455)
        for v in vectors {
            guard let hex = v["tlv"] as? String, let tlv = Hex.decode(hex) else { continue }
            for _ in 0..<200 {
                guard let element = try? TLVDecoder.decode(Mutation.mutate(tlv, using: &rng)) else { continue }
                if let json = try? AttributeValueCoding.json(from: element) {
                    #expect(try JSONParser.parse(JSONWriter.encode(json)) == json)
                }
            }
        }
    }
}
