import Foundation
import Testing
import TestSupport

/// The declared command line: global options before the command, help generated at every level
/// (pinned here, as swift-argument-parser's MathExampleTests pin theirs), usage errors exit 64.
@Suite(.serialized) struct CLITests {
    func matterctl(_ args: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(ProcessRunner.matterctl, args)
    }

    static func scratch() -> String { NSTemporaryDirectory() + "matterctl-cli-\(UUID().uuidString)" }

    /// Every leaf command, read from the tool's own help: the top-level COMMANDS list, then
    /// each command's SUBCOMMANDS (so a new command cannot be missing from the table below).
    func leafCommands() throws -> [[String]] {
        func names(in help: String, section: String) -> [String] {
            guard let start = help.range(of: "\n\(section):\n") else { return [] }
            return help[start.upperBound...].split(separator: "\n").prefix { $0.hasPrefix("  ") && !$0.hasPrefix("  See") }
                .compactMap { line in
                    // A row's name starts at column 2; continuation lines start further right.
                    line.hasPrefix("   ") ? nil : line.split(separator: " ").first.map(String.init)
                }
        }
        var leaves: [[String]] = []
        var pending = names(in: try matterctl(["--help"]).stdout, section: "COMMANDS").map { [$0] }
        while let path = pending.popLast() {
            let help = try matterctl(path + ["--help"])
            #expect(help.status == 0, "\(path) --help: \(help.stderr)")
            let subs = names(in: help.stdout, section: "SUBCOMMANDS")
            if subs.isEmpty { leaves.append(path) } else { pending += subs.map { path + [$0] } }
        }
        return leaves.sorted { $0.joined(separator: " ") < $1.joined(separator: " ") }
    }

    /// How each leaf command is run without a network: its arguments, whether it opens the hub's
    /// state directory, and the exit status it must end with.
    struct Case: Sendable {
        var arguments: [String]
        var usesHubState: Bool
        var status: Int32
        /// Whether using the state directory creates it (a status query only reads).
        var createsState = true
    }

    static let certificate = TestVectors.vectors("matter_certs.json").first { $0.id == "cert-root01" }!
        .string("chip_tlv")!

