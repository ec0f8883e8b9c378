import Foundation
import Testing
import TestSupport

/// `matterctl thread dataset|datasets` and `matterctl wifi`: the JSON keys the documentation
/// lists, checked against the published dataset vectors; defects named with exit 1; secrets
/// redacted unless asked, owner-only files, never a passphrase in the output.
@Suite struct ThreadCommandTests {
    static let vectors = TestVectors.vectors("thread_dataset.json")
    static let openThread5938 = vectors.first { $0.id == "ot-cli-set-active-5938" }!.string("tlvs")!

    func matterctl(_ args: [String], stdin: String? = nil) throws -> ProcessRunner.Result {
        try ProcessRunner.run(ProcessRunner.matterctl, args, stdin: stdin)
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    static let keys: Set<String> = ["activeTimestamp", "pendingTimestamp", "delayTimer", "channel", "wakeUpChannel", "channelMask",
                                    "panId", "extPanId", "networkName", "meshLocalPrefix", "networkKey", "pskc",
                                    "securityPolicy", "unknown"]

    @Test(arguments: vectors.filter(\.valid))
    func parseJSONMatchesTheVector(_ v: Vector) throws {
        let r = try matterctl(["thread", "dataset", "parse", v.string("tlvs")!, "--json", "--show-secrets"])
        #expect(r.status == 0, "\(r.stderr)")
        let o = try Self.object(r.stdout)
        #expect(Set(o.keys) == Self.keys)
        let e = v.object("expected")!
        for key in ["networkName", "extPanId", "meshLocalPrefix", "networkKey", "pskc", "channel", "panId", "delayTimer", "wakeUpChannel"] {
            #expect("\(o[key] ?? "nil")" == "\(e[key] ?? NSNull())", "\(key)")
        }
        for key in ["activeTimestamp", "pendingTimestamp", "securityPolicy"] {
            #expect((o[key] as? NSDictionary) == (e[key] as? NSDictionary), "\(key): \(o[key] ?? "nil")")
        }
        if e["channelMaskOT"] != nil {
            let mask = try #require((o["channelMask"] as? [[String: Any]])?.first)
            #expect(mask["page"] as? Int == 0 && mask["mask"] as? String == "001fffe0")
            #expect(mask["channels"] as? [Int] == Array(11...26))
        }
        #expect((o["unknown"] as? [Any])?.isEmpty == true)
    }

    @Test func secretsAreRedactedUnlessAsked() throws {
        for args in [["--json"], []] {
            let r = try matterctl(["thread", "dataset", "parse", Self.openThread5938] + args)
            #expect(r.status == 0)
            #expect(!r.stdout.contains("f366cec7a446bab978d90d27abe38f23") && !r.stdout.contains("3ca67c969efb0d0c74a4d8ee923b576c"))
            #expect(r.stdout.contains("<redacted>"))
        }
        let text = try matterctl(["thread", "dataset", "parse", "-"], stdin: "hex:" + Self.openThread5938 + "\n")
        #expect(text.stdout.contains("Network Name: OpenThread-5938") && text.stdout.contains("Mesh Local Prefix: fdf1:f1ad:d079:7dc0::/64"),
                "\(text.stdout)")
        #expect(text.stdout.contains("Channel Mask: page 0: 11-26 (001fffe0)"))
    }

    @Test(arguments: vectors.filter { !$0.valid })
    func malformedExitsOneNamingTheDefect(_ v: Vector) throws {
        let hex = v.string("tlvs")!
        let r = try matterctl(["thread", "dataset", "parse", hex.isEmpty ? "-" : hex])
        #expect(r.status == 1, "\(r.stderr)")
        let phrase = ["truncatedTLV": "truncated TLV", "wrongLength": "wrong length", "duplicateType": "duplicate type",
                      "invalidValue": "invalid value", "tooLong": "too long"][v.string("error")!]!
        #expect(r.stderr.hasPrefix("error: malformed Thread dataset: \(phrase)"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test func generateMakesFreshCompleteDatasets() throws {
        let a = try Self.object(try matterctl(["thread", "dataset", "generate", "--network-name", "LabNet", "--channel", "25", "--json"]).stdout)
        let b = try matterctl(["thread", "dataset", "generate"])
        #expect(b.status == 0)
        let d = try #require(a["dataset"] as? [String: Any])
        #expect(d["networkName"] as? String == "LabNet" && d["channel"] as? Int == 25)
        #expect((d["networkKey"] as? String)?.count == 32 && (d["pskc"] as? String)?.count == 32)
        #expect((d["meshLocalPrefix"] as? String)?.hasPrefix("fd") == true)
        #expect(a["tlvs"] as? String != b.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        // What generate prints, parse reads back.
        let back = try Self.object(try matterctl(["thread", "dataset", "parse", a["tlvs"] as! String, "--json", "--show-secrets"]).stdout)
        #expect(back["networkKey"] as? String == d["networkKey"] as? String)
        #expect(try matterctl(["thread", "dataset", "generate", "--channel", "27"]).status == 64)
        #expect(try matterctl(["thread", "dataset", "generate", "--network-name", "seventeen-bytes!!"]).status == 64)
    }

