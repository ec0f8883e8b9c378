import Foundation
import MatterCrypto
import Testing
import TestSupport

/// Firmware end to end in the namespace lab with the real Matter Server client (matter-python-client
/// 1.6.1, scripts/ohf-ota-check.py): `matterctl hub serve --ota-dcl https://localhost:N` asks a DCL
/// stand-in over HTTPS (scripts/dcl-standin.py, its own throwaway CA given with --ota-dcl-ca) that
/// publishes version 2 of the virtual light (the CHIP SDK tool's image); two virtual lights at
/// version 1 run on another host, one with `--fault ota-refuse-image`. The client checks, updates
/// from the DCL with progress, uploads version 3 and installs it, and sees the faulty light's
/// refusal named, the light still at version 1 and controllable, and its retry succeed.
@Suite(.serialized, .enabled(if: Lab.isAvailable, "lab integration tests need root (network namespaces): run scripts/test as root"))
struct HubOTALabTests {
    static let hubHost = HubClientCLITests.hubHost

    @Test func firmwareFromTheDCLAndAnUploadWithTheRealClient() async throws {
        let lab = try Lab.shared()
        guard let python = Lab.matterPythonClient() else { return }
        let run = UInt32.random(in: 0...UInt32.max)
        let dcl = "\(lab.directory)/dcl-\(run)"
        let standIn = try lab.spawn(on: Self.hubHost, ["/usr/bin/python3", Lab.repositoryRoot.appendingPathComponent("scripts/dcl-standin.py").path, dcl])
        defer { standIn.kill9() }
        let portLine = await standIn.waitForLine(timeout: 30) { $0.hasPrefix("port ") }
        let port = try #require(portLine.flatMap { Int($0.dropFirst(5)) }, "the DCL stand-in did not start: \(standIn.text)")
        try Self.publish(versionTwoAt: "https://localhost:\(port)", in: dcl + "/www")

        let hub = try lab.spawn(on: Self.hubHost, [Lab.matterctl, "hub", "serve", "--state", "\(lab.directory)/ota-hub-\(run)", "--port", "5594",
                                                   "--paa-store", try HubVirtualDeviceTests.paa(lab), "--allow-test-devices",
                                                   "--ota-dcl", "https://localhost:\(port)", "--ota-dcl-ca", dcl + "/ca.pem"])
        defer { hub.kill9() }
        try #require(await hub.waitForLine(timeout: 30) { $0.contains("hub: ready ws://127.0.0.1:5594/ws") } != nil, "\(hub.text)")
        // Its downloads take at least 1.5 s (a slow radio), so the client sees progress even for the small image.
        let light = try await HubClientCLITests.startDevice(lab, discriminator: 3406, port: 5706,
                                                            options: ["--software-version", "1", "--ota-download-ms", "1500"])
        defer { light.process.kill9() }
        let faulty = try await HubClientCLITests.startDevice(lab, discriminator: 3407, port: 5707, faults: ["ota-refuse-image"],
                                                             options: ["--software-version", "1"])
        defer { faulty.process.kill9() }

        let payload = "\(lab.directory)/ota-payload-\(run)"
        try Data((0..<262_144).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 11) }).write(to: URL(fileURLWithPath: payload))
        let (made, madeText) = try await lab.run(on: Self.hubHost, [Lab.matterctl, "ota", "make", payload, payload + ".ota", "--vendor-id", "0xFFF1",
                                                                   "--product-id", "0x8000", "--version", "3", "--version-string", "3.0.0"])
        try #require(made == 0, "\(madeText)")

        let script = Lab.repositoryRoot.appendingPathComponent("scripts/ohf-ota-check.py").path
        let (status, output) = try await lab.run(on: Self.hubHost, [python, script, "ws://127.0.0.1:5594/ws", light.qr, faulty.qr, payload + ".ota"],
                                                 timeout: 600)
        print(output)
        #expect(status == 0 && output.contains(" passed, 0 failed"), "\(output)\nhub:\n\(hub.text.suffix(6000))")
        // The image came from the stand-in's otaUrl, over HTTPS, once (then it was the hub's own).
        #expect(standIn.text.components(separatedBy: "GET /images/light-2.ota").count == 2, "\(standIn.text)")
        #expect(hub.text.contains("fetched FFF1-8000-2.ota from the DCL"), "\(hub.text.suffix(6000))")
        for line in hub.text.split(separator: "\n") where line.contains(" downloaded FFF1-8000-") || line.contains("fetched FFF1") {
            print(line)
        }
    }

    /// The ledger's documents for FFF1/8000 (65521/32768): version 2 for nodes at version 1, its
    /// image (the CHIP SDK tool's) with the SHA-256 checksum the ledger publishes.
    static func publish(versionTwoAt base: String, in www: String) throws {
        let image = try #require(TestVectors.vectors("ota_image.json").first { $0.id == "sdk-sha256-fff1-8000-v2" }?.hex("image"))
        let versions = www + "/dcl/model/versions/65521"
        try FileManager.default.createDirectory(atPath: versions + "/32768", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: www + "/images", withIntermediateDirectories: true)
        try Data(image).write(to: URL(fileURLWithPath: www + "/images/light-2.ota"))
        let checksum = Data(SHA256.hash(image)).base64EncodedString()
        let list: [String: Any] = ["modelVersions": ["vid": 65521, "pid": 32768, "softwareVersions": [2]]]
        let record: [String: Any] = ["modelVersion": [
            "vid": 65521, "pid": 32768, "softwareVersion": 2, "softwareVersionString": "2.0.0", "cdVersionNumber": 1,
            "firmwareInformation": "", "softwareVersionValid": true, "otaUrl": base + "/images/light-2.ota",
            "otaFileSize": "\(image.count)", "otaChecksum": checksum, "otaChecksumType": 1,
            "minApplicableSoftwareVersion": 1, "maxApplicableSoftwareVersion": 1, "releaseNotesUrl": "", "creator": "cosmos1lab",
            "schemaVersion": 0]]
        try JSONSerialization.data(withJSONObject: list).write(to: URL(fileURLWithPath: versions + "/32768.json"))
        try JSONSerialization.data(withJSONObject: record).write(to: URL(fileURLWithPath: versions + "/32768/2.json"))
    }
}
