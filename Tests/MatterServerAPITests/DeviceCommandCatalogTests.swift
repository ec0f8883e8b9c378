import Foundation
import MatterClusters
import MatterServerAPI
import MatterTLV
import Testing
import TestSupport

@Suite struct DeviceCommandCatalogTests {
    /// (cluster, name, id) facts from chip/clusters/Objects.py (home-assistant-chip-clusters 2025.7.0).
    static let ids: [(UInt32, String, UInt32)] = [
        (6, "Off", 0), (6, "On", 1), (6, "Toggle", 2), (6, "OffWithEffect", 0x40), (6, "OnWithTimedOff", 0x42),
        (8, "MoveToLevel", 0), (8, "MoveToLevelWithOnOff", 4), (8, "StopWithOnOff", 7),
        (0x300, "MoveToHueAndSaturation", 6), (0x300, "MoveToColor", 7), (0x300, "MoveToColorTemperature", 0x0A),
        (0x300, "EnhancedMoveToHue", 0x40), (0x300, "StopMoveStep", 0x47), (0x300, "StepColorTemperature", 0x4C),
        (3, "Identify", 0), (3, "TriggerEffect", 0x40),
        (0x101, "LockDoor", 0), (0x101, "UnlockDoor", 1), (0x101, "UnlockWithTimeout", 3), (0x101, "GetUser", 0x1B),
        (0x101, "UnboltDoor", 0x27),
        (0x102, "UpOrOpen", 0), (0x102, "DownOrClose", 1), (0x102, "StopMotion", 2), (0x102, "GoToLiftPercentage", 5),
        (0x201, "SetpointRaiseLower", 0),
        (0x3E, "UpdateFabricLabel", 9), (0x3E, "RemoveFabric", 0x0A),
        (0x3C, "OpenCommissioningWindow", 0), (0x3C, "OpenBasicCommissioningWindow", 1), (0x3C, "RevokeCommissioning", 2),
    ]

    @Test(arguments: ids.indices)
    func commandIDs(_ i: Int) throws {
        let (cluster, name, id) = Self.ids[i]
        let command = try #require(Clusters.command(cluster: cluster, name: name))
        #expect(command.id == id)
    }

    @Test func namesAreUniquePerCluster() {
        var seen = Set<String>()
        for c in Clusters.all.flatMap(\.commands) { #expect(seen.insert("\(c.clusterID)/\(c.name)").inserted, "\(c.name)") }
        #expect(Clusters.command(cluster: 6, name: "on") == nil)  // the Python class names only
    }

    @Test func payloadsAsTheClientSendsThem() throws {
        // dataclass_to_dict(MoveToLevelWithOnOff(level=128)) (ws-api.md section 5.3).
        let move = try #require(Clusters.command(cluster: 8, name: "MoveToLevelWithOnOff"))
        let fields = try move.encodePayload(#require(JSONParser.parse(#"{"level":128,"transitionTime":null,"optionsMask":0,"optionsOverride":0}"#).objectValue))
        #expect(fields == .structure([.unsigned(.context(0), UInt8(128)), .null(.context(1)),
                                      .unsigned(.context(2), UInt8(0)), .unsigned(.context(3), UInt8(0))]))
        // Left-out mandatory fields take the dataclass defaults (0, null).
        #expect(try move.encodePayload(#require(JSONParser.parse(#"{"level":128}"#).objectValue)) == fields)
        #expect(try move.decodePayload(fields) == JSONParser.parse(#"{"level":128,"transitionTime":null,"optionsMask":0,"optionsOverride":0}"#))

