import Foundation
import MatterCommissioning
import MatterDiscovery
import MatterHubService
import MatterServerAPI
import Testing
import TestSupport

/// `matterhub/import` on a running hub (in process, on loopback) that holds no devices: the dry
/// run shows python-matter-server 8.1.2's real storage (testvectors/python-matter-server) and
/// changes nothing; the import goes ahead only with the dry run's token; then the hub serves that
/// fabric and its nodes (other listeners are made to reconnect: clients key devices by the
/// compressed fabric ID they read at connect), and refuses a second import. What is expected is read from the storage's own files.
@Suite(.serialized) struct HubImportTests {
    static let vector = TestVectors.directory.appendingPathComponent("python-matter-server/storage-8.1.2").path

    /// The storage as python-matter-server wrote it: its fabric ID, and the node IDs in its node file.
    static func expected() throws -> (fabricID: UInt64, compressedFabricID: UInt64, nodes: [UInt64]) {
        let chip = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: vector + "/chip.json"))) as? [String: Any]
        let caList = (chip?["repl-config"] as? [String: Any])?["caList"] as? [String: Any]
        let fabric = try #require(((caList?["1"] as? [[String: Any]])?.first?["fabricId"] as? NSNumber)?.uint64Value)
        let nodeFile = try #require(try FileManager.default.contentsOfDirectory(atPath: vector).first { $0.hasSuffix(".json") && $0 != "chip.json" })
        let cfid = try #require(UInt64(nodeFile.dropLast(5)))
        let nodes = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: vector + "/" + nodeFile))) as? [String: Any]
        let ids = ((nodes?["nodes"] as? [String: Any])?.keys.compactMap { UInt64($0) } ?? []).sorted()
        return (fabric, cfid, ids)
    }

    @Test func aDryRunThenTheConfirmedImportReplacesTheEmptyHubsFabric() async throws {
        let (fabricID, cfid, nodeIDs) = try Self.expected()
        #expect(nodeIDs.count == 2)
        let state = NSTemporaryDirectory() + "matterhub-import-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        var configuration = HubServer.Configuration(
            stateDirectory: state, options: CommissioningOptions(trustStore: try HubServerTests.paaStore(), allowTestDevices: true))
        configuration.listen = ["127.0.0.1"]
        configuration.port = 0
        configuration.discovery = MatterDiscovery(browser: FixedServiceBrowser([]))
        let server = try await HubServer(configuration, log: { _ in })
        try await server.start(log: { _ in })
        defer { Task { await server.stop() } }
        let port = try #require(server.api.webSocket.tcpPort)
        let keysBefore = try FileManager.default.contentsOfDirectory(atPath: state + "/keys")

        let ohf = try await HubTestConnection(port: port)
        let ownFabric = try #require(ohf.frames.first?["fabric_id"]?.uint64)
        #expect(ownFabric != fabricID)
        _ = try await ohf.call("start_listening", .null)
        let ohfRefused = try await ohf.reply(try await ohf.send("matterhub/import", .object([
            "kind": .string("python-matter-server"), "path": .string(Self.vector)]))).frame
        #expect(ohfRefused["error_code"] == .int(9), "an OHF connection has no matterhub/ commands: \(ohfRefused)")

        let a = try await HubTestConnection(port: port)
        _ = try await a.call("matterhub/enable")
        _ = try await a.call("start_listening", .null)
        func importError(_ args: JSONValue) async throws -> HubAPIError {
            let frame = try await a.reply(try await a.send("matterhub/import", args)).frame
            return try #require(try HubAPIError.parse(frame)?.1, "not an error: \(frame)")
        }

        // A folder that is not a storage: named, with what to do.
        let missing = try await importError(.object(["kind": .string("python-matter-server"), "path": .string(state + "/nothing")]))
        #expect(missing.homeError == "importRefused" && missing.details.contains("not-a-storage"), "\(missing)")
        // The same folder read as the other server's: refused too, not misread.
        let wrongKind = try await importError(.object(["kind": .string("matterjs-server"), "path": .string(Self.vector)]))
        #expect(wrongKind.homeError == "importRefused", "\(wrongKind)")

        let dry = try await a.call("matterhub/import", .object(["kind": .string("python-matter-server"), "path": .string(Self.vector)])).result
        #expect(dry["dry_run"] == .bool(true))
        let token = try #require(dry["confirm"]?.string)
        let planned = dry["plan"]?["nodes"]?.array ?? []
        #expect(planned.compactMap { $0["node_id"]?.uint64 } == nodeIDs)
        #expect(planned.allSatisfy { $0["imported"] == .bool(true) })
        #expect(dry["plan"]?["fabric"]?["fabric_id"]?.uint64 == fabricID)
        // Nothing changed: the hub still has its own fabric and no devices.
        #expect(try await a.call("matterhub/devices").result.array?.isEmpty == true)
        #expect(try await a.call("server_info").result["fabric_id"]?.uint64 == ownFabric)

        // A token that is not the dry run's.
        let stale = try await importError(.object(["kind": .string("python-matter-server"), "path": .string(Self.vector),
                                                   "confirm": .string(String(token.reversed()))]))
        #expect(stale.homeError == "importRefused" && stale.details.contains("dry run again"), "\(stale)")
        #expect(try await a.call("matterhub/devices").result.array?.isEmpty == true)

        let done = try await a.call("matterhub/import", .object(["kind": .string("python-matter-server"), "path": .string(Self.vector),
                                                                 "confirm": .string(token)]))
        #expect(done.result["dry_run"] == .bool(false) && done.result["imported"] == .int(2), "\(done.result)")

        // The OHF listener hears the new fabric, then is made to reconnect (Home Assistant's client
        // reads the compressed fabric ID once, at connect); it finds both nodes with python-matter-server's values.
        let info = try await ohf.event("server_info_updated")
        #expect(info["fabric_id"]?.uint64 == fabricID && info["compressed_fabric_id"]?.uint64 == cfid, "\(info)")
        let closed = try await ohf.socket.waitForClose()
        #expect(closed?.code == .serviceRestart, "\(String(describing: closed))")
        let reconnected = try await HubTestConnection(port: port)
        #expect(reconnected.frames.first?["compressed_fabric_id"]?.uint64 == cfid)
        let dump = try await reconnected.call("start_listening", .null).result.array ?? []
        #expect(dump.compactMap { $0["node_id"]?.uint64 }.sorted() == nodeIDs)
        #expect(dump.allSatisfy { ($0["attributes"]?.objectValue?.count ?? 0) > 20 }, "the stored values come with the nodes")
        // The connection that imported stays, and heard each node added before the result.
        let added = done.before.filter { $0["event"] == .string("node_added") }.compactMap { $0["data"]?["node_id"]?.uint64 }
        #expect(added.sorted() == nodeIDs)
        let devices = try await a.call("matterhub/devices").result.array ?? []
        #expect(devices.compactMap { $0["node_id"]?.uint64 }.sorted() == nodeIDs)
        #expect(devices.allSatisfy { ($0["name"]?.string ?? "").isEmpty == false })

        // The replaced fabric's keys are gone; the imported one's are there, owner-only.
        let keysAfter = try FileManager.default.contentsOfDirectory(atPath: state + "/keys")
        #expect(Set(keysAfter).isDisjoint(with: keysBefore), "\(keysBefore) -> \(keysAfter)")
        #expect(keysAfter.contains { $0.hasPrefix("root-") } && keysAfter.contains { $0.hasPrefix("controller-") })
        for name in keysAfter {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: state + "/keys/" + name)[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0, "\(name) is \(String(mode, radix: 8))")
        }

        // A hub with devices takes no other home.
        let again = try await importError(.object(["kind": .string("python-matter-server"), "path": .string(Self.vector)]))
        #expect(again.homeError == "importRefused" && again.details.contains("already holds 2 devices"), "\(again)")
    }
}
