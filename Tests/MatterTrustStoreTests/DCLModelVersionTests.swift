import Foundation
import MatterCrypto
import MatterTrustStore
import Testing
import TestSupport

/// The DCL's model module as the hub reads it for firmware: version lists and records in the
/// gateway's shapes (numbers plain or quoted, 404 and the gateway's error object for "none"),
/// python-matter-server's choice of version, and image downloads checked against the ledger's
/// size and checksum, over HTTPS too.
@Suite struct DCLModelVersionTests {
    static func json(_ object: Any) -> [UInt8] { [UInt8]((try? JSONSerialization.data(withJSONObject: object)) ?? Data()) }

    static func record(_ version: Any, vid: Any = 4447, pid: Any = 8194, valid: Bool = true, min: Any = 0, max: Any = 100,
                       url: String = "https://cdn.example/fw.ota") -> [String: Any] {
        ["vid": vid, "pid": pid, "softwareVersion": version, "softwareVersionString": "v\(version)", "cdVersionNumber": 1,
         "softwareVersionValid": valid, "otaUrl": url, "otaFileSize": "1000", "otaChecksum": "AAAA", "otaChecksumType": 1,
         "minApplicableSoftwareVersion": min, "maxApplicableSoftwareVersion": max, "releaseNotesUrl": ""]
    }

    @Test func theNewestApplicableVersionIsChosen() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        // Quoted numbers, as the Cosmos gateway writes uint64s.
        server.route("/dcl/model/versions/4447/8194", .ok(Self.json(["modelVersions": ["vid": 4447, "pid": 8194,
                                                                                       "softwareVersions": [5, "10", 20, 30, 40]]])))
        server.route("/dcl/model/versions/4447/8194/40", .ok(Self.json(["modelVersion": Self.record(40, valid: false)])))
        server.route("/dcl/model/versions/4447/8194/30", .ok(Self.json(["modelVersion": Self.record("30", min: 11)])))
        server.route("/dcl/model/versions/4447/8194/20", .ok(Self.json(["modelVersion": Self.record(20, url: "")])))
        server.route("/dcl/model/versions/4447/8194/10", .ok(Self.json(["modelVersion": Self.record(10, vid: "4447", pid: "8194")])))
        let client = DCLClient(base: URL(string: server.baseURL)!, http: HTTPClientFetcher(timeout: 5))
        // 40 withdrawn, 30 needs 11 or later, 20 has no image: 10.
        let chosen = try await client.newestUpdate(vendorID: 4447, productID: 8194, currentVersion: 7)
        #expect(chosen?.softwareVersion == 10 && chosen?.softwareVersionString == "v10" && chosen?.otaFileSize == 1000, "\(String(describing: chosen))")
        #expect(chosen?.releaseNotesURL == nil)
        // At 11, 30 applies; at 40 nothing is newer.
        #expect(try await client.newestUpdate(vendorID: 4447, productID: 8194, currentVersion: 11)?.softwareVersion == 30)
        #expect(try await client.newestUpdate(vendorID: 4447, productID: 8194, currentVersion: 40) == nil)
        // A product the ledger does not know: 404, or the gateway's error object.
        #expect(try await client.newestUpdate(vendorID: 4447, productID: 1, currentVersion: 1) == nil)
        server.route("/dcl/model/versions/4447/2", .ok(Self.json(["code": 5, "message": "rpc error: code = NotFound", "details": []])))
        #expect(try await client.softwareVersions(vendorID: 4447, productID: 2) == [])
    }

    @Test func aRecordOfAnotherProductOrAnUnreadableOneIsRefused() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/dcl/model/versions/4447/8194/10", .ok(Self.json(["modelVersion": Self.record(10, pid: 9)])))
        server.route("/dcl/model/versions/4447/8194", .ok(Self.json(["versions": []])))
        let client = DCLClient(base: URL(string: server.baseURL)!, http: HTTPClientFetcher(timeout: 5))
        await #expect(throws: TrustStoreError.self) { _ = try await client.modelVersion(vendorID: 4447, productID: 8194, softwareVersion: 10) }
        do {
            _ = try await client.softwareVersions(vendorID: 4447, productID: 8194)
            Issue.record("a list without modelVersions was read")
        } catch { #expect(error.code == .responseInvalid) }
    }

    /// The image over HTTPS (a throwaway CA the fetcher trusts): the right checksum and size pass;
    /// a wrong checksum, a wrong size, an unknown checksum type and a non-http URL are refused.
    @Test func anImageIsCheckedAgainstTheLedgerOverHTTPS() async throws {
        let server = try await TLSTestServer()
        let client = DCLClient(base: server.url("localhost", "/"),
                               http: HTTPClientFetcher(timeout: 5, trustedCAFile: try TLSTestPKI.paths().caCertificate))
        let good = DCLModelVersion(vendorID: 1, productID: 2, softwareVersion: 3, softwareVersionString: "3", firmwareInformation: nil,
                                   softwareVersionValid: true, otaURL: server.url().absoluteString, otaFileSize: UInt64(server.body.count),
                                   otaChecksum: Data(SHA256.hash(server.body)).base64EncodedString(), otaChecksumType: 1,
                                   minApplicableSoftwareVersion: 0, maxApplicableSoftwareVersion: 2, releaseNotesURL: nil)
        let file = try TrustStoreTests.temporaryDirectory() + "/image.ota"
        try await client.otaImage(good, toFile: file)
        #expect(FileManager.default.contents(atPath: file) == Data(server.body))
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600, "\(String(describing: mode))")
        func refusal(_ change: (inout DCLModelVersion) -> Void) async -> String {
            var v = good
            change(&v)
            do throws(TrustStoreError) {
                try await client.otaImage(v, toFile: file)
                return "accepted"
            } catch {
                // A refused download is not left behind.
                return FileManager.default.fileExists(atPath: file) ? "left on disk: \(error.message)" : error.message
            }
        }
        #expect(await refusal { $0.otaChecksum = Data(SHA256.hash([0])).base64EncodedString() }.contains("does not match the DCL's SHA-256 checksum"))
        #expect(await refusal { $0.otaFileSize = UInt64(server.body.count + 1) }.contains("the DCL says \(server.body.count + 1)"))
        #expect(await refusal { $0.otaFileSize = UInt64(server.body.count - 1) }.contains("accepted") == false)
        #expect(await refusal { $0.otaChecksumType = 7 }.contains("checksum type 7"))
        #expect(await refusal { $0.otaURL = "ftp://cdn.example/fw.ota" }.contains("no usable otaUrl"))
        await server.stop()
    }
}
