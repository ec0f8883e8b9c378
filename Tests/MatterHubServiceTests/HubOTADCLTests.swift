import Foundation
import MatterCrypto
import MatterHome
import MatterHubService
import MatterServerAPI
import MatterTLV
import MatterTrustStore
import MatterVirtualDevice
import Synchronization
import Testing
import TestSupport

/// Firmware from the DCL: the hub looks a node's product up in the ledger's model module
/// (`/dcl/model/versions/{vid}/{pid}` and each version's record), offers the newest valid version
/// that applies to what the node runs, and on update_node fetches its `otaUrl`, checks it against
/// the ledger's size and SHA-256 checksum and then as any image (header, digest), stores it and
/// installs it over BDX. The ledger is a stand-in on loopback serving the CHIP SDK tool's image.
@Suite(.serialized) struct HubOTADCLTests {
    /// The ledger's documents for the virtual light (FFF1/8000 = 65521/32768), as the DCL's REST
    /// gateway writes them (numbers as JSON numbers; the Cosmos gateway may also quote them).
    final class Ledger: Sendable {
        let server: LoopbackHTTPServer
        let image: [UInt8]
        init(image: [UInt8]) throws {
            server = try LoopbackHTTPServer()
            self.image = image
            server.route("/images/light-2.ota", .ok(image, contentType: "application/octet-stream"))
        }

        func publish(versions: [UInt32], records: [[String: Any]]) {
            server.route("/dcl/model/versions/65521/32768",
                         .ok(Self.json(["modelVersions": ["vid": 65521, "pid": 32768, "softwareVersions": versions]])))
            for record in records {
                server.route("/dcl/model/versions/65521/32768/\(record["softwareVersion"]!)", .ok(Self.json(["modelVersion": record])))
            }
        }

        func record(version: UInt32, valid: Bool = true, checksum: String? = nil, min: UInt32 = 1, max: UInt32 = 1) -> [String: Any] {
            ["vid": 65521, "pid": 32768, "softwareVersion": version, "softwareVersionString": "\(version).0.0", "cdVersionNumber": 1,
             "firmwareInformation": "", "softwareVersionValid": valid, "otaUrl": server.baseURL + "/images/light-\(version).ota",
             "otaFileSize": "\(image.count)", "otaChecksum": checksum ?? Data(SHA256.hash(image)).base64EncodedString(),
             "otaChecksumType": 1, "minApplicableSoftwareVersion": min, "maxApplicableSoftwareVersion": max,
             "releaseNotesUrl": "https://example.com/light/\(version)", "creator": "cosmos1xyz", "schemaVersion": 0]
        }

        var dcl: FirmwareDCL { FirmwareDCL(client: DCLClient(base: URL(string: server.baseURL)!, http: HTTPClientFetcher(timeout: 5))) }

        static func json(_ object: Any) -> [UInt8] { [UInt8]((try? JSONSerialization.data(withJSONObject: object)) ?? Data()) }
    }

