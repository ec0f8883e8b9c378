import MatterServerAPI
import Testing

@Suite struct ServerMessageTests {
    let info = ServerInfo(fabricID: 1, compressedFabricID: 1_234_605_616_436_508_552, sdkVersion: "matterhub/0.1")

    @Test func serverInfoShape() throws {
        let text = JSONWriter.string(ServerMessage.serverInfo(info).json)
        #expect(text == #"{"fabric_id":1,"compressed_fabric_id":1234605616436508552,"schema_version":15,"min_supported_schema_version":9,"sdk_version":"matterhub/0.1","wifi_credentials_set":false,"thread_credentials_set":false,"bluetooth_enabled":false}"#)
        #expect(try ReceivedServerMessage.parse(Array(text.utf8)) == .serverInfo(info))
    }

    @Test func resultsAndErrors() throws {
        #expect(JSONWriter.string(ServerMessage.success(messageID: "a", result: .null).json) == #"{"message_id":"a","result":null}"#)
        let e = ServerMessage.error(messageID: "b", APIError(.nodeNotExists, "Node 99 does not exist"))
        #expect(JSONWriter.string(e.json) == #"{"message_id":"b","error_code":5,"details":"Node 99 does not exist"}"#)
        #expect(try ReceivedServerMessage.parse(e.encoded) == .error(messageID: "b", code: 5, details: "Node 99 does not exist"))
    }

    /// The 8.1.2 client's nine, schema 12's Thread diagnostics, schema 13's topology and schema
    /// 14's subscription events (each sent only to a connection that asked).
    @Test func eventsUseOnlyTheKnownNames() throws {
        #expect(EventName.allCases.count == 13)
        #expect(Set(EventName.allCases.map(\.rawValue)) == ["node_added", "node_updated", "node_removed", "node_event",
            "attribute_updated", "server_shutdown", "server_info_updated", "endpoint_added", "endpoint_removed",
            "network_topology_updated", "thread_diagnostics_updated", "subscription_report", "subscription_ended"])
        let update = ServerEvent.attributeUpdated(nodeID: 30, path: AttributePath("1/6/0")!, value: .bool(false))
        #expect(JSONWriter.string(ServerMessage.event(update).json) == #"{"event":"attribute_updated","data":[30,"1/6/0",false]}"#)
        #expect(JSONWriter.string(ServerMessage.event(.serverShutdown).json) == #"{"event":"server_shutdown","data":null}"#)
        #expect(JSONWriter.string(ServerMessage.event(.endpointAdded(nodeID: 7, endpointID: 3)).json)
            == #"{"event":"endpoint_added","data":{"node_id":7,"endpoint_id":3}}"#)
        #expect(JSONWriter.string(ServerMessage.event(.nodeRemoved(nodeID: 7)).json) == #"{"event":"node_removed","data":7}"#)
    }

    @Test func attributePaths() {
        #expect(AttributePath("1/319486977/0") == AttributePath(endpoint: 1, cluster: 0x130AFC01, attribute: 0))
        for bad in ["", "1/6", "1/6/0/0", "01/6/0", "1/-6/0", "65536/6/0", "1/6/4294967296", "a/6/0", " 1/6/0"] {
            #expect(AttributePath(bad) == nil, "\(bad)")
        }
        #expect(AttributePathPattern("*/6/*") == AttributePathPattern(endpoint: nil, cluster: 6, attribute: nil))
        #expect(AttributePathPattern("70000/6/0") == nil)
    }
}

@Suite struct MatterNodeDataTests {
    /// Home Assistant's fixture parses, and writes back to the same values (key order sorted).
    @Test func haFixtureRoundTrips() throws {
        let json = try NodeFixtures.onOffLight()
        let node = try MatterNodeData(json: json)
        #expect(node.nodeID == 30)
        #expect(node.available)
        #expect(node.attributes.count == json["attributes"]?.objectValue?.count)
        #expect(node.attributes[AttributePath("0/40/1")!] == .string("Nabu Casa"))
        #expect(node.attributes[AttributePath("0/54/4")!] == .int(-61))
        #expect(node.attributes[AttributePath("1/6/16387")!] == .null)
        #expect(node.attributes[AttributePath("0/40/19")!] == .object(["0": .int(3), "1": .int(3)]))
        let again = try MatterNodeData(json: JSONParser.parse(JSONWriter.encode(node.json)))
        #expect(again == node)
        // Every attribute value is carried unchanged.
        for member in json["attributes"]!.objectValue! {
            #expect(node.attributes[AttributePath(member.key)!] == member.value, "\(member.key)")
        }
    }

    @Test func refusesBadAttributeKeys() {
        #expect(throws: APIError.self) {
            try MatterNodeData(json: JSONParser.parse(#"{"node_id":1,"date_commissioned":"x","last_interview":"x","attributes":{"1/6":true}}"#))
        }
    }
}
