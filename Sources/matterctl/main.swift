import Foundation

/// `matterctl`: the MatterHub command-line tool.
enum Matterctl {
    /// Every subcommand, in the order the help lists them.
    static let commands: [any Command.Type] = [
        PayloadCommand.self,
        CommissionCommand.self,
        DevicesCommand.self,
        RoomsCommand.self,
        ReadCommand.self,
        InvokeCommand.self,
        UnpairCommand.self,
        ShareCommand.self,
        DemoCommand.self,
        DiscoverCommand.self,
        CertCommand.self,
        AttestationCommand.self,
        VirtualDeviceCommand.self,
    ]

    static var help: String {
        var lines = [
            "matterctl: MatterHub, a Matter commissioner and home hub for Linux.",
            "",
            "usage: matterctl [--state DIR] <command> [options]",
            "",
            "The hub's state lives in --state DIR, else $MATTERHUB_STATE, else ~/.local/share/matterhub.",
            "",
            "commands:",
        ]
        for c in commands { lines.append("  " + c.name.padding(to: 16) + c.summary) }
        lines.append("")
        lines.append("Run 'matterctl <command> --help' for the options of a command.")
        return lines.joined(separator: "\n")
    }

    static func main(_ argv: [String]) async -> Int32 {
        // The global `--state DIR` (before the command) is handed to the command.
        var argv = argv
        var global: [String] = []
        while argv.first == "--state" || argv.first?.hasPrefix("--state=") == true {
            if argv[0] == "--state" {
                guard argv.count >= 2 else {
                    Output.err("error: --state needs a directory")
                    return 64
                }
                global += Array(argv[0...1])
                argv.removeFirst(2)
            } else {
                global.append(argv.removeFirst())
            }
        }
        guard let first = argv.first else {
            Output.err(help)
            return 64
        }
        if first == "--help" || first == "-h" || first == "help" {
            Output.out(help)
            return 0
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            Output.err("error: unknown command '\(first)'\n\n\(help)")
            return 64
        }
        let rest = Array(argv.dropFirst()) + global
        if rest.contains("--help") || rest.contains("-h") {
            Output.out(command.help)
            return 0
        }
        do {
            return try await command.run(rest)
        } catch let e as UsageError {
            Output.err("error: \(e.message)\n\n\(command.help)")
            return 64
        } catch let e as CommandFailure {
            Output.err("error: \(e.message)")
            return 1
        } catch {
            Output.err("error: \(error)")
            return 1
        }
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

let status = await Matterctl.main(Array(CommandLine.arguments.dropFirst()))
fflush(nil)
exit(status)
