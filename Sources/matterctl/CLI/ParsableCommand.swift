#if canImport(Glibc)
import Glibc
#endif
import MatterPlatform

/// One `matterctl` command, declared as data in the manner of swift-argument-parser (which
/// cannot be fetched here): its name, help, options, arguments and subcommands live in
/// `configuration`, and the parser, the usage errors and every `--help` text are generated from
/// that declaration, so the help cannot drift from what the command accepts.
protocol ParsableCommand: Sendable {
    static var configuration: CommandConfiguration { get }
    /// Runs with the parsed arguments; returns the exit status. A command with subcommands is
    /// never run itself (unless it names a default subcommand, which is run instead).
    static func run(_ arguments: ParsedArguments) async throws -> Int32
}

extension ParsableCommand {
    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        throw UsageError("'\(configuration.name)' needs a subcommand")
    }
}

/// What a command declares.
struct CommandConfiguration: Sendable {
    /// The word that selects it: `matterctl <name> ...`.
    var name: String
    /// One line for the parent's command list and the OVERVIEW line of its help.
    var abstract: String
    /// Paragraphs printed after the overview.
    var discussion: String = ""
    /// Whether it works on the hub's state directory: it then takes `--state DIR` (before or
    /// after the command) and the global `--state` is handed to it; others ignore the global one.
    var usesHubState: Bool = false
    var arguments: [ArgumentDeclaration] = []
    var options: [OptionDeclaration] = []
    var subcommands: [any ParsableCommand.Type] = []
    /// The subcommand run when none is named (`matterctl rooms` lists the rooms).
    var defaultSubcommand: (any ParsableCommand.Type)? = nil
    /// Example invocations, printed at the end of the help.
    var examples: [String] = []

    /// The declared options plus the ones every command of its kind has.
    var allOptions: [OptionDeclaration] {
        var all = options
        if usesHubState { all.append(.stateOption) }
        return all
    }
}

/// A positional argument.
struct ArgumentDeclaration: Sendable {
    enum Arity: Sendable { case one, optional, oneOrMore, zeroOrMore }
    var name: String
    var help: String
    var arity: Arity = .one

    init(_ name: String, help: String, arity: Arity = .one) {
        self.name = name
        self.help = help
        self.arity = arity
    }

    var usage: String {
        switch arity {
        case .one: "<\(name)>"
        case .optional: "[<\(name)>]"
        case .oneOrMore: "<\(name)>..."
        case .zeroOrMore: "[<\(name)>...]"
        }
    }
}

/// A `--name` option: a flag, or an option with a value (`--name V` or `--name=V`).
struct OptionDeclaration: Sendable {
    var name: String
    /// The value's placeholder in the help (`S`, `DIR`), nil for a flag.
    var valueName: String?
    var help: String
    var isRequired: Bool = false
    var isRepeatable: Bool = false

    static func flag(_ name: String, help: String) -> Self {
        Self(name: name, valueName: nil, help: help)
    }

    static func value(_ name: String, _ valueName: String, help: String, required: Bool = false,
                      repeatable: Bool = false) -> Self {
        Self(name: name, valueName: valueName, help: help, isRequired: required, isRepeatable: repeatable)
    }

    var isFlag: Bool { valueName == nil }

    /// `--name V`, or `--name` for a flag.
    var label: String { valueName.map { "\(name) \($0)" } ?? name }

    var usage: String {
        let once = isRequired ? label : "[\(label)]"
        return isRepeatable ? once + "..." : once
    }

    /// The hub's state directory, on every command that uses it.
    static let stateOption = Self.value(
        "--state", "DIR",
        help: "the hub's state directory (default: $MATTERHUB_STATE, else ~/.local/share/matterhub)")
}

/// A mistake in how the command was called: printed with the usage, exit status 64.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A failure the user can act on: printed as `error: <message>`, exit status 1.
struct CommandFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// Terminal output: results on stdout, diagnostics on stderr.
enum Output {
    static func out(_ text: String) {
        print(text)
    }

    /// Text without a newline (a prompt).
    static func write(_ text: String) {
        print(text, terminator: "")
    }

    static func err(_ text: String) {
        StandardError.line(text)
    }

    /// Standard input to its end (a pipe or a redirected file), or a failure naming `what`.
    static func readStandardInput(_ what: String) throws -> [UInt8] {
        guard let bytes = FileDescriptorIO.readStandardInput() else {
            throw CommandFailure("cannot read \(what) from stdin: \(errnoText(errno))")
        }
        return bytes
    }
}