    @Test func hubDatasetsAddListPreferRemove() throws {
        let state = NSTemporaryDirectory() + "matterctl-thread-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let other = Self.vectors.first { $0.id == "ot-cli-tlvs-de2b" }!.string("tlvs")!
        #expect(try matterctl(["--state", state, "thread", "datasets", "add"], stdin: Self.openThread5938).status == 0)
        let added = try matterctl(["--state", state, "thread", "datasets", "add", other, "--json"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try Self.object(added.stdout)["preferred"] as? Bool == false)
        var list = try Self.object(try matterctl(["--state", state, "thread", "datasets", "list", "--json"]).stdout)
        var rows = try #require(list["datasets"] as? [[String: Any]])
        #expect(rows.map { $0["networkName"] as? String } == ["OpenThread-5938", "OpenThread-de2b"])
        #expect(rows.map { $0["preferred"] as? Bool } == [true, false])
        #expect(!"\(list)".contains("f366cec7"), "list never shows a network key")

        #expect(try matterctl(["--state", state, "thread", "datasets", "prefer", "OpenThread-de2b"]).status == 0)
        #expect(try matterctl(["--state", state, "thread", "datasets", "remove", "39758ec8144b07fb"]).status == 0)
        list = try Self.object(try matterctl(["--state", state, "thread", "datasets", "list", "--json"]).stdout)
        rows = try #require(list["datasets"] as? [[String: Any]])
        #expect(rows.count == 1 && rows[0]["id"] as? String == "d196fa2040e973b6" && rows[0]["preferred"] as? Bool == true)

        let missing = try matterctl(["--state", state, "thread", "datasets", "remove", "nope"])
        #expect(missing.status == 1 && missing.stderr.contains("no Thread dataset nope"), "\(missing.stderr)")
        let incomplete = try matterctl(["--state", state, "thread", "datasets", "add", "000300000f"])
        #expect(incomplete.status == 1 && incomplete.stderr.contains("missing TLV"), "\(incomplete.stderr)")

        let attrs = try FileManager.default.attributesOfItem(atPath: state + "/network/thread-datasets.json")
        #expect(attrs[.posixPermissions] as? Int == 0o600)
    }

    @Test func wifiPassphraseNeverInArgvOrOutput() throws {
        let state = NSTemporaryDirectory() + "matterctl-wifi-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let secret = "s3cret-pass-\(UInt32.random(in: 0...UInt32.max))"
        let set = try matterctl(["--state", state, "wifi", "set", "Home Net"], stdin: secret + "\n")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(!set.stdout.contains(secret) && !set.stderr.contains(secret))
        let show = try matterctl(["--state", state, "wifi", "show", "--json"])
        #expect(try Self.object(show.stdout)["ssid"] as? String == "Home Net")
        #expect(!show.stdout.contains(secret))
        let file = state + "/network/wifi.json"
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)

        // From a file; and the errors: empty stdin, a too-short passphrase, no passphrase option in argv.
        let passFile = NSTemporaryDirectory() + "pass-\(UUID().uuidString)"
        try "another-passphrase\n".write(toFile: passFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: passFile) }
        #expect(try matterctl(["--state", state, "wifi", "set", "Other", "--passphrase-file", passFile]).status == 0)
        #expect(try matterctl(["--state", state, "wifi", "show"]).stdout == "SSID: Other\n")
        let empty = try matterctl(["--state", state, "wifi", "set", "Home"], stdin: "")
        #expect(empty.status == 1 && empty.stderr.contains("--open"), "\(empty.stderr)")
        let short = try matterctl(["--state", state, "wifi", "set", "Home"], stdin: "short")
        #expect(short.status == 1 && short.stderr.contains("8-63"), "\(short.stderr)")
        #expect(try matterctl(["--state", state, "wifi", "set", "Home", "--passphrase", "x"]).status == 64)
    }
}
