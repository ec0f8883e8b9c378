import MatterServerAPI
import MatterTLV
import Testing
import TestSupport

@Suite struct AttributeSchemaTests {
    static let schema = TestVectors.vectors("matter-server/cluster_schema.json") { $0.json["attribute"] != nil }

    static var entries: [String] { AttributeSchema.writable.values.map(\.name).sorted() }

    /// Each writable attribute has the name, id and type the CHIP SDK's cluster objects give it.
    /// (Fabric-scoped structs: the SDK marks fabricIndex mandatory; a write leaves it out, so
    /// it is optional here.)
    @Test(arguments: entries)
    func matchesTheCHIPClusterObjects(_ name: String) throws {
        let (key, entry) = try #require(AttributeSchema.writable.first { $0.value.name == name })
        let cluster = UInt32(key >> 32), attribute = UInt32(key & 0xFFFF_FFFF)
        let vector = try #require(Self.schema.first { $0.int("cluster") == Int(cluster) && $0.int("attribute") == Int(attribute) },
                                  "no such attribute in the CHIP cluster objects")
        #expect(vector.string("name") == name)
        #expect(vector.string("type") == ClusterSchemaKind.of(entry.type).replacingOccurrences(of: "fabricIndex/254?", with: "fabricIndex/254"))
        #expect(AttributeSchema.type(cluster: cluster, attribute: attribute) == entry.type)
    }

    @Test func schemaLoads() {
        #expect(Self.schema.count > 400 && Self.schema.allSatisfy { $0.loadError == nil })
    }

    /// Values of attributes without a schema keep the type the node reported.
    @Test(arguments: [
        (TLVElement.bytes([1, 2]), MatterDataType.bytes), (TLVElement(.signed(-3)), .int64), (TLVElement(.unsigned(3)), .uint64),
        (.utf8("x"), .string), (.bool(true), .bool), (.null, .any), (.array([TLVElement(.unsigned(1))]), .list(.uint64)),
    ])
    func inferredFromAValue(_ value: TLVElement, _ expected: MatterDataType) {
        #expect(AttributeSchema.inferred(from: value) == expected)
    }

    @Test func inferredStructKeepsTags() throws {
        let value = TLVElement.structure([.unsigned(.context(0), UInt8(3)), .bytes(.context(2), [9])])
        let type = AttributeSchema.inferred(from: value)
        let back = try AttributeValueCoding.tlv(from: try JSONParser.parse(#"{"0": 4, "2": "Cg=="}"#), as: type)
        #expect(back == .structure([.unsigned(.context(0), UInt8(4)), .bytes(.context(2), [10])]))
    }

    /// Wrong JSON types are refused by the schema (the hub answers error 8).
    @Test(arguments: [("OnOff.OnTime", "true"), ("OnOff.OnTime", "70000"), ("BasicInformation.NodeLabel", "5"),
                      ("Thermostat.OccupiedHeatingSetpoint", "40000"), ("Thermostat.OccupiedHeatingSetpoint", "\"2000\""),
                      ("BasicInformation.LocalConfigDisabled", "1"), ("OnOff.StartUpOnOff", "256")])
    func refusesWrongTypes(_ name: String, _ json: String) throws {
        let type = try #require(AttributeSchema.writable.values.first { $0.name == name }?.type)
        #expect(throws: ValueCodingError.self) { try AttributeValueCoding.tlv(from: try JSONParser.parse(json), as: type) }
    }

    @Test func convertsToTheAttributesWidthAndSign() throws {
        let heat = try #require(AttributeSchema.type(cluster: 0x0201, attribute: 0x0012))
        #expect(try AttributeValueCoding.tlv(from: .int(2000), as: heat) == TLVElement(.signed(2000)))
        let startUp = try #require(AttributeSchema.type(cluster: 6, attribute: 0x4003))
        #expect(try AttributeValueCoding.tlv(from: .null, as: startUp) == .null)
    }
}