    @Test func anUpdateFromTheDCLIsCheckedThenInstalled() async throws {
        var c = VirtualDeviceConfiguration(discriminator: 452, port: 0, advertises: false)
        c.softwareVersion = 1
        let device = try await VirtualDevice(configuration: c)
        await device.start()
        let log = HubOTATests.Lines()
        let hub = try await InProcessHub.start(devices: [(452, await device.port)], name: "hubotadcl", log: { log.append($0) })
        defer { try? FileManager.default.removeItem(atPath: hub.state) }
        let service = hub.service
        let nodeID = try #require(try await service.handle(.commissionWithCode(code: device.qrCode, networkOnly: true))["node_id"]?.uint64)
        #expect(await service.runtime.waitUntilAvailable(NodeID(nodeID), timeout: .seconds(30)))

        // A ledger that cannot be reached, and no image of the hub's own: the check fails, named.
        let closed = try LoopbackHTTPServer()
        let closedURL = URL(string: closed.baseURL)!
        closed.stop()
        service.setFirmwareDCL(FirmwareDCL(client: DCLClient(base: closedURL, http: HTTPClientFetcher(timeout: 2))))
        do {
            _ = try await service.handle(.checkNodeUpdate(nodeID: nodeID))
            Issue.record("check_node_update succeeded with the DCL unreachable")
        } catch {
            #expect(error.code == .updateCheckError && error.details.contains("cannot ask the DCL"), "\(error)")
        }

        // Version 3 is withdrawn (softwareVersionValid false) and version 4 is for nodes at 2 or
        // later: version 2 is offered, with the ledger's fields. Its checksum is wrong at first.
        let ledger = try Ledger(image: try #require(TestVectors.vectors("ota_image.json").first { $0.id == "sdk-sha256-fff1-8000-v2" }?.hex("image")))
        let wrong = Data(SHA256.hash([1, 2, 3])).base64EncodedString()
        ledger.publish(versions: [2, 3, 4], records: [ledger.record(version: 2, checksum: wrong), ledger.record(version: 3, valid: false),
                                                       ledger.record(version: 4, min: 2, max: 3)])
        service.setFirmwareDCL(ledger.dcl)
        let offer = try await service.handle(.checkNodeUpdate(nodeID: nodeID))
        #expect(offer["software_version"] == .integer(2) && offer["software_version_string"] == .string("2.0.0"), "\(offer)")
        #expect(offer["update_source"] == .string("main-net-dcl") && offer["release_notes_url"] == .string("https://example.com/light/2")
                && offer["min_applicable_software_version"] == .integer(1) && offer["max_applicable_software_version"] == .integer(1), "\(offer)")
        do {
            _ = try await service.handle(.updateNode(nodeID: nodeID, softwareVersion: .number(2)))
            Issue.record("update_node installed an image whose checksum the ledger does not give")
        } catch {
            #expect(error.code == .updateError && error.details.contains("does not match the DCL's SHA-256 checksum"), "\(error)")
        }
        #expect(await device.softwareVersion == 1)
        #expect(OTAImageStoreProbe.names(hub.state).isEmpty, "a refused download was stored")

        // The ledger corrected: the retry fetches, checks, stores and installs it.
        ledger.publish(versions: [2, 3, 4], records: [ledger.record(version: 2)])
        #expect(try await service.handle(.updateNode(nodeID: nodeID, softwareVersion: .string("2.0.0"))) == .null)
        #expect(await device.softwareVersion == 2)
        #expect(log.contains("fetched FFF1-8000-2.ota from the DCL: \(ledger.image.count) bytes"), "\(log.all.withLock { $0 })")
        #expect(OTAImageStoreProbe.names(hub.state) == ["FFF1-8000-2.ota"])
        #expect(ledger.server.requests.filter { $0 == "/images/light-2.ota" }.count == 2)
        // At version 2 now, version 4 applies, but its image is not the ledger's product's (it is
        // the version 2 image again): refused after download, nothing installed.
        ledger.publish(versions: [2, 3, 4], records: [ledger.record(version: 4, min: 2, max: 3)])
        ledger.server.route("/images/light-4.ota", .ok(ledger.image, contentType: "application/octet-stream"))
        let next = try await service.handle(.checkNodeUpdate(nodeID: nodeID))
        #expect(next["software_version"] == .integer(4), "\(next)")
        do {
            _ = try await service.handle(.updateNode(nodeID: nodeID, softwareVersion: .number(4)))
            Issue.record("update_node installed an image whose header is another version than the ledger's")
        } catch {
            #expect(error.code == .updateError && error.details.contains("not the DCL's"), "\(error)")
        }
        #expect(await device.softwareVersion == 2)
        await hub.stop()
        await device.shutdown()
        ledger.server.stop()
    }
}

/// The image names in a hub's store.
enum OTAImageStoreProbe {
    static func names(_ state: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: state + "/ota")) ?? []).filter { $0.hasSuffix(".ota") }.sorted()
    }
}
