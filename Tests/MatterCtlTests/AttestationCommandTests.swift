import Foundation
import Testing
import TestSupport

/// `matterctl attestation verify`, run as a user runs it: exit codes, the named rule on stderr,
/// and the JSON contract.
@Suite struct AttestationCommandTests {
    /// A scratch folder with a device's DAC, PAI and CD from a DUT vector and a PAA store.
    final class Device {
        let dir: URL
        var dac: String { dir.appendingPathComponent("dac.der").path }
        var pai: String { dir.appendingPathComponent("pai.pem").path }
        var cd: String { dir.appendingPathComponent("cd.der").path }
        var store: String { dir.appendingPathComponent("paa").path }

        init(expected: String = "success", where match: (Vector) -> Bool = { _ in true }) throws {
            let v = try #require(TestVectors.vectors("attestation/commissioner_dut.json").first {
                $0.string("expected_commissioner_result") == expected && match($0)
            })
            dir = FileManager.default.temporaryDirectory.appendingPathComponent("attest-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("paa"), withIntermediateDirectories: true)
            try Data(v.hex("dac_cert") ?? []).write(to: URL(fileURLWithPath: dac))
            // The PAI as PEM: both file forms are accepted.
            let b64 = Data(v.hex("pai_cert") ?? []).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
            try Data("-----BEGIN CERTIFICATE-----\n\(b64)\n-----END CERTIFICATE-----\n".utf8).write(to: URL(fileURLWithPath: pai))
            try Data(v.hex("certification_declaration") ?? []).write(to: URL(fileURLWithPath: cd))
            for name in ["Chip-Test-PAA-FFF1-Cert.pem", "Chip-Test-PAA-NoVID-Cert.der"] {
                try FileManager.default.copyItem(
                    at: TestVectors.directory.appendingPathComponent("attestation/test-attestation/\(name)"),
                    to: dir.appendingPathComponent("paa/\(name)"))
            }
        }

        deinit { try? FileManager.default.removeItem(at: dir) }

        func verify(_ extra: String...) throws -> ProcessRunner.Result {
            try ProcessRunner.run(ProcessRunner.matterctl,
                                  ["attestation", "verify", "--dac", dac, "--pai", pai, "--cd", cd,
                                   "--paa-store", store, "--at", "2024-07-01T00:00:00Z"] + extra)
        }
    }

    @Test func testDeviceAllowed() throws {
        let d = try Device()
        let r = try d.verify("--allow-test-devices")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Attestation:   OK"))
        #expect(r.stdout.contains("Vendor ID:     0xFFF1"))
    }

    @Test func testDeviceRefusedByDefault() throws {
        let r = try Device().verify()
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("testPAARejected"))
        #expect(r.stderr.contains("--allow-test-devices"))
    }

    @Test func wrongVendorIDAsJSON() throws {
        let r = try Device().verify("--allow-test-devices", "--vendor-id", "0xFFF2", "--json")
        #expect(r.status == 1)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["ok"] as? Bool == false)
        #expect(json["result"] as? String == "cdVendorIdMismatch")
        #expect(json["vendorId"] as? Int == 0xFFF1)
        #expect((json["paa"] as? [String: Any])?["subjectKeyId"] as? String == "6afd22771f511fecbf1641976710dcdc31a1717e")
    }

    @Test func successAsJSON() throws {
        let r = try Device().verify("--allow-test-devices", "--json")
        #expect(r.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["result"] as? String == "success")
        #expect(json["usesTestCredentials"] as? Bool == true)
        #expect((json["certificationDeclaration"] as? [String: Any])?["certificationType"] as? Int == 0)
    }

    @Test func failingVectorNamesItsRule() throws {
        let d = try Device(expected: "failure") { $0.id.hasSuffix("cd-pid-array-count10-mismatch") }
        let r = try d.verify("--allow-test-devices", "--product-id", "0x8000")
        #expect(r.status == 1)
        #expect(r.stderr.contains("cdProductIdNotInList"))
    }

    @Test func paaMissingFromTheStore() throws {
        let d = try Device()
        try FileManager.default.removeItem(atPath: d.store + "/Chip-Test-PAA-FFF1-Cert.pem")
        let r = try d.verify("--allow-test-devices")
        #expect(r.status == 1)
        #expect(r.stderr.contains("paaNotFound"))
    }

    @Test func dacNotValidAtTheGivenTime() throws {
        let r = try Device().verify("--allow-test-devices", "--at", "2020-01-01T00:00:00Z")
        #expect(r.status == 1)
        #expect(r.stderr.contains("dacNotYetValid"))
    }

    @Test func usageErrors() throws {
        let d = try Device()
        #expect(try ProcessRunner.run(ProcessRunner.matterctl, ["attestation", "verify", "--dac", d.dac]).status == 64)
        #expect(try d.verify("--at", "yesterday").status == 64)
        #expect(try d.verify("--bogus").status == 64)
        #expect(try ProcessRunner.run(ProcessRunner.matterctl, ["attestation", "check"]).status == 64)
        let help = try ProcessRunner.run(ProcessRunner.matterctl, ["attestation", "verify", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--paa-store DIR"))
        #expect(try ProcessRunner.run(ProcessRunner.matterctl, ["attestation", "--help"]).stdout.contains("\n  verify "))
    }

    @Test func unreadableFilesExitOne() throws {
        let d = try Device()
        let r = try ProcessRunner.run(ProcessRunner.matterctl,
                                      ["attestation", "verify", "--dac", d.dac + ".missing", "--pai", d.pai, "--paa-store", d.store])
        #expect(r.status == 1)
        #expect(r.stderr.contains("cannot read the DAC"))
        let emptyDir = d.dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: emptyDir, withIntermediateDirectories: true)
        try Data("not a certificate".utf8).write(to: emptyDir.appendingPathComponent("notes.pem"))
        let empty = try ProcessRunner.run(ProcessRunner.matterctl,
                                          ["attestation", "verify", "--dac", d.dac, "--pai", d.pai, "--paa-store", emptyDir.path])
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("no PAA certificate"))
        #expect(empty.stderr.contains("skipped notes.pem"))
    }

    @Test func revokedDAC() throws {
        let folder = TestVectors.directory.appendingPathComponent("attestation/revoked-attestation-certificates")
        let device = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("dac-provider-test-vectors/revoked-dac-01.json"))) as? [String: Any]
        let v = Vector(try #require(device))
        let d = try Device()
        try Data(v.hex("dac_cert") ?? []).write(to: URL(fileURLWithPath: d.dac))
        let b64 = Data(v.hex("pai_cert") ?? []).base64EncodedString()
        try Data("-----BEGIN CERTIFICATE-----\n\(b64)\n-----END CERTIFICATE-----\n".utf8).write(to: URL(fileURLWithPath: d.pai))
        try Data(v.hex("certification_declaration") ?? []).write(to: URL(fileURLWithPath: d.cd))
        let set = folder.appendingPathComponent("revocation-sets/revocation-set.json").path
        let ok = try d.verify("--allow-test-devices", "--at", "2025-06-02T00:00:00Z")
        #expect(ok.status == 0, "\(ok.stderr)")
        let r = try d.verify("--allow-test-devices", "--at", "2025-06-02T00:00:00Z", "--revocation-set", set)
        #expect(r.status == 1)
        #expect(r.stderr.contains("dacRevoked"))
    }
}
