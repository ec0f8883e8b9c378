import Synchronization

/// matterjs-server's log levels (`get_loglevel`, `set_loglevel`), most severe first.
public enum LogLevel: String, Sendable, CaseIterable, Comparable {
    case critical, error, warning, notice, info, debug

    /// A client's name for a level: the reported names, `fatal` and `warn` as aliases; anything
    /// else is `info` (matterjs-server sets INFO for an unknown name, without an error).
    public init(clientName: String) {
        switch clientName.lowercased() {
        case "fatal": self = .critical
        case "warn": self = .warning
        default: self = LogLevel(rawValue: clientName.lowercased()) ?? .info
        }
    }

    public static func < (a: LogLevel, b: LogLevel) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// Whether a line of `severity` is written at this level.
    public func writes(_ severity: LogLevel) -> Bool { severity <= self }
}

/// The levels the server logs at now: the console's, and the file's (nil: no log file).
public final class LogLevels: Sendable {
    private let levels: Mutex<(console: LogLevel, file: LogLevel?)>

    public init(console: LogLevel = .info, file: LogLevel? = nil) { levels = Mutex((console, file)) }

    public var console: LogLevel { levels.withLock { $0.console } }

    /// `{"console_loglevel": ..., "file_loglevel": ...|null}`.
    public var json: JSONValue {
        let (console, file) = levels.withLock { ($0.console, $0.file) }
        return .object(["console_loglevel": .string(console.rawValue), "file_loglevel": file.map { .string($0.rawValue) } ?? .null])
    }

    /// Applies the given levels (the file's only where there is a log file) and answers the
    /// levels now.
    public func set(console: String?, file: String?) -> JSONValue {
        levels.withLock { l in
            if let console { l.console = LogLevel(clientName: console) }
            if let file, l.file != nil { l.file = LogLevel(clientName: file) }
        }
        return json
    }
}
