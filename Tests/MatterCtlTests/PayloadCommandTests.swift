import Foundation
import Testing
import TestSupport

/// `matterctl payload`, run as a user runs it: exit codes, stdout/stderr and the JSON contract.
@Suite struct PayloadCommandTests {
    func matterctl(_ args: String...) throws -> ProcessRunner.Result {
        try ProcessRunner.run(ProcessRunner.matterctl, args)
    }

    @Test func parseQRCodeAsJSON() throws {
        let r = try matterctl("payload", "parse", "MT:Y.K9042C00KA0648G00", "--json")
        #expect(r.status == 0)
        #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == """
            {"payloads":[{"kind":"qr","version":0,"vendorId":65521,"productId":32768,"commissioningFlow":0,\
            "discoveryCapabilities":2,"discriminator":3840,"shortDiscriminator":15,"passcode":20202021,\
            "serialNumber":null,"extensions":[]}]}
            """)
    }

    @Test func parseManualCodesAsJSON() throws {
        let r = try matterctl("payload", "parse", "3497-011-2332", "749701123309050177298", "--json")
        #expect(r.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let payloads = try #require(json?["payloads"] as? [[String: Any]])
        #expect(payloads.count == 2)
        #expect(payloads[0]["kind"] as? String == "manual")
        #expect(payloads[0]["shortDiscriminator"] as? Int == 15)
        #expect(payloads[0]["passcode"] as? Int == 20_202_021)
        #expect(payloads[0]["vendorId"] == nil && payloads[0]["discriminator"] == nil)
        #expect(payloads[1]["vendorId"] as? Int == 9050)
        #expect(payloads[1]["productId"] as? Int == 17729)
        #expect(payloads[1]["commissioningFlow"] as? Int == 2)
    }

    @Test func concatenatedQRGivesOneEntryPerDevice() throws {
        let r = try matterctl("payload", "parse", "--json",
                              "MT:M5L90MP500K64J00000*M5L90U.D010K4J00000*M5L900CM02IX4J00000*M5L908OU03-85J00000")
        #expect(r.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((json?["payloads"] as? [Any])?.count == 4)
    }

    @Test func invalidCodeExitsOneWithReason() throws {
        let r = try matterctl("payload", "parse", "34970112333")
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("check digit"))
    }

    @Test func readableSummary() throws {
        let r = try matterctl("payload", "parse", "MT:Y.K9042C00KA0648G00")
        #expect(r.status == 0)
        #expect(r.stdout.contains("Discriminator:          3840"))
        #expect(r.stdout.contains("65521 (0xFFF1)"))
    }

    @Test func generateJSONParsesBack() throws {
        let g = try matterctl("payload", "generate", "--passcode", "20202021", "--discriminator", "3840",
                              "--vendor-id", "0xFFF1", "--product-id", "0x8000", "--capabilities", "2", "--json")
        #expect(g.status == 0)
        #expect(g.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            == #"{"qr":"MT:Y.K9042C00KA0648G00","manual":"34970112332"}"#)
    }

    @Test func generatePrintsCodesAndTerminalQR() throws {
        let g = try matterctl("payload", "generate", "--passcode", "20202021", "--discriminator", "3840")
        #expect(g.status == 0)
        #expect(g.stdout.contains("MT:"))
        #expect(g.stdout.contains("3497-011-2332"))
        #expect(g.stdout.contains("\u{2584}") || g.stdout.contains("\u{2580}"))
    }

    @Test(arguments: [["--passcode", "12345678", "--discriminator", "1"],
                      ["--passcode", "100000000", "--discriminator", "1"],
                      ["--passcode", "20202021", "--discriminator", "4096"]])
    func generateRefusesInvalidFields(_ extra: [String]) throws {
        let g = try ProcessRunner.run(ProcessRunner.matterctl, ["payload", "generate"] + extra)
        #expect(g.status == 1)
        #expect(!g.stderr.isEmpty)
    }

    @Test func usageErrorsExit64() throws {
        #expect(try matterctl("payload", "generate", "--discriminator", "1").status == 64)
        #expect(try matterctl("payload", "parse", "--bogus", "x").status == 64)
        #expect(try matterctl("nonsense").status == 64)
        #expect(try matterctl("payload", "--help").status == 0)
    }
}

/// The hub commands without a network: the store in a temporary state directory.
@Suite struct HubCommandTests {
    func state() -> String { NSTemporaryDirectory() + "matterctl-state-\(UInt32.random(in: 0...UInt32.max))" }

    @Test func globalStateOptionBeforeTheCommand() throws {
        let dir = state()
        let add = try ProcessRunner.run(ProcessRunner.matterctl, ["--state", dir, "rooms", "add", "Kitchen"])
        #expect(add.status == 0, "\(add.stderr)")
        let list = try ProcessRunner.run(ProcessRunner.matterctl, ["rooms", "list", "--json", "--state", dir])
        #expect(list.stdout.contains("\"name\":\"Kitchen\""))
        // Same name again, in other case: refused, exit 1.
        let again = try ProcessRunner.run(ProcessRunner.matterctl, ["--state", dir, "rooms", "add", "kitchen"])
        #expect(again.status == 1 && !again.stderr.isEmpty)
        var info = stat()
        #expect(stat(dir, &info) == 0 && info.st_mode & 0o777 == 0o700)
    }

    @Test func stateFromTheEnvironment() throws {
        let dir = state()
        var env = ProcessInfo.processInfo.environment
        env["MATTERHUB_STATE"] = dir
        let r = try ProcessRunner.run(ProcessRunner.matterctl, ["devices", "--json"], environment: env)
        #expect(r.status == 0 && r.stdout.contains("\"devices\":[]"))
        #expect(FileManager.default.fileExists(atPath: dir + "/hub.sqlite"))
    }

    @Test func unknownDeviceIsAClearError() throws {
        let r = try ProcessRunner.run(ProcessRunner.matterctl, ["read", "0x1234", "basicinformation", "vendorname", "--state", state()])
        #expect(r.status == 1)
        #expect(r.stderr.contains("no device with node ID"))
        let usage = try ProcessRunner.run(ProcessRunner.matterctl, ["read", "0x1234", "nosuchcluster", "x", "--state", state()])
        #expect(usage.status == 64)
    }
}
