import MatterServerAPI
import MatterTLV
import Testing
import TestSupport

@Suite struct ClusterEventCatalogTests {
    static let schema = TestVectors.vectors("matter-server/cluster_schema.json") { $0.json["event"] != nil }

    /// Each event has the name, id and fields the CHIP SDK's cluster objects give it.
    @Test(arguments: ClusterEventCatalog.all.map { "\($0.clusterID)/\($0.name)" })
    func matchesTheCHIPClusterObjects(_ key: String) throws {
        let event = try #require(ClusterEventCatalog.all.first { "\($0.clusterID)/\($0.name)" == key })
        let vector = try #require(Self.schema.first { $0.int("cluster") == Int(event.clusterID) && $0.int("event") == Int(event.id) })
        #expect(vector.string("name") == event.name)
        #expect(vector.json["fields"] as? [String] == event.fields.map(ClusterSchemaKind.field))
        #expect(ClusterEventCatalog.event(cluster: event.clusterID, id: event.id) == event)
    }

    @Test func knownEventDataIsNameKeyed() {
        let data = TLVElement.structure([.unsigned(.context(0), UInt32(7))])
        #expect(ClusterEventCatalog.json(cluster: 0x28, event: 0, data: data) == .object(["softwareVersion": .integer(7)]))
        #expect(ClusterEventCatalog.json(cluster: 0x3B, event: 1, data: .structure([.unsigned(.context(0), UInt8(1))]))
                == .object(["newPosition": .integer(1)]))
    }

    @Test func unknownEventDataIsTagKeyed() {
        let data = TLVElement.structure([.unsigned(.context(3), UInt8(1))])
        #expect(ClusterEventCatalog.json(cluster: 0xFFF1_FC00, event: 9, data: data) == .object(["3": .integer(1)]))
    }

    @Test func dataThatDoesNotFitIsNull() {
        #expect(ClusterEventCatalog.json(cluster: 0x28, event: 0, data: .structure([.utf8(.context(0), "x")])) == .null)
    }
}
