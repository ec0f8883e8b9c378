import MatterClusters
import MatterServerAPI
import MatterTLV
import Testing
import TestSupport

@Suite struct AttributeSchemaTests {
    static let schema = TestVectors.vectors("matter-server/cluster_schema.json") { $0.json["attribute"] != nil }

    /// The schema's notation of a type, with a fabric-scoped structure's fabric index counted
    /// optional on both sides (the SDK marks it mandatory; a write leaves it out).
    static func kind(_ text: String) -> String { text.replacingOccurrences(of: "fabricIndex/254?", with: "fabricIndex/254") }

    /// Each attribute scripts/gen-cluster-schema.py reads from the CHIP SDK's cluster objects has
    /// that name and type in the generated model.
    @Test(arguments: schema)
    func matchesTheCHIPClusterObjects(_ vector: Vector) throws {
        let cluster = try #require(vector.int("cluster").map(UInt32.init)), attribute = try #require(vector.int("attribute").map(UInt32.init))
        let definition = try #require(Clusters.cluster(id: cluster), "\(vector.id)")
        let entry = try #require(definition.attribute(id: attribute), "\(vector.id): not in the generated model")
        #expect("\(definition.name).\(entry.name)" == vector.string("name"))
        #expect(Self.kind(ClusterSchemaKind.of(entry.type)) == Self.kind(vector.string("type") ?? ""), "\(vector.id)")
        #expect(AttributeSchema.type(cluster: cluster, attribute: attribute) == entry.type)
    }

    static func type(_ name: String) throws -> MatterDataType {
        let parts = name.split(separator: ".").map(String.init)
        return try #require(Clusters.cluster(named: parts[0])?.attribute(named: parts[1])?.type, "\(name)")
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

    /// Wrong JSON types are refused by the schema (the hub answers error 8). The SDK's objects
    /// carry no integer widths: a plain integer is range-checked at 64 bits (the device checks
    /// its own constraints), an enum or bitmap at the width its values need.
    @Test(arguments: [("OnOff.OnTime", "true"), ("OnOff.OnTime", "-1"), ("BasicInformation.NodeLabel", "5"),
                      ("Thermostat.OccupiedHeatingSetpoint", "[1]"), ("Thermostat.OccupiedHeatingSetpoint", "\"2000\""),
                      ("BasicInformation.LocalConfigDisabled", "1"), ("OnOff.StartUpOnOff", "256"), ("OnOff.StartUpOnOff", "-1")])
    func refusesWrongTypes(_ name: String, _ json: String) throws {
        let type = try Self.type(name)
        #expect(throws: ValueCodingError.self) { try AttributeValueCoding.tlv(from: try JSONParser.parse(json), as: type) }
    }

    @Test func convertsToTheAttributesWidthAndSign() throws {
        let heat = try #require(AttributeSchema.type(cluster: 0x0201, attribute: 0x0012))
        #expect(try AttributeValueCoding.tlv(from: .int(2000), as: heat) == TLVElement(.signed(2000)))
        let startUp = try #require(AttributeSchema.type(cluster: 6, attribute: 0x4003))
        #expect(try AttributeValueCoding.tlv(from: .null, as: startUp) == .null)
    }
}

/// A real node's dump (Home Assistant's on/off light fixture, as python-matter-server sent it):
/// every attribute the generated model types converts to TLV with that type and back to the same JSON.
@Suite struct ModelTypedFixtureTests {
    @Test func everyAttributeOfTheFixtureRoundTripsThroughItsModelType() throws {
        let node = try NodeFixtures.onOffLight()
        let attributes = try #require(node["attributes"]?.objectValue)
        var typed = 0
        for member in attributes.members {
            let parts = member.key.split(separator: "/").compactMap { UInt32($0) }
            guard parts.count == 3, let type = AttributeSchema.type(cluster: parts[1], attribute: parts[2]) else { continue }
            typed += 1
            let tlv = try AttributeValueCoding.tlv(from: member.value, as: type)
            #expect(try AttributeValueCoding.json(from: tlv) == member.value, "\(member.key) as \(type.shortName)")
        }
        #expect(typed > 50, "only \(typed) attributes of the fixture are in the model")
        print("\(typed) of \(attributes.members.count) fixture attributes round-trip through their model types")
    }
}