    static let cases: [String: Case] = [
        "attestation verify": Case(arguments: ["--dac", "/nonexistent/dac.der", "--pai", "/nonexistent/pai.der",
                                               "--paa-store", "/nonexistent"], usesHubState: false, status: 1),
        "attestation trust-store add": Case(arguments: ["/nonexistent/paa.pem"], usesHubState: true, status: 1, createsState: false),
        "attestation trust-store list": Case(arguments: [], usesHubState: true, status: 0, createsState: false),
        // Removing a built-in root (IKEA's) writes the distrust into trust-store/store.json.
        "attestation trust-store remove": Case(arguments: ["6B318CFCE99920D7328F5F436D5EA332B8B75D9A"], usesHubState: true,
                                               status: 0),
        "attestation trust-store update": Case(arguments: ["--from-dir", "/nonexistent"], usesHubState: true, status: 1,
                                               createsState: false),
        "cert verify": Case(arguments: [certificate], usesHubState: false, status: 0),
        "ota inspect": Case(arguments: ["/nonexistent/image.ota"], usesHubState: false, status: 1),
        "ota make": Case(arguments: ["/nonexistent/payload.bin", "/nonexistent/image.ota", "--vendor-id", "0xFFF1", "--product-id", "0x8000",
                                     "--version", "2", "--version-string", "2.0"], usesHubState: false, status: 1),
        "ota add": Case(arguments: ["/nonexistent/image.ota"], usesHubState: true, status: 1, createsState: false),
        "ota list": Case(arguments: [], usesHubState: true, status: 0, createsState: false),
        // Without a running hub they open the state to find the node, and find none.
        "ota check": Case(arguments: ["0x1"], usesHubState: true, status: 1),
        "ota update": Case(arguments: ["0x1", "--quiet"], usesHubState: true, status: 1),
        "ota remove": Case(arguments: ["FFF1-8000-2.ota"], usesHubState: true, status: 1, createsState: false),
        "cert convert": Case(arguments: [certificate, "--to", "der"], usesHubState: false, status: 0),
        "cert decode": Case(arguments: [certificate], usesHubState: false, status: 0),
        // Without a terminal it refuses before opening anything, pointing to commission.
        "add": Case(arguments: [], usesHubState: true, status: 1, createsState: false),
        "commission": Case(arguments: ["34970112332", "--timeout", "1"], usesHubState: true, status: 1),
        // `demo` runs scripts/demo (a lab, a build); its help is all a unit test can run.
        "demo": Case(arguments: ["--help"], usesHubState: false, status: 0),
        "devices": Case(arguments: [], usesHubState: true, status: 0),
        "discover": Case(arguments: ["--timeout", "0.2"], usesHubState: false, status: -1),
        "invoke": Case(arguments: ["0x1", "onoff", "on"], usesHubState: true, status: 1),
        "clusters": Case(arguments: ["doorlock"], usesHubState: false, status: 0),
        "subscribe": Case(arguments: ["0x1", "onoff", "onoff", "--count", "1"], usesHubState: true, status: 1),
        "write": Case(arguments: ["0x1", "basicinformation", "nodelabel", "Hall"], usesHubState: true, status: 1),
        "payload generate": Case(arguments: ["--passcode", "20202021", "--discriminator", "3840"],
                                 usesHubState: false, status: 0),
        "payload parse": Case(arguments: ["34970112332"], usesHubState: false, status: 0),
        "read": Case(arguments: ["0x1", "basicinformation", "vendorname"], usesHubState: true, status: 1),
        "rooms add": Case(arguments: ["Kitchen"], usesHubState: true, status: 0),
        "rooms list": Case(arguments: [], usesHubState: true, status: 0),
        "share": Case(arguments: ["0x1"], usesHubState: true, status: 1),
        "unpair": Case(arguments: ["0x1"], usesHubState: true, status: 1),
        "doctor": Case(arguments: ["--timeout", "0.2"], usesHubState: false, status: -1),
        "thread border-routers": Case(arguments: ["--timeout", "0.2"], usesHubState: false, status: -1),
        "thread dataset generate": Case(arguments: [], usesHubState: false, status: 0),
        "thread dataset parse": Case(arguments: [ThreadCommandTests.openThread5938], usesHubState: false, status: 0),
        "thread datasets add": Case(arguments: [ThreadCommandTests.openThread5938], usesHubState: true, status: 0),
        "thread datasets list": Case(arguments: [], usesHubState: true, status: 0),
        "thread datasets prefer": Case(arguments: ["NoSuchNetwork"], usesHubState: true, status: 1),
        "thread datasets remove": Case(arguments: ["NoSuchNetwork"], usesHubState: true, status: 1),
        // The API cannot bind 999.1.1.1: it fails after opening the hub, with exit 1.
        "hub serve": Case(arguments: ["--listen", "999.1.1.1", "--port", "0"], usesHubState: true, status: 1),
        "hub status": Case(arguments: [], usesHubState: true, status: 1, createsState: false),
        "hub token": Case(arguments: [], usesHubState: true, status: 0),
        // The source is read before the state is touched.
        "import": Case(arguments: ["python-matter-server", "/nonexistent"], usesHubState: true, status: 1, createsState: false),
        // A new state holds no fabric: nothing to export.
        "export": Case(arguments: ["python-matter-server", "/nonexistent/out"], usesHubState: true, status: 1),
        "wifi set": Case(arguments: ["HomeNet", "--open"], usesHubState: true, status: 0),
        "wifi show": Case(arguments: [], usesHubState: true, status: 0),
        // Its own --state is the device's; the global one must not reach it. An invalid
        // passcode ends it before any socket opens.
        "virtual-device": Case(arguments: ["--passcode", "11111111", "--port", "0"], usesHubState: false, status: 1),
    ]

