import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MatterCrypto
import MatterHome
import MatterNetworkCredentials
import MatterPlatform

/// `matterctl thread`: Thread operational datasets (parse, generate, the hub's stored ones) and
/// the Thread border routers on the network.
struct ThreadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "thread",
        abstract: "Thread datasets (parse, generate, the hub's) and border routers",
        subcommands: [Dataset.self, Datasets.self, BorderRoutersCommand.self])

    /// `matterctl thread dataset parse|generate`
    struct Dataset: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "dataset",
            abstract: "Parse or generate a Thread operational dataset",
            subcommands: [Parse.self, Generate.self])
    }

    struct Parse: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "parse",
            abstract: "Decode and check a Thread operational dataset (MeshCoP TLVs in hex)",
            discussion: """
                Decodes the TLVs that 'ot-ctl dataset active -x' prints (a 'hex:' prefix is allowed). \
                The network key and PSKc are shown as <redacted> unless --show-secrets is given. \
                Exit 1 naming the defect for a malformed dataset (truncated TLV, wrong length, \
                duplicate type, invalid value). Give '-' (or nothing) to read the hex from stdin, \
                which keeps the network key out of the process list.
                """,
            arguments: [.init("hex", help: "the dataset's TLVs in hex, or - for stdin", arity: .optional)],
            options: [.flag("--json", help: "one JSON object on stdout"),
                      .flag("--show-secrets", help: "print the network key and PSKc")],
            examples: ["matterctl thread dataset parse 0e08000000000001000000030000...",
                       "ot-ctl dataset active -x | matterctl thread dataset parse --json"])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let dataset = try ThreadCommand.readDataset(args.positional.first)
            let show = args.flag("--show-secrets")
            if args.flag("--json") {
                Output.out(ThreadDatasetView.json(dataset, showSecrets: show).text)
            } else {
                for line in ThreadDatasetView.lines(dataset, showSecrets: show) { Output.out(line) }
            }
            return 0
        }
    }

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "generate",
            abstract: "Make a new Thread network's dataset with fresh random credentials",
            discussion: """
                Random PAN ID, extended PAN ID, network key, PSKc and mesh-local prefix from the \
                system's secure random source (OpenSSL's DRBG); all 2.4 GHz channels in the mask; \
                OpenThread's default security policy. Prints the dataset's TLVs in hex (it holds the \
                network key: treat it as a secret).
                """,
            options: [.value("--network-name", "N", help: "1-16 bytes (default MatterHub-XXXX after the PAN ID)"),
                      .value("--channel", "C", help: "11-26 (default random)"),
                      .flag("--json", help: "one JSON object on stdout: tlvs and the decoded dataset")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let channel = try args.integer("--channel", as: UInt16.self)
            if let channel, !ThreadChannel.page0Channels.contains(channel) { throw UsageError("--channel must be 11...26") }
            var random = SystemRandomSource()
            let dataset: ThreadDataset
            let tlvs: [UInt8]
            do throws(ThreadDatasetError) {
                dataset = try ThreadDataset.generate(networkName: args.value("--network-name"), channel: channel, random: &random)
                tlvs = try dataset.encoded()
            } catch {
                throw UsageError(error.message)
            }
            if args.flag("--json") {
                Output.out(JSON.object([("tlvs", .string(tlvs.hexString)),
                                        ("dataset", ThreadDatasetView.json(dataset, showSecrets: true))]).text)
            } else {
                Output.out(tlvs.hexString)
            }
            return 0
        }
    }

    /// `matterctl thread datasets add|list|remove|prefer`
    struct Datasets: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "datasets",
            abstract: "The hub's Thread datasets (the preferred one is given to Thread devices)",
            discussion: """
                Stored owner-only in the state directory (network/thread-datasets.json, mode 0600). \
                A dataset is known by its extended PAN ID (or its network name when unique).
                """,
            subcommands: [Add.self, List.self, Remove.self, Prefer.self],
            defaultSubcommand: List.self)
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "add",
            abstract: "Store a complete active dataset",
            discussion: """
                The dataset needs at least the channel, PAN ID, extended PAN ID, network name, \
                mesh-local prefix and network key. One with the same extended PAN ID is replaced \
                (not by an older active timestamp). The first one stored, or one added with \
                --prefer, becomes the preferred one. Give '-' (or nothing) to read the hex from stdin.
                """,
            usesHubState: true,
            arguments: [.init("hex", help: "the dataset's TLVs in hex, or - for stdin", arity: .optional)],
            options: [.flag("--prefer", help: "make it the preferred dataset"),
                      .flag("--json", help: "one JSON object on stdout")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let dataset = try ThreadCommand.readDataset(args.positional.first)
            let addition = try await ThreadCommand.withHub(args) { hub in
                try hub.networkCredentials.addThreadDataset(dataset, prefer: args.flag("--prefer"))
            }
            let s = addition.dataset
            if args.flag("--json") {
                Output.out(JSON.object(ThreadCommand.summary(s) + [("replaced", .bool(addition.replaced))]).text)
            } else {
                Output.out("\(addition.replaced ? "Replaced" : "Added") \(s.dataset.networkName ?? "?") (\(s.id))"
                           + (s.isPreferred ? ", the preferred dataset" : ""))
            }
            return 0
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "list",
            abstract: "List the stored datasets (never their secrets)",
            usesHubState: true,
            options: [.flag("--json", help: "one JSON object on stdout")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let all = try await ThreadCommand.withHub(args) { hub in try hub.networkCredentials.threadDatasets() }
            if args.flag("--json") {
                Output.out(JSON.object([("datasets", .array(all.map { .object(ThreadCommand.summary($0)) }))]).text)
                return 0
            }
            if all.isEmpty { Output.err("no Thread datasets stored (add one with 'matterctl thread datasets add')") }
            for s in all {
                let d = s.dataset
                Output.out("\(s.isPreferred ? "*" : " ") \(s.id)  \((d.networkName ?? "?").padding(to: 17))"
                           + "channel \(d.channel.map { String($0.number) } ?? "?")  PAN ID 0x\(String(d.panID ?? 0, radix: 16).leftPadded(4))"
                           + "  active timestamp \(d.activeTimestamp.map { String($0.seconds) } ?? "none")")
            }
            return 0
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "remove",
            abstract: "Forget a stored dataset",
            usesHubState: true,
            arguments: [.init("dataset", help: "its extended PAN ID (hex) or network name")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            try await ThreadCommand.withHub(args) { hub in try hub.networkCredentials.removeThreadDataset(args.positional[0]) }
            Output.out("Removed \(args.positional[0])")
            return 0
        }
    }

    struct Prefer: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "prefer",
            abstract: "Make a stored dataset the one Thread devices are given",
            usesHubState: true,
            arguments: [.init("dataset", help: "its extended PAN ID (hex) or network name")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            try await ThreadCommand.withHub(args) { hub in try hub.networkCredentials.preferThreadDataset(args.positional[0]) }
            Output.out("Preferred \(args.positional[0])")
            return 0
        }
    }

    // MARK: helpers

    /// The hub on the state directory (its store is opened, as every hub command does).
    static func hub(_ args: ParsedArguments) throws -> Hub {
        do throws(HomeError) { return try Hub(stateDirectory: args.stateDirectory) } catch { throw CommandFailure(error.description) }
    }

    /// Runs `body` on the hub and shuts the hub down; store and hub errors become failures (exit 1).
    static func withHub<T: Sendable>(_ args: ParsedArguments, _ body: (Hub) async throws -> T) async throws -> T {
        let hub = try hub(args)
        do {
            let result = try await body(hub)
            await hub.shutdown()
            return result
        } catch {
            await hub.shutdown()
            switch error {
            case let e as StoreError: throw CommandFailure("\(e.description). \(e.recoverySuggestion)")
            case let e as HomeError: throw CommandFailure(e.description)
            default: throw error
            }
        }
    }

    static func summary(_ s: StoredThreadDataset) -> [(String, JSON)] {
        let d = s.dataset
        return [("id", .string(s.id)), ("networkName", JSON.from(d.networkName)), ("extPanId", JSON.from(d.extendedPANID?.hexString)),
                ("panId", JSON.from(d.panID)), ("channel", JSON.from(d.channel?.number)),
                ("activeTimestamp", ThreadDatasetView.timestamp(d.activeTimestamp)), ("preferred", .bool(s.isPreferred)),
                ("addedAt", .string(s.addedAt.formatted(.iso8601)))]
    }

    /// The dataset from the argument, or from stdin when it is absent or `-`.
    static func readDataset(_ argument: String?) throws -> ThreadDataset {
        var text: String
        if let argument, argument != "-" {
            text = argument
        } else {
            guard isatty(0) == 0 else { throw UsageError("give the dataset's hex, or pipe it in on stdin") }
            text = String(decoding: try Output.readStandardInput("the dataset"), as: UTF8.self)
        }
        text = text.trimmingWhitespaceAndNewlines()
        if text.lowercased().hasPrefix("hex:") { text = String(text.dropFirst(4)) }
        guard let bytes = text.isEmpty ? [] : CertificateInput.hex(text) else {
            throw CommandFailure("the dataset is not hex (expected the TLVs as 'ot-ctl dataset active -x' prints them)")
        }
        do throws(ThreadDatasetError) { return try ThreadDataset(tlvs: bytes) } catch {
            throw CommandFailure("malformed Thread dataset: \(error.message)")
        }
    }
}
