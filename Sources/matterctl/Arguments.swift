/// A small command-line parser in the manner of swift-argument-parser (which cannot be fetched
/// here): kebab-case `--options` with values, boolean `--flags`, positional arguments, and usage
/// errors that exit 64.
struct Arguments {
    private(set) var positional: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []
    private var consumed: Set<String> = []

    /// Splits `argv`. `valueOptions` lists the options that take a value (`--x v` or `--x=v`);
    /// every other `--name` is a flag.
    init(_ argv: [String], valueOptions: Set<String>) throws(UsageError) {
        var i = 0
        var onlyPositional = false
        while i < argv.count {
            let a = argv[i]
            i += 1
            if onlyPositional || !a.hasPrefix("--") || a == "--" {
                if a == "--" && !onlyPositional { onlyPositional = true; continue }
                positional.append(a)
                continue
            }
            if let eq = a.firstIndex(of: "=") {
                let name = String(a[..<eq])
                guard valueOptions.contains(name) else { throw UsageError("\(name) takes no value") }
                options[name, default: []].append(String(a[a.index(after: eq)...]))
            } else if valueOptions.contains(a) {
                guard i < argv.count else { throw UsageError("\(a) needs a value") }
                options[a, default: []].append(argv[i])
                i += 1
            } else {
                flags.insert(a)
            }
        }
    }

    mutating func flag(_ name: String) -> Bool {
        consumed.insert(name)
        return flags.contains(name)
    }

    mutating func value(_ name: String) -> String? {
        consumed.insert(name)
        return options[name]?.last
    }

    mutating func values(_ name: String) -> [String] {
        consumed.insert(name)
        return options[name] ?? []
    }

    /// An integer option; accepts decimal or `0x` hexadecimal.
    mutating func integer<T: FixedWidthInteger>(_ name: String, as _: T.Type = Int.self) throws(UsageError) -> T? {
        guard let text = value(name) else { return nil }
        guard let v = parseInteger(text, as: T.self) else {
            throw UsageError("\(name) expects an integer in \(T.min)...\(T.max), got '\(text)'")
        }
        return v
    }

    /// Fails on any flag or option the command did not ask about.
    func rejectUnknown() throws(UsageError) {
        let unknown = flags.union(options.keys).subtracting(consumed)
        if let first = unknown.sorted().first { throw UsageError("unknown option \(first)") }
    }
}

func parseInteger<T: FixedWidthInteger>(_ text: String, as _: T.Type) -> T? {
    if text.hasPrefix("0x") || text.hasPrefix("0X") { return T(text.dropFirst(2), radix: 16) }
    return T(text)
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