    /// `matterctl --state DIR <command>` works for every command: the hub's commands use DIR,
    /// the others ignore it (and say so with --verbose); none answers "unknown option".
    @Test func globalStateBeforeEveryCommand() throws {
        let leaves = try leafCommands()
        #expect(leaves.count >= 16)
        for path in leaves {
            let name = path.joined(separator: " ")
            let c = try #require(Self.cases[name], "no case for '\(name)': add one to CLITests.cases")
            let dir = Self.scratch()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let r = try matterctl(["--state", dir, "--verbose"] + path + c.arguments)
            #expect(!r.stderr.contains("unknown option"), "\(name): \(r.stderr)")
            #expect(r.status != 64, "\(name): \(r.stderr)")
            if c.status >= 0 { #expect(r.status == c.status, "\(name): \(r.stderr)") }
            let used = FileManager.default.fileExists(atPath: dir)
            #expect(used == (c.usesHubState && c.createsState), "\(name): the state directory was \(used ? "" : "not ")used")
            if !c.usesHubState && !c.arguments.contains("--help") {
                #expect(r.stderr.contains("does not use the hub's state"), "\(name): \(r.stderr)")
            }
        }
    }

    /// The hub's commands also take --state after the command; it wins over the global one.
    @Test func stateAfterTheCommandWins() throws {
        let global = Self.scratch(), local = Self.scratch()
        defer { for d in [global, local] { try? FileManager.default.removeItem(atPath: d) } }
        let r = try matterctl(["--state", global, "rooms", "add", "Hall", "--state", local])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: local + "/hub.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: global))
    }

    @Test func virtualDeviceKeepsItsOwnStateOption() throws {
        let r = try matterctl(["virtual-device", "--help"])
        #expect(r.stdout.contains("--state DIR") && r.stdout.contains("the hub's") && r.stdout.contains("device's own state"))
        #expect(!r.stdout.contains("[--state DIR] virtual-device"))
    }

    @Test(arguments: [
        ["--bogus", "devices"], ["--state"], ["payload"], ["payload", "nope"], ["rooms", "add"],
        ["rooms", "add", "A", "B"], ["payload", "generate", "--passcode", "20202021"],
        ["payload", "parse", "1", "--json=yes"],
        ["help", "nosuchcommand"], ["help", "payload", "nope"],
    ])
    func usageErrorsExit64(_ args: [String]) throws {
        let r = try matterctl(args)
        #expect(r.status == 64, "\(args): \(r.stderr)")
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.hasPrefix("error: ") || r.stderr.hasPrefix("OVERVIEW"), "\(args): \(r.stderr)")
    }

    /// Every declared option shows in its command's help and is accepted by its parser.
    @Test func helpAtEveryLevel() throws {
        for path in try leafCommands() {
            let byFlag = try matterctl(path + ["--help"]), byWord = try matterctl(["help"] + path)
            #expect(byFlag.stdout == byWord.stdout, "\(path)")
            #expect(byFlag.stdout.contains("USAGE: matterctl "), "\(path)")
            #expect(byFlag.stdout.contains("-h, --help"), "\(path)")
        }
    }

    @Test func topLevelHelpIsPinned() throws {
        let r = try matterctl(["--help"])
        #expect(r.status == 0)
        let head = r.stdout.components(separatedBy: "\nCOMMANDS:\n")[0]
        #expect(head == """
            OVERVIEW: MatterHub, a Matter commissioner and home hub for Linux.

            USAGE: matterctl [--state DIR] [--verbose] <command> [<options>]

            The hub's state lives in --state DIR, else $MATTERHUB_STATE, else ~/.local/share/matterhub.

            OPTIONS:
              --state DIR             the hub's state directory (default: $MATTERHUB_STATE, else
                                      ~/.local/share/matterhub)
              --verbose               say which global options a command ignores
              -h, --help              Show help information.

            """)
        // No arguments at all: the same help, on stderr, exit 64.
        let bare = try matterctl([])
        #expect(bare.status == 64 && bare.stderr == r.stdout)
    }

    @Test func payloadHelpIsPinned() throws {
        #expect(try matterctl(["payload", "--help"]).stdout == """
            OVERVIEW: Parse or generate Matter setup codes (QR and manual pairing codes)

            USAGE: matterctl payload <subcommand>

            OPTIONS:
              -h, --help              Show help information.

            SUBCOMMANDS:
              parse                   Decode QR codes and manual pairing codes
              generate                Make a QR code and a manual pairing code

              See 'matterctl help payload <subcommand>' for detailed help.

            """)
        #expect(try matterctl(["payload", "parse", "--help"]).stdout == """
            OVERVIEW: Decode QR codes and manual pairing codes

            Decodes QR codes (MT:..., several devices joined by '*') and 11/21-digit manual pairing codes
            (dashes and spaces allowed). Exit 1 naming what is wrong with an invalid code.

            USAGE: matterctl payload parse <code>... [--json]

            ARGUMENTS:
              <code>                  a QR code (MT:...) or a manual pairing code

            OPTIONS:
              --json                  machine-readable output on stdout
              -h, --help              Show help information.

            EXAMPLES:
              matterctl payload parse MT:Y.K9042C00KA0648G00
              matterctl payload parse 3497-011-2332 --json

            """)
    }

    @Test func usageErrorShowsTheCommandsUsage() throws {
        let r = try matterctl(["commission"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("error: commission needs a setup code, or --pin P"))
        #expect(r.stderr.contains("USAGE: matterctl [--state DIR] commission [<code>...]"))
    }
}
