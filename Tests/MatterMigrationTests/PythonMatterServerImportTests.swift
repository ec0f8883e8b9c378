import Foundation
import MatterCertificates
import MatterCrypto
import MatterHome
import MatterInteraction
import MatterMigration
import MatterServerAPI
import MatterTLV
import Testing
import TestSupport

/// Moving a home from python-matter-server 8.1.2 and back, on the storage it wrote in the lab
/// (testvectors/python-matter-server/storage-8.1.2: two of our devices it commissioned) and on
/// copies of it with one defect each. The lab test (MigrationLabTests) proves the devices answer.
@Suite struct PythonMatterServerImportTests {
    static let vector = TestVectors.directory.appendingPathComponent("python-matter-server/storage-8.1.2").path

    /// A copy of the vector storage to change (the vector itself is never written).
    static func copy() throws -> String {
        let dir = NSTemporaryDirectory() + "pms-storage-\(UUID().uuidString)"
        try FileManager.default.copyItem(atPath: vector, toPath: dir)
        return dir
    }

    static func json(_ path: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    static func write(_ object: [String: Any], _ path: String) throws {
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
    }

    static func nodeFile(_ dir: String) throws -> String {
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: dir).first { $0.hasSuffix(".json") && $0 != "chip.json" })
        return dir + "/" + name
    }

    /// Every file's bytes, by name.
    static func snapshot(_ dir: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            out[name] = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))
        }
        return out
    }

    static func store() throws -> HubStore {
        try HubStore(directory: NSTemporaryDirectory() + "matterhub-import-\(UUID().uuidString)")
    }

    func expectRefusal(_ code: MigrationError.Code, containing text: String, _ body: () throws(MigrationError) -> Void) {
        do throws(MigrationError) {
            try body()
            Issue.record("no refusal (\(code))")
        } catch {
            #expect(error.code == code, "\(error)")
            #expect(error.message.contains(text), "\(error)")
        }
    }

    @Test func readsTheFabricAndNodesPythonMatterServerWrote() throws {
        let storage = try PythonMatterServerStorage.read(Self.vector)
        let plan = try ImportPlan.make(storage)
        #expect(plan.fabric.fabricID == FabricID(1) && plan.fabric.vendorID == 0xFFF1 && plan.fabric.origin.hasPrefix("CA 1,"))
        // The node file is named after the compressed fabric ID that the root key and fabric ID give.
        #expect(plan.fabric.nodeFile == "\(plan.fabric.compressedFabricID.rawValue).json")
        #expect(plan.warnings.isEmpty, "the stored IPK is python-matter-server's: \(plan.warnings)")
        #expect(plan.nodes.map(\.nodeID) == [1, 2])
        #expect(plan.nodes.map(\.name) == ["MatterHub Virtual Light", "MatterHub Virtual Plug"])
        #expect(plan.nodes.allSatisfy { $0.imported && $0.problems.isEmpty && $0.skipped.isEmpty && $0.vendorID == 0xFFF1 })
        let stored = try #require(try Self.json(try Self.nodeFile(Self.vector))["nodes"] as? [String: [String: Any]])
        #expect(plan.nodes.map(\.attributes) == ["1", "2"].map { (stored[$0]?["attributes"] as? [String: Any])?.count ?? -1 })
        #expect(plan.controllerNodeID == NodeID(112_233))
    }

    /// The store holds the same fabric (the CA that signed the devices' NOCs, the fixed IPK) and
    /// the hub as node 112233 with a NOC from that CA; the devices with their values, the same JSON
    /// through the API's encoding; and the source is not changed by a byte.
    @Test func takesTheFabricOverAndLeavesTheSourceUnchanged() throws {
        let dir = try Self.copy()
        let before = try Self.snapshot(dir)
        let plan = try ImportPlan.make(try PythonMatterServerStorage.read(dir))
        let store = try Self.store()
        let fabric = try store.takeOverFabric(plan.takeover)
        #expect(try Self.snapshot(dir) == before)

        let loaded = try #require(try store.fabric())  // loading checks the NOC's chain and key
        #expect(loaded.controllerNodeID == NodeID(112_233) && loaded.fabricID == FabricID(1) && loaded.vendorID == 0xFFF1)
        #expect(loaded.ipkEpochKey.bytes == Array("temporary ipk 01".utf8))
        #expect(try loaded.compressedFabricID() == plan.fabric.compressedFabricID)
        #expect(loaded.controllerNOC.issuer == fabric.intermediateCertificate?.certificate.subject)
        // The devices' Fabrics entry names the same root public key.
        let chip = try Self.json(dir + "/chip.json")
        let sdk = try #require(chip["sdk-config"] as? [String: String])
        let rootText = try #require(sdk["ExampleCARootCert1"])
        let rootDER = try #require(Data(base64Encoded: rootText))
        #expect(loaded.rootCertificate.der == [UInt8](rootDER))

        let nodes = try store.nodes()
        #expect(nodes.map(\.nodeID.rawValue) == [1, 2] && nodes.map(\.name) == ["MatterHub Virtual Light", "MatterHub Virtual Plug"])
        // Compared as the API's JSON text (JSONSerialization on Linux tells a parsed false from a
        // bridged one).
        let stored = try JSONParser.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: try Self.nodeFile(dir)))))
        for node in nodes {
            let values = try store.attributeValues(for: node.nodeID)
            let source = try #require(stored["nodes"]?[String(node.nodeID.rawValue)]?["attributes"]?.objectValue)
            #expect(values.count == source.count)
            for (path, bytes) in values {
                let key = "\(path.endpoint.rawValue)/\(path.cluster.rawValue)/\(path.attribute.rawValue)"
                let ours = JSONWriter.encode(try AttributeValueCoding.json(from: try TLVDecoder.decode(bytes)))
                let theirs = JSONWriter.encode(try #require(source[key]))
                #expect(ours == theirs, "\(key): \(String(decoding: ours, as: UTF8.self)) != \(String(decoding: theirs, as: UTF8.self))")
            }
        }
    }

    /// Export gives back the CA exactly (python-matter-server keys its stored certificates by
    /// their bytes and IDs) and every node with the values it had.
    @Test func exportGivesPythonMatterServerBackItsStorage() throws {
        let store = try Self.store()
        let fabric = try store.takeOverFabric(try ImportPlan.make(try PythonMatterServerStorage.read(Self.vector)).takeover)
        let out = NSTemporaryDirectory() + "pms-export-\(UUID().uuidString)"
        let nodes = try store.nodes().map { ($0, try store.attributeValues(for: $0.nodeID)) }
        let name = try PythonMatterServerExport.write(fabric: fabric, nodes: nodes, to: out)
        let source = try Self.json(Self.vector + "/chip.json")
        let exported = try Self.json(out + "/chip.json")
        let sourceSDK = try #require(source["sdk-config"] as? [String: String])
        let exportedSDK = try #require(exported["sdk-config"] as? [String: String])
        for key in ["ExampleOpCredsCAKey1", "ExampleOpCredsICAKey1", "ExampleCARootCert1", "ExampleCAIntermediateCert1"] {
            #expect(exportedSDK[key] != nil && exportedSDK[key] == sourceSDK[key], "\(key)")
        }
        #expect(NSDictionary(dictionary: exported["repl-config"] as? [String: Any] ?? [:])
                    .isEqual(to: source["repl-config"] as? [String: Any] ?? ["missing": true]))
        #expect(name == (try Self.nodeFile(Self.vector) as NSString).lastPathComponent)
        let theirs = try #require(JSONParser.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: try Self.nodeFile(Self.vector)))))["nodes"]?.objectValue)
        let ours = try #require(JSONParser.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: out + "/" + name))))["nodes"]?.objectValue)
        #expect(ours.keys == theirs.keys)
        for node in ours {
            let source = try #require(theirs[node.key]?.objectValue)
            #expect(node.value.objectValue?.keys == source.keys, "node \(node.key) has exactly MatterNodeData's keys, in its order")
            let exported = try #require(node.value["attributes"]?.objectValue)
            let original = try #require(source["attributes"]?.objectValue)
            #expect(Set(exported.keys) == Set(original.keys), "node \(node.key)'s attribute paths")
            for path in original.keys {
                #expect(JSONWriter.encode(exported[path] ?? .null) == JSONWriter.encode(original[path] ?? .null), "node \(node.key) \(path)")
            }
            #expect(node.value["interview_version"]?.uint64 == 6)
        }
        // Owner-only: the CA's private keys are in chip.json.
        let mode = try FileManager.default.attributesOfItem(atPath: out + "/chip.json")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // A second export into the same folder is refused.
        expectRefusal(.targetNotEmpty, containing: "is not empty") { () throws(MigrationError) in
            try PythonMatterServerExport.write(fabric: fabric, nodes: nodes, to: out)
        }
    }

    // MARK: Refusals, each leaving the store and the source untouched

    @Test func aStateDirectoryThatHoldsAFabricIsRefused() throws {
        let store = try Self.store()
        _ = try store.createFabricIfNeeded()
        let plan = try ImportPlan.make(try PythonMatterServerStorage.read(Self.vector))
        do throws(StoreError) {
            _ = try store.takeOverFabric(plan.takeover)
            Issue.record("a second fabric was taken over")
        } catch {
            #expect(error.code == "fabric_exists", "\(error)")
        }
        #expect(try store.nodes().isEmpty && store.fabric()?.controllerNodeID != NodeID(112_233))
    }

    @Test func severalFabricsNeedAChoiceThatIsListed() throws {
        let dir = try Self.copy()
        var chip = try Self.json(dir + "/chip.json")
        chip["repl-config"] = ["caList": ["1": [["fabricId": 1, "vendorId": 65521], ["fabricId": 2, "vendorId": 4939]]]]
        try Self.write(chip, dir + "/chip.json")
        let storage = try PythonMatterServerStorage.read(dir)
        expectRefusal(.fabricChoice, containing: "holds 2 fabrics") { () throws(MigrationError) in _ = try ImportPlan.make(storage) }
        expectRefusal(.fabricChoice, containing: "fabric 2 (vendor 0x134B") { () throws(MigrationError) in _ = try ImportPlan.make(storage) }
        expectRefusal(.fabricChoice, containing: "no fabric 3") { () throws(MigrationError) in
            _ = try ImportPlan.make(storage, fabricID: 3)
        }
        let chosen = try ImportPlan.make(storage, fabricID: 1)
        #expect(chosen.nodes.count == 2)
        // Fabric 2 has no node file: chosen, it moves the CA with no devices, and says so.
        let other = try ImportPlan.make(storage, fabricID: 2)
        #expect(other.nodes.isEmpty && other.warnings.contains { $0.contains("no node file") }, "\(other.warnings)")
    }

    @Test func anUnknownVersionIsRefusedNamingIt() throws {
        let dir = try Self.copy()
        let file = try Self.nodeFile(dir)
        var data = try Self.json(file)
        var nodes = try #require(data["nodes"] as? [String: [String: Any]])
        nodes["2"]?["interview_version"] = 7
        data["nodes"] = nodes
        try Self.write(data, file)
        let storage = try PythonMatterServerStorage.read(dir)
        expectRefusal(.unknownVersion, containing: "interview_version 7") { () throws(MigrationError) in _ = try ImportPlan.make(storage) }
    }

    /// What python-matter-server stores is whatever devices sent: a malformed node is imported
    /// with what is valid, and the report names the rest.
    @Test func malformedNodesAreImportedWithWhatIsValidAndNamed() throws {
        let dir = try Self.copy()
        let file = try Self.nodeFile(dir)
        var data = try Self.json(file)
        var nodes = try #require(data["nodes"] as? [String: Any])
        var light = try #require(nodes["1"] as? [String: Any])
        var attributes = try #require(light["attributes"] as? [String: Any])
        attributes["0/40/bogus"] = 1
        attributes["1/6/16384"] = ["TLVValue": NSNull(), "Reason": "InvalidTLV"]
        light["attributes"] = attributes
        light["node_id"] = 9
        nodes["1"] = light
        nodes["3"] = "not a node"
        var plug = try #require(nodes["2"] as? [String: Any])
        plug["attributes"] = [1, 2]
        plug["date_commissioned"] = "yesterday"
        nodes["2"] = plug
        data["nodes"] = nodes
        try Self.write(data, file)

        let plan = try ImportPlan.make(try PythonMatterServerStorage.read(dir))
        #expect(plan.nodes.map(\.nodeID) == [1, 2, 3])
        let report = plan.text.joined(separator: "\n")
        #expect(plan.nodes[0].imported && plan.nodes[0].skipped.map(\.path) == ["0/40/bogus", "1/6/16384"], "\(report)")
        #expect(plan.nodes[0].problems == ["its node_id says 9; the key 1 is used"], "\(report)")
        #expect(plan.nodes[1].imported && plan.nodes[1].attributes == 0, "\(report)")
        #expect(plan.nodes[1].problems.count == 2 && report.contains("date_commissioned 'yesterday' is not a date"), "\(report)")
        #expect(!plan.nodes[2].imported && report.contains("node 3: NOT carried over"), "\(report)")
        #expect(report.contains("skipped 1/6/16384: python-matter-server could not decode it (InvalidTLV)"), "\(report)")
        let store = try Self.store()
        _ = try store.takeOverFabric(plan.takeover)
        #expect(try store.nodes().map(\.nodeID.rawValue) == [1, 2])
        #expect(try store.nodes().last?.name == "Node 2", "a node without attributes gets a name from its ID")
    }

    @Test func anIPKOtherThanPythonMatterServersIsRefused() throws {
        let dir = try Self.copy()
        var chip = try Self.json(dir + "/chip.json")
        var sdk = try #require(chip["sdk-config"] as? [String: String])
        let keysetText = try #require(sdk["f/1/k/0"])
        var keyset = [UInt8](try #require(Data(base64Encoded: keysetText)))
        // The first slot's 16-byte operational key (tag 6) is the only 16-byte octet string.
        let marker = try #require(keyset.firstRange(of: [0x30, 0x06, 0x10]))
        keyset[marker.upperBound] ^= 0xFF
        sdk["f/1/k/0"] = Data(keyset).base64EncodedString()
        chip["sdk-config"] = sdk
        try Self.write(chip, dir + "/chip.json")
        let storage = try PythonMatterServerStorage.read(dir)
        expectRefusal(.notMovable, containing: "an IPK other than python-matter-server's") { () throws(MigrationError) in
            _ = try ImportPlan.make(storage)
        }
    }

    @Test func keysThatDoNotMatchTheirCertificatesAreRefused() throws {
        let dir = try Self.copy()
        var chip = try Self.json(dir + "/chip.json")
        var sdk = try #require(chip["sdk-config"] as? [String: String])
        sdk["ExampleOpCredsICAKey1"] = sdk["ExampleOpCredsCAKey1"]
        chip["sdk-config"] = sdk
        try Self.write(chip, dir + "/chip.json")
        let storage = try PythonMatterServerStorage.read(dir)
        expectRefusal(.corruptFabric, containing: "do not agree") { () throws(MigrationError) in _ = try ImportPlan.make(storage) }
    }

    @Test func aFolderWithoutChipJSONIsNotAStorage() throws {
        let dir = NSTemporaryDirectory() + "not-a-storage-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        expectRefusal(.notAStorage, containing: "cannot read") { () throws(MigrationError) in _ = try PythonMatterServerStorage.read(dir) }
        try Data("{\"sdk-config\": {".utf8).write(to: URL(fileURLWithPath: dir + "/chip.json"))
        expectRefusal(.notAStorage, containing: "is not JSON") { () throws(MigrationError) in _ = try PythonMatterServerStorage.read(dir) }
    }

    /// A fabric MatterHub made (a random IPK, its own node ID) cannot go to python-matter-server.
    @Test func aFabricTheHubMadeCannotBeExported() throws {
        let store = try Self.store()
        let fabric = try store.createFabricIfNeeded()
        let out = NSTemporaryDirectory() + "pms-export-\(UUID().uuidString)"
        expectRefusal(.notMovable, containing: "python-matter-server cannot serve this fabric") { () throws(MigrationError) in
            try PythonMatterServerExport.write(fabric: fabric, nodes: [], to: out)
        }
        #expect(!FileManager.default.fileExists(atPath: out + "/chip.json"))
    }

    @Test(arguments: [("2026-12-04T15:07:15.739569", 1_796_396_835.739569), ("2024-02-29T00:00:00Z", 1_709_164_800.0),
                      ("2000-01-01T00:00:00+00:00", 946_684_800.0)])
    func datesAsPythonMatterServerWritesThem(_ text: String, _ unix: Double) throws {
        #expect(abs((try #require(ImportPlan.date(text))).timeIntervalSince1970 - unix) < 0.000_01)
        #expect(ImportPlan.date("2026-13-01T00:00:00") == nil && ImportPlan.date("yesterday") == nil)
    }
}
