/// A command line parsed against one command's declaration: every `--option` is one the command
/// declared (anything else is a usage error before the command runs), and the positional
/// arguments match the declared arities.
struct ParsedArguments: Sendable {
    let command: CommandConfiguration
    /// The options given before the command, which apply to every command.
    let global: GlobalOptions
    /// The path of words that selected the command (`["payload", "parse"]`).
    let commandPath: [String]
    private(set) var positional: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    init(_ argv: [String], command: CommandConfiguration, path: [String],
         global: GlobalOptions = GlobalOptions()) throws(UsageError) {
        self.command = command
        self.global = global
        self.commandPath = path
        let declared = Dictionary(command.allOptions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var index = 0
        var onlyPositional = false
        while index < argv.count {
            let word = argv[index]
            index += 1
            if onlyPositional || !word.hasPrefix("--") || word == "--" {
                if word == "--" && !onlyPositional {
                    onlyPositional = true
                    continue
                }
                positional.append(word)
                continue
            }
            let name: String, inline: String?
            if let eq = word.firstIndex(of: "=") {
                name = String(word[..<eq])
                inline = String(word[word.index(after: eq)...])
            } else {
                name = word
                inline = nil
            }
            guard let option = declared[name] else { throw UsageError("unknown option \(name)") }
            if option.isFlag {
                guard inline == nil else { throw UsageError("\(name) takes no value") }
                flags.insert(name)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard index < argv.count else { throw UsageError("\(name) needs a value (\(option.usage))") }
                value = argv[index]
                index += 1
            }
            // As in swift-argument-parser, a single-valued option given twice takes the last value.
            values[name, default: []].append(value)
        }
        for option in command.allOptions where option.isRequired && values[option.name] == nil {
            throw UsageError("\(option.name) is required")
        }
        try checkArity()
    }

    private func checkArity() throws(UsageError) {
        let path = commandPath.joined(separator: " ")
        var remaining = positional.count
        for argument in command.arguments {
            switch argument.arity {
            case .one:
                guard remaining >= 1 else { throw UsageError("\(path) needs \(argument.usage)") }
                remaining -= 1
            case .oneOrMore:
                guard remaining >= 1 else { throw UsageError("\(path) needs at least one \(argument.usage)") }
                remaining = 0
            case .optional:
                remaining = max(0, remaining - 1)
            case .zeroOrMore:
                remaining = 0
            }
        }
        if remaining > 0 {
            throw UsageError("unexpected argument '\(positional[positional.count - remaining])'")
        }
    }

    private func declaration(_ name: String) -> OptionDeclaration {
        guard let option = command.allOptions.first(where: { $0.name == name }) else {
            preconditionFailure("\(commandPath.joined(separator: " ")) reads \(name), which it does not declare")
        }
        return option
    }

    func flag(_ name: String) -> Bool {
        precondition(declaration(name).isFlag, "\(name) is declared with a value")
        return flags.contains(name)
    }

    func value(_ name: String) -> String? {
        precondition(!declaration(name).isFlag, "\(name) is declared as a flag")
        return values[name]?.last
    }

    func values(_ name: String) -> [String] {
        precondition(!declaration(name).isFlag, "\(name) is declared as a flag")
        return values[name] ?? []
    }

    /// An integer option; accepts decimal or `0x` hexadecimal.
    func integer<T: FixedWidthInteger>(_ name: String, as _: T.Type = Int.self) throws(UsageError) -> T? {
        guard let text = value(name) else { return nil }
        guard let number = parseInteger(text, as: T.self) else {
            throw UsageError("\(name) expects an integer in \(T.min)...\(T.max), got '\(text)'")
        }
        return number
    }

    /// The hub's state directory: `--state` after the command, else the global one, else
    /// $MATTERHUB_STATE, else the per-user default.
    var stateDirectory: String {
        precondition(command.usesHubState, "\(commandPath.joined(separator: " ")) does not use the hub's state")
        return StateDirectory.resolve(values["--state"]?.last ?? global.state)
    }
}

/// The options given before the command word.
struct GlobalOptions: Sendable {
    /// `--state DIR`: the hub's state directory, for the commands that use it.
    var state: String?
    /// `--verbose`: say what is ignored and why.
    var verbose = false

    static let declarations: [OptionDeclaration] = [
        .stateOption,
        .flag("--verbose", help: "say which global options a command ignores"),
    ]

    /// Takes the global options off the front of `argv`, leaving the command and its arguments.
    static func parse(_ argv: inout [String]) throws(UsageError) -> GlobalOptions {
        var global = GlobalOptions()
        while let word = argv.first, word.hasPrefix("--"), word != "--help" {
            if word == "--verbose" {
                global.verbose = true
                argv.removeFirst()
            } else if word == "--state" {
                guard argv.count >= 2 else { throw UsageError("--state needs a directory") }
                global.state = argv[1]
                argv.removeFirst(2)
            } else if word.hasPrefix("--state=") {
                global.state = String(word.dropFirst("--state=".count))
                argv.removeFirst()
            } else {
                throw UsageError("unknown global option \(word) (global options: --state DIR, --verbose)")
            }
        }
        return global
    }
}

func parseInteger<T: FixedWidthInteger>(_ text: String, as _: T.Type) -> T? {
    if text.hasPrefix("0x") || text.hasPrefix("0X") { return T(text.dropFirst(2), radix: 16) }
    return T(text)
}
