import Foundation
import MatterCertificates
import MatterHome
import MatterInteraction
import MatterMigration
import MatterTLV
import Testing
import TestSupport

/// Importing matterjs-server's storage, on storages scripts/gen-matterjs-storage.py makes from
/// the python-matter-server vector the way matterjs-server takes such a home over (its format read
/// from matterjs-server's and matter.js's sources: docs/design/matterjs-storage.md; no
/// matterjs-server runs on these machines). Both drivers (wal with a gzip snapshot and commits
/// after it, and the one-file-per-key driver) must give the fabric python-matter-server had.
@Suite struct MatterjsServerImportTests {
    static let vector = PythonMatterServerImportTests.vector

    /// A storage made by the generator (fixed seed and clock) into a new folder.
    static func generate(_ options: [String]) throws -> String {
        let out = NSTemporaryDirectory() + "mjs-storage-\(UUID().uuidString)"
        let script = TestVectors.directory.deletingLastPathComponent().appendingPathComponent("scripts/gen-matterjs-storage.py").path
        let r = try ProcessRunner.run("/usr/bin/env", ["python3", script, vector, out, "--seed", "tests", "--now", "1796396835000"] + options)
        try #require(r.status == 0, "\(r.stderr)")
        return out
    }

    static func value(_ plan: ImportPlan, node: UInt64, _ endpoint: UInt16, _ cluster: UInt32, _ attribute: UInt32) throws -> TLVElement? {
        let taken = try #require(plan.takeover.nodes.first { $0.nodeID.rawValue == node })
        return try taken.attributes[ConcreteAttributePath(EndpointID(endpoint), ClusterID(cluster), AttributeID(attribute))]
            .map { try TLVDecoder.decode($0) }
    }

    @Test(arguments: [["--driver", "wal", "--gzip", "--wal-commits", "3"], ["--driver", "wal", "--wal-commits", "3", "--rotate"],
                      ["--driver", "file"]])
    func takesOverTheFabricPythonMatterServerHad(_ options: [String]) throws {
        let dir = try Self.generate(options)
        let plan = try ImportPlan.make(try MatterjsServerStorage.read(dir))
        let original = try ImportPlan.make(try PythonMatterServerStorage.read(Self.vector))
        #expect(plan.kind == "matterjs-server" && plan.fabric.origin.hasPrefix("server-1-fff1, \(options[1]) storage"))
        #expect(plan.fabric.fabricID == original.fabric.fabricID && plan.fabric.vendorID == original.fabric.vendorID)
        #expect(plan.fabric.compressedFabricID == original.fabric.compressedFabricID)
        #expect(plan.controllerNodeID == NodeID(112_233))
        #expect(plan.takeover.ipkEpochKey.bytes == Array("temporary ipk 01".utf8))
        #expect(plan.takeover.authority.root.der == original.takeover.authority.root.der)
        #expect(plan.takeover.authority.intermediate?.der == original.takeover.authority.intermediate?.der)
        #expect(plan.nodes.map(\.nodeID) == [1, 2] && plan.nodes.map(\.name) == ["MatterHub Virtual Light", "MatterHub Virtual Plug"])
        #expect(plan.nodes.allSatisfy { $0.imported && $0.vendorID == 0xFFF1 && $0.productID == 0x8000 })
        // The last known addresses, with their zone kept apart from the address.
        let light = try #require(plan.takeover.nodes.first)
        #expect(light.addresses.map(\.host) == ["fe80::ff:fe00:1"] && light.addresses.map(\.port) == [5540])
        // Structures (matter.js form) are left to the device; plain values are taken.
        #expect(plan.nodes[0].skipped.contains { $0.path == "0/62/1" })
        #expect(try Self.value(plan, node: 1, 0, 0x28, 1)?.value == .utf8("MatterHub"))
        // The WAL's commits after the snapshot are replayed (an update, a key deleted); the file
        // driver has the values as they were.
        let wal = options[1] == "wal"
        #expect(try Self.value(plan, node: 1, 1, 6, 0)?.value == .bool(wal), "OnOff after the replay")
        #expect((try Self.value(plan, node: 1, 1, 8, 0x4000) == nil) == wal, "StartUpCurrentLevel deleted by a commit")

        // The takeover gives the hub the fabric as python-matter-server's import does.
        let store = try HubStore(directory: NSTemporaryDirectory() + "matterhub-mjs-\(UUID().uuidString)")
        let fabric = try store.takeOverFabric(plan.takeover)
        #expect(try fabric.compressedFabricID() == original.fabric.compressedFabricID && fabric.controllerNodeID == NodeID(112_233))
        #expect(try store.nodes().map(\.nodeID.rawValue) == [1, 2])
        #expect(try store.nodes().first?.addresses.map(\.host) == ["fe80::ff:fe00:1"])
    }

    func expectRefusal(_ dir: String, _ code: MigrationError.Code, containing text: String) {
        do {
            _ = try ImportPlan.make(try MatterjsServerStorage.read(dir))
            Issue.record("no refusal (\(code))")
        } catch {
            #expect(error.code == code && error.message.contains(text), "\(error)")
        }
    }

    @Test func aTruncatedSnapshotIsRefusedNamingTheFile() throws {
        let dir = try Self.generate(["--driver", "wal", "--gzip"])
        let snapshot = dir + "/server-1-fff1/snapshot.json.gz"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: snapshot))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: snapshot))
        expectRefusal(dir, .notAStorage, containing: "snapshot.json.gz cannot be inflated")
    }

    @Test func aStorageWithoutTheRootKeyIsNotMovable() throws {
        let dir = try Self.generate(["--driver", "file"])
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/server-1-fff1")
        for name in names where name.hasSuffix(".rootKeyPair") { try FileManager.default.removeItem(atPath: dir + "/server-1-fff1/" + name) }
        expectRefusal(dir, .notMovable, containing: "keeps no root key")
    }

    @Test func severalControllerFabricsNeedAChoice() throws {
        let dir = try Self.generate(["--driver", "file"])
        try FileManager.default.createDirectory(atPath: dir + "/server-2-134b", withIntermediateDirectories: true)
        let storage = try MatterjsServerStorage.read(dir)
        do {
            _ = try ImportPlan.make(storage)
            Issue.record("no choice was asked for")
        } catch {
            #expect(error.code == .fabricChoice && error.message.contains("server-1-fff1, server-2-134b"), "\(error)")
        }
        #expect(try ImportPlan.make(storage, fabricID: 1).nodes.count == 2)
    }

    @Test func aPythonMatterServerFolderIsNamedAsSuch() throws {
        do {
            _ = try MatterjsServerStorage.read(Self.vector)
            Issue.record("read python-matter-server's folder as matterjs-server's")
        } catch {
            #expect(error.code == .notAStorage && error.hint.contains("import python-matter-server"), "\(error)")
        }
    }
}