        // DoorLock.LockDoor(b"1234") -> {"PINCode": "MTIzNA=="}; timed.
        let lock = try #require(Clusters.command(cluster: 0x101, name: "LockDoor"))
        #expect(lock.requiresTimedInvoke)
        #expect(try lock.encodePayload(#require(JSONParser.parse(#"{"PINCode":"MTIzNA=="}"#).objectValue))
            == .structure([.bytes(.context(0), Array("1234".utf8))]))
        #expect(try lock.encodePayload(#require(JSONParser.parse(#"{"PINCode":null}"#).objectValue)) == .structure([]))

        let toggle = try #require(Clusters.command(cluster: 6, name: "Toggle"))
        #expect(try toggle.encodePayload(JSONObject()) == .structure([]))
        #expect(throws: ValueCodingError.self) { try toggle.encodePayload(JSONObject([.init(key: "x", value: .int(1))])) }

        let raise = try #require(Clusters.command(cluster: 0x201, name: "SetpointRaiseLower"))
        #expect(try raise.encodePayload(#require(JSONParser.parse(#"{"mode":0,"amount":-10}"#).objectValue))
            == .structure([.unsigned(.context(0), UInt8(0)), .signed(.context(1), Int8(-10))]))
        #expect(throws: ValueCodingError.self) { try raise.encodePayload(#require(JSONParser.parse(#"{"mode":0,"amount":"10"}"#).objectValue)) }
        #expect(throws: ValueCodingError.self) { try raise.encodePayload(#require(JSONParser.parse(#"{"mode":256,"amount":1}"#).objectValue)) }
    }

    @Test func responsesAreNameKeyed() throws {
        let remove = try #require(Clusters.command(cluster: 0x3E, name: "RemoveFabric"))
        let response = try #require(remove.response)
        #expect(response.id == 8)
        let tlv = TLVElement.structure([.unsigned(.context(0), UInt8(0)), .unsigned(.context(1), UInt8(2))])
        #expect(JSONWriter.string(try response.decode(tlv)) == #"{"statusCode":0,"fabricIndex":2,"debugText":null}"#)

        let getUser = try #require(Clusters.command(cluster: 0x101, name: "GetUser")?.response)
        let user = TLVElement.structure([
            .unsigned(.context(0), UInt16(1)), .utf8(.context(1), "Alice"), .null(.context(2)),
            .unsigned(.context(3), UInt8(1)), .unsigned(.context(4), UInt8(0)), .unsigned(.context(5), UInt8(0)),
            .array(.context(6), [.structure([.unsigned(.context(0), UInt8(1)), .unsigned(.context(1), UInt16(3))])]),
            .unsigned(.context(7), UInt8(1)), .unsigned(.context(8), UInt8(1)), .null(.context(9)),
            .bool(.context(200), true),  // unknown tags are skipped
        ])
        #expect(JSONWriter.string(try getUser.decode(user))
            == #"{"userIndex":1,"userName":"Alice","userUniqueID":null,"userStatus":1,"userType":0,"credentialRule":0,"credentials":[{"credentialType":1,"credentialIndex":3}],"creatorFabricIndex":1,"lastModifiedFabricIndex":1,"nextUserIndex":null}"#)
        // A device that sends the wrong type gets a clear error, not a crash.
        #expect(throws: ValueCodingError.self) { try response.decode(.structure([.utf8(.context(0), "x")])) }
    }

    // MARK: - Against the CHIP SDK's cluster objects

    static let schema = TestVectors.vectors("matter-server/cluster_schema.json") { $0.json["command"] != nil }
    static let payloads = TestVectors.vectors("matter-server/device_command_payloads.json") { $0.json["name"] != nil }
    static let responses = TestVectors.vectors("matter-server/device_command_payloads.json") { $0.json["response"] != nil }
    /// Each command scripts/gen-cluster-schema.py reads from the CHIP SDK's cluster objects has
    /// that ID, those fields, that response and that timed-invoke rule in the generated model.
    @Test(arguments: schema)
    func matchesTheCHIPClusterObjects(_ vector: Vector) throws {
        let cluster = try #require(vector.int("cluster").map(UInt32.init))
        let command = try #require(Clusters.command(cluster: cluster, name: vector.string("name") ?? ""),
                                   "\(vector.id): not in the generated model")
        #expect(vector.int("command") == Int(command.id))
        #expect(vector.json["fields"] as? [String] == command.fields.map(ClusterSchemaKind.field))
        #expect(vector.bool("timed") == command.requiresTimedInvoke)
        let response = vector.object("response")
        #expect(response?["name"] as? String == command.response?.name)
        #expect((response?["command"] as? Int).map(UInt32.init) == command.response?.id)
        #expect(response?["fields"] as? [String] == command.response?.fields.map(ClusterSchemaKind.field))
    }

    @Test func schemaLoads() {
        #expect(Self.schema.count > 100, "the schema's commands did not load")
    }

    static func sortedKeys(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let o):
            return .object(JSONObject(o.members.sorted { $0.key < $1.key }.map { .init(key: $0.key, value: sortedKeys($0.value)) }))
        case .array(let a): return .array(a.map(sortedKeys))
        default: return value
        }
    }

    static func jsonObject(_ any: Any?) throws -> JSONObject {
        let data = try JSONSerialization.data(withJSONObject: try unwrap(any, "payload"), options: [.fragmentsAllowed])
        return try unwrap(try JSONParser.parse(String(decoding: data, as: UTF8.self)).objectValue, "a JSON object")
    }

    /// The payload Home Assistant sends becomes the bytes python-matter-server's SDK sends.
    @Test(arguments: payloads)
    func payloadsEncodeAsTheSDKDoes(_ vector: Vector) throws {
        let cluster = try #require(vector.int("cluster").map(UInt32.init))
        let command = try #require(Clusters.command(cluster: cluster, name: vector.string("name") ?? ""), "\(vector.id)")
        let fields = try command.encodePayload(Self.jsonObject(vector.json["payload"]))
        #expect(Hex.encode(TLVWriter.encode(fields)) == vector.string("tlv"), "\(vector.id)")
        // And back, as a device (the virtual one) reads it.
        #expect(try command.encodePayload(#require(command.decodePayload(fields).objectValue)) == fields)
    }

    /// A device's response becomes the JSON python-matter-server answers with.
    @Test(arguments: responses)
    func responsesDecodeAsTheServerAnswers(_ vector: Vector) throws {
        let cluster = try #require(vector.int("cluster").map(UInt32.init))
        let name = try #require(vector.string("response"))
        let response = try #require(Clusters.cluster(id: cluster)?.responses.first { $0.name == name },
                                    "\(vector.id)")
        let decoded = try response.decode(TLVDecoder.decode(#require(vector.hex("tlv"))))
        // Keys sorted on both sides: the vector's come back from Foundation in no particular order.
        let expected = JSONValue.object(try Self.jsonObject(vector.json["json"]))
        #expect(Self.sortedKeys(decoded) == Self.sortedKeys(expected), "\(vector.id): \(JSONWriter.string(decoded))")
    }
}
