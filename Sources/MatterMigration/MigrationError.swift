/// Why a move between MatterHub and another Matter server cannot go ahead: what was found, and
/// what the user can do. Nothing has been written when one is thrown.
public struct MigrationError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for tools. New codes may be added.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The folder is not the other server's storage, or a file of it cannot be read.
        public static let notAStorage = Code(rawValue: "not-a-storage")
        /// The storage was written by a version this MatterHub does not know.
        public static let unknownVersion = Code(rawValue: "unknown-version")
        /// The storage holds several fabrics and none was chosen (or the one chosen is not there).
        public static let fabricChoice = Code(rawValue: "fabric-choice")
        /// The fabric's keys, certificates or IPK are missing or do not agree.
        public static let corruptFabric = Code(rawValue: "corrupt-fabric")
        /// The fabric is valid but cannot be moved (an IPK or controller the target cannot use).
        public static let notMovable = Code(rawValue: "not-movable")
        /// The target (a state directory or folder) is not empty, or cannot be written.
        public static let targetNotEmpty = Code(rawValue: "target-not-empty")
        /// Writing the target failed.
        public static let writeFailed = Code(rawValue: "write-failed")
    }

    public var code: Code
    public var message: String
    public var hint: String

    public init(_ code: Code, _ message: String, hint: String) {
        self.code = code
        self.message = message
        self.hint = hint
    }

    public var description: String { "\(message). \(hint)" }
}
