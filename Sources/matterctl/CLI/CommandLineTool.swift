/// Finds the command a command line names, parses its arguments against its declaration and
/// runs it: usage errors exit 64 with the command's usage, failures exit 1, `--help` at every
/// level prints the generated help.
struct CommandLineTool {
    let commands: [any ParsableCommand.Type]

    func main(_ argv: [String]) async -> Int32 {
        var argv = argv
        let global: GlobalOptions
        do { global = try GlobalOptions.parse(&argv) } catch {
            Output.err("error: \(error.message)\n\n\(Help.topLevel(commands))")
            return 64
        }
        guard let first = argv.first else {
            Output.err(Help.topLevel(commands))
            return 64
        }
        if first == "--help" || first == "-h" {
            Output.out(Help.topLevel(commands))
            return 0
        }
        if first == "help" {
            return help(for: Array(argv.dropFirst()))
        }
        guard var command = commands.first(where: { $0.configuration.name == first }) else {
            Output.err("error: unknown command '\(first)'\n\n\(Help.topLevel(commands))")
            return 64
        }
        var path = [first]
        var rest = Array(argv.dropFirst())
        // Walk down the subcommands: the next word names one, else the default one runs.
        while !command.configuration.subcommands.isEmpty {
            if let word = rest.first, let sub = command.configuration.subcommands.first(where: { $0.configuration.name == word }) {
                command = sub
                path.append(word)
                rest.removeFirst()
            } else if rest.first == "--help" || rest.first == "-h" {
                Output.out(Help.text(for: command.configuration, path: path))
                return 0
            } else if let fallback = command.configuration.defaultSubcommand {
                command = fallback
                path.append(fallback.configuration.name)
            } else {
                let message = rest.first.map { "unknown subcommand '\($0)' of '\(path.joined(separator: " "))'" }
                    ?? "'\(path.joined(separator: " "))' needs a subcommand"
                Output.err("error: \(message)\n\n\(Help.text(for: command.configuration, path: path))")
                return 64
            }
        }
        let configuration = command.configuration
        if rest.contains("--help") || rest.contains("-h") {
            Output.out(Help.text(for: configuration, path: path))
            return 0
        }
        if global.state != nil && !configuration.usesHubState && global.verbose {
            Output.err("note: '\(path.joined(separator: " "))' does not use the hub's state; the global --state is ignored")
        }
        do {
            let arguments = try ParsedArguments(rest, command: configuration, path: path, global: global)
            return try await command.run(arguments)
        } catch let error as UsageError {
            Output.err("error: \(error.message)\n\nUSAGE: \(Help.usage(for: configuration, path: path))\n"
                       + "  See '\(Help.tool) \(path.joined(separator: " ")) --help' for more.")
            return 64
        } catch let error as CommandFailure {
            Output.err("error: \(error.message)")
            return 1
        } catch {
            Output.err("error: \(error)")
            return 1
        }
    }

    /// `matterctl help [<command> [<subcommand>...]]`.
    func help(for words: [String]) -> Int32 {
        guard let first = words.first else {
            Output.out(Help.topLevel(commands))
            return 0
        }
        guard var command = commands.first(where: { $0.configuration.name == first }) else {
            Output.err("error: unknown command '\(first)'\n\n\(Help.topLevel(commands))")
            return 64
        }
        var path = [first]
        for word in words.dropFirst() {
            guard let sub = command.configuration.subcommands.first(where: { $0.configuration.name == word }) else {
                Output.err("error: '\(path.joined(separator: " "))' has no subcommand '\(word)'")
                return 64
            }
            command = sub
            path.append(word)
        }
        Output.out(Help.text(for: command.configuration, path: path))
        return 0
    }
}
