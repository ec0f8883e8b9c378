import Foundation

/// One `matterctl` subcommand. Each lives in its own file under Commands/ and is listed in
/// `Matterctl.commands`.
protocol Command: Sendable {
    /// The word that selects it: `matterctl <name> ...`.
    static var name: String { get }
    /// One line for the top-level help.
    static var summary: String { get }
    /// The full help text, printed by `matterctl <name> --help`.
    static var help: String { get }
    /// Runs with the arguments after the command name; returns the exit status.
    static func run(_ arguments: [String]) async throws -> Int32
}

/// Terminal output: results on stdout, diagnostics on stderr.
enum Output {
    static func out(_ text: String) {
        print(text)
    }

    static func err(_ text: String) {
        var stream = StandardError()
        print(text, to: &stream)
    }
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}
