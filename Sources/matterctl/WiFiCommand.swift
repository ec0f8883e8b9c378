import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MatterPlatform
import MatterCrypto
import MatterHome
import MatterNetworkCredentials

/// `matterctl wifi set|show`: the home's Wi-Fi credentials, given to Wi-Fi devices during
/// commissioning. The passphrase never goes through the argument list.
struct WiFiCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "wifi",
        abstract: "The home's Wi-Fi credentials (given to Wi-Fi devices)",
        subcommands: [SetCredentials.self, Show.self],
        defaultSubcommand: Show.self)

    struct SetCredentials: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "set",
            abstract: "Store the Wi-Fi network's SSID and passphrase",
            discussion: """
                The passphrase is read from --passphrase-file, else from stdin (asked for without \
                echo on a terminal), never from the argument list. One trailing newline is dropped. \
                It must be 8-63 printable ASCII characters or 64 hex digits; --open stores an open \
                network (no passphrase). Stored owner-only in the state directory (network/wifi.json, \
                mode 0600).
                """,
            usesHubState: true,
            arguments: [.init("ssid", help: "the network's name (1-32 bytes)")],
            options: [.value("--passphrase-file", "FILE", help: "read the passphrase from FILE"),
                      .flag("--open", help: "an open network: no passphrase")],
            examples: ["matterctl wifi set HomeNet --passphrase-file ~/.wifi-pass",
                       "pass show wifi | matterctl wifi set HomeNet"])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let ssid = Array(args.positional[0].utf8)
            var passphrase: [UInt8]
            if args.flag("--open") {
                guard args.value("--passphrase-file") == nil else { throw UsageError("--open takes no passphrase") }
                passphrase = []
            } else {
                passphrase = try readPassphrase(file: args.value("--passphrase-file"), ssid: args.positional[0])
                guard !passphrase.isEmpty else {
                    throw CommandFailure("no passphrase was given (stdin was empty); use --open for an open network")
                }
            }
            let credentials: WiFiCredentials
            do throws(WiFiCredentialsError) {
                credentials = try WiFiCredentials(ssid: ssid, passphrase: SecretBytes(passphrase))
            } catch {
                throw CommandFailure(error.description)
            }
            for i in passphrase.indices { passphrase[i] = 0 }
            try await ThreadCommand.withHub(args) { hub in try await hub.setWiFiCredentials(credentials) }
            Output.out("Stored the Wi-Fi credentials for \(args.positional[0])")
            return 0
        }

        /// The passphrase from the file or stdin, without its trailing newline.
        static func readPassphrase(file: String?, ssid: String) throws -> [UInt8] {
            var bytes: [UInt8]
            if let file {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw CommandFailure("cannot read the passphrase file \(file)")
                }
                bytes = [UInt8](data)
            } else if isatty(0) == 1 {
                bytes = Terminal.readWithoutEcho(prompt: "Passphrase for \(ssid): ")
            } else {
                bytes = try Output.readStandardInput("the passphrase")
            }
            if bytes.last == 0x0A { bytes.removeLast() }
            if bytes.last == 0x0D { bytes.removeLast() }
            return bytes
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "show",
            abstract: "Print the stored SSID (never the passphrase)",
            usesHubState: true,
            options: [.flag("--json", help: "one JSON object on stdout")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let stored = try await ThreadCommand.withHub(args) { hub in try await hub.wifiCredentials() }
            let ssid = stored.map { $0.ssidText ?? "hex:" + $0.ssid.hexString }
            if args.flag("--json") {
                Output.out(JSON.object([("ssid", JSON.from(ssid)), ("open", stored.map { .bool($0.passphrase.count == 0) } ?? .null)]).text)
            } else if let ssid, let stored {
                Output.out("SSID: \(ssid)" + (stored.passphrase.count == 0 ? " (open network)" : ""))
            } else {
                Output.err("no Wi-Fi credentials stored (set them with 'matterctl wifi set SSID')")
            }
            return 0
        }
    }
}

/// Reading a secret from the terminal.
enum Terminal {
    /// Prints `prompt` on stderr and reads one line from stdin with echo off.
    static func readWithoutEcho(prompt: String) -> [UInt8] {
        var stderr = StandardError()
        stderr.write(prompt)
        var old = termios()
        let haveTerm = tcgetattr(0, &old) == 0
        if haveTerm {
            var silent = old
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSANOW, &silent)
        }
        defer {
            if haveTerm { tcsetattr(0, TCSANOW, &old) }
            stderr.write("\n")
        }
        var line: [UInt8] = []
        var c: UInt8 = 0
        while read(0, &c, 1) == 1 && c != 0x0A { line.append(c) }
        return line
    }
}
