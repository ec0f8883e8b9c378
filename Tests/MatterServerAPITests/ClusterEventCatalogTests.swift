import MatterClusters
import MatterServerAPI
import MatterTLV
import Testing
import TestSupport

@Suite struct ClusterEventCatalogTests {
    static let schema = TestVectors.vectors("matter-server/cluster_schema.json") { $0.json["event"] != nil }

    /// Each event scripts/gen-cluster-schema.py reads from the CHIP SDK's cluster objects has that
    /// name and those fields in the generated model.
    @Test(arguments: schema)
    func matchesTheCHIPClusterObjects(_ vector: Vector) throws {
        let cluster = try #require(vector.int("cluster").map(UInt32.init)), id = try #require(vector.int("event").map(UInt32.init))
        let event = try #require(Clusters.event(cluster: cluster, id: id), "\(vector.id): not in the generated model")
        #expect(vector.string("name") == event.name)
        // A structure's fabric index is optional in the model (the server fills it in).
        let fabricIndex = { (s: String) in s.replacingOccurrences(of: "fabricIndex/254?", with: "fabricIndex/254") }
        #expect((vector.json["fields"] as? [String])?.map(fabricIndex) == event.fields.map(ClusterSchemaKind.field).map(fabricIndex))
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
