/// Help text generated from a command's declaration, in swift-argument-parser's layout:
/// OVERVIEW, the discussion, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS, EXAMPLES.
enum Help {
    static let tool = "matterctl"
    /// Where the option and argument names end and their help starts.
    static let column = 26
    static let width = 100

    static func text(for command: CommandConfiguration, path: [String]) -> String {
        var sections: [String] = ["OVERVIEW: \(command.abstract)"]
        if !command.discussion.isEmpty { sections.append(reflow(command.discussion, width: width).joined(separator: "\n")) }
        sections.append("USAGE: " + usage(for: command, path: path))
        if !command.arguments.isEmpty {
            sections.append((["ARGUMENTS:"] + command.arguments.map { row("<\($0.name)>", $0.help) }).joined(separator: "\n"))
        }
        var options = command.allOptions.map { row($0.label, $0.help) }
        options.append(row("-h, --help", "Show help information."))
        sections.append((["OPTIONS:"] + options).joined(separator: "\n"))
        if !command.subcommands.isEmpty {
            var lines = ["SUBCOMMANDS:"]
            for sub in command.subcommands {
                let isDefault = command.defaultSubcommand.map { $0.configuration.name == sub.configuration.name } ?? false
                lines.append(row(sub.configuration.name + (isDefault ? " (default)" : ""), sub.configuration.abstract))
            }
            lines.append("")
            lines.append("  See '\(tool) help \((path + ["<subcommand>"]).joined(separator: " "))' for detailed help.")
            sections.append(lines.joined(separator: "\n"))
        }
        if !command.examples.isEmpty {
            sections.append((["EXAMPLES:"] + command.examples.map { "  " + $0 }).joined(separator: "\n"))
        }
        return sections.joined(separator: "\n\n")
    }

    /// `matterctl [--state DIR] devices [--json]`, wrapped under the command's name.
    static func usage(for command: CommandConfiguration, path: [String]) -> String {
        var head = tool
        if command.usesHubState { head += " [--state DIR]" }
        head += " " + path.joined(separator: " ")
        var words: [String] = []
        if !command.subcommands.isEmpty {
            words.append(command.defaultSubcommand == nil ? "<subcommand>" : "[<subcommand>]")
        } else {
            words += command.arguments.map(\.usage)
            words += command.options.map(\.usage)
        }
        return wrap(head, words, indent: "USAGE: \(tool) ".count)
    }

    /// The top-level help: the global options and every command.
    static func topLevel(_ commands: [any ParsableCommand.Type]) -> String {
        var lines = [
            "OVERVIEW: MatterHub, a Matter commissioner and home hub for Linux.",
            "",
            "USAGE: \(tool) [--state DIR] [--verbose] <command> [<options>]",
            "",
            "The hub's state lives in --state DIR, else $MATTERHUB_STATE, else ~/.local/share/matterhub.",
            "",
            "OPTIONS:",
        ]
        lines += GlobalOptions.declarations.map { row($0.label, $0.help) }
        lines.append(row("-h, --help", "Show help information."))
        lines += ["", "COMMANDS:"]
        lines += commands.map { row($0.configuration.name, $0.configuration.abstract) }
        lines += ["", "  See '\(tool) help <command>' for detailed help."]
        return lines.joined(separator: "\n")
    }

    static func row(_ name: String, _ help: String) -> String {
        let label = "  " + name
        let helpLines = reflow(help, width: width - column)
        var lines: [String] = []
        if label.count < column - 1 {
            lines.append(label + String(repeating: " ", count: column - label.count) + (helpLines.first ?? ""))
        } else {
            lines.append(label)
            if let first = helpLines.first { lines.append(String(repeating: " ", count: column) + first) }
        }
        lines += helpLines.dropFirst().map { String(repeating: " ", count: column) + $0 }
        return lines.joined(separator: "\n")
    }

    /// Words after `head` (which follows "USAGE: "), continued on lines indented by `indent`.
    static func wrap(_ head: String, _ words: [String], indent: Int) -> String {
        var lines = [head]
        for word in words {
            let used = lines.count == 1 ? "USAGE: ".count + lines[0].count : lines[lines.count - 1].count
            if used + 1 + word.count > width {
                lines.append(String(repeating: " ", count: indent) + word)
            } else {
                lines[lines.count - 1] += " " + word
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Breaks text into lines of at most `width` characters. Explicit newlines are kept, and a
    /// line that starts with a space (a table, an example) is kept as it is.
    static func reflow(_ text: String, width: Int) -> [String] {
        var result: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if paragraph.first == " " {
                result.append(String(paragraph))
                continue
            }
            var line = ""
            for word in paragraph.split(separator: " ") {
                if !line.isEmpty && line.count + 1 + word.count > width {
                    result.append(line)
                    line = String(word)
                } else {
                    line += (line.isEmpty ? "" : " ") + word
                }
            }
            result.append(line)
        }
        return result
    }
}

extension String {
    /// The string followed by spaces up to `width` characters (at least one space).
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
