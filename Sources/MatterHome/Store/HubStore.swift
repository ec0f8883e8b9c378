import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The hub's persistent state in a directory:
///
/// ```
/// <state>/               mode 0700
///   hub.sqlite           the database (WAL mode, synchronous=FULL, foreign keys), mode 0600
///   hub.sqlite-wal/-shm  mode 0600
///   commissioning.lock   flock'd by the process that is commissioning
///   keys/                mode 0700: root, ICAC and controller private keys, PKCS#8 DER, 0600
/// ```
///
/// Every logical change is one `BEGIN IMMEDIATE` transaction, so several processes (the CLI,
/// a daemon) can share one state directory. See `StoreSchema` for the tables.
public final class HubStore: Sendable {
    /// How to open the store.
    public struct Options: Sendable {
        /// Open without writing anything (no directory creation, no migration).
        public var readOnly: Bool = false
        /// How long to wait for another process's write lock before failing with SQLITE_BUSY.
        public var busyTimeoutMilliseconds: Int32 = 10_000
        /// The clock for created-at and started-at times.
        public var clock: @Sendable () -> Date = { Date() }
        /// Called at named points of multi-step writes; tests use it to stop the process there.
        package var stepHook: (@Sendable (String) -> Void)?

        public init() {}
    }

    /// The state directory.
    public let stateDirectory: String
    /// `<state>/hub.sqlite`.
    public var databasePath: String { stateDirectory + "/hub.sqlite" }
    /// `<state>/keys`: private keys, one PKCS#8 DER file each.
    public var keysDirectory: String { stateDirectory + "/keys" }
    /// `<state>/commissioning.lock`.
    public var commissioningLockPath: String { stateDirectory + "/commissioning.lock" }

    let options: Options
    /// The one connection; every use goes through `withDatabase`, under `lock`.
    private let database: SQLiteDatabase
    private let lock = Mutex(())

    /// The database's file name in the state directory.
    public static let databaseFileName = "hub.sqlite"

    /// Opens (creating when missing) the store in `directory`.
    public init(directory: String, options: Options = Options()) throws(StoreError) {
        let directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        stateDirectory = directory
        self.options = options
        let path = directory + "/" + Self.databaseFileName
        if options.readOnly {
            database = try SQLiteDatabase(path: path, flags: [.readOnly, .noMutex, .noFollow, .extendedCodes])
            database.setBusyTimeout(milliseconds: options.busyTimeoutMilliseconds)
            try database.exec("PRAGMA foreign_keys=ON")
            let version = try Self.userVersion(database)
            guard version == StoreSchema.currentVersion else {
                if version > StoreSchema.currentVersion {
                    throw .schemaTooNew(found: version, supported: StoreSchema.currentVersion)
                }
                throw .readOnly(path: path)
            }
            return
        }
        try SecureFiles.ensureDirectory(directory)
        try SecureFiles.ensureDirectory(directory + "/keys")
        database = try SecureFiles.withPrivateUmask { () throws(StoreError) -> SQLiteDatabase in
            let db = try SQLiteDatabase(path: path, flags: [.readWrite, .create, .noMutex, .noFollow, .extendedCodes])
            db.setBusyTimeout(milliseconds: options.busyTimeoutMilliseconds)
            try Self.configure(db, path: path)
            try Self.migrate(db)
            return db
        }
        try tightenDatabaseFileModes()
    }

    /// WAL survives a crash of the writer and lets readers run beside it; synchronous=FULL
    /// syncs the WAL on every commit so a committed change survives power loss.
    private static func configure(_ db: SQLiteDatabase, path: String) throws(StoreError) {
        let mode = try db.queryOne("PRAGMA journal_mode=WAL") { $0.text(0) }
        guard mode?.lowercased() == "wal" else {
            if db.isReadOnly { throw .readOnly(path: path) }
            throw .sqlite(code: 1, message: "journal_mode is \(mode ?? "unknown"), expected wal", operation: "PRAGMA journal_mode")
        }
        try db.exec("PRAGMA synchronous=FULL")
        try db.exec("PRAGMA foreign_keys=ON")
    }

    static func userVersion(_ db: SQLiteDatabase) throws(StoreError) -> Int64 {
        try db.queryOne("PRAGMA user_version") { $0.int64(0) } ?? 0
    }

    /// Brings the schema to `StoreSchema.currentVersion`, one transaction for all steps; the
    /// version is re-read inside the transaction because another process may have migrated.
    private static func migrate(_ db: SQLiteDatabase) throws(StoreError) {
        if try userVersion(db) == StoreSchema.currentVersion { return }
        try db.transaction { () throws(StoreError) in
            let version = try userVersion(db)
            guard version <= StoreSchema.currentVersion else {
                throw .schemaTooNew(found: version, supported: StoreSchema.currentVersion)
            }
            for step in Int(max(version, 0))..<Int(StoreSchema.currentVersion) {
                try db.exec(StoreSchema.migrations[step])
            }
            try db.exec("PRAGMA user_version = \(StoreSchema.currentVersion)")
        }
    }

    /// The database, its WAL and shared-memory files are private to the owner (SQLite gives the
    /// WAL the database's mode; chmod again to be sure).
    func tightenDatabaseFileModes() throws(StoreError) {
        try SecureFiles.setMode(databasePath, SecureFiles.fileMode)
        try SecureFiles.setMode(databasePath + "-wal", SecureFiles.fileMode, ignoreMissing: true)
        try SecureFiles.setMode(databasePath + "-shm", SecureFiles.fileMode, ignoreMissing: true)
    }

    /// Runs `body` with exclusive use of the connection.
    func withDatabase<T>(_ body: (SQLiteDatabase) throws(StoreError) -> T) throws(StoreError) -> T {
        try lock.withLock { _ throws(StoreError) -> T in try body(database) }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction with exclusive use of the connection.
    func write<T>(_ body: (SQLiteDatabase) throws(StoreError) -> T) throws(StoreError) -> T {
        guard !options.readOnly else { throw .readOnly(path: databasePath) }
        return try withDatabase { db throws(StoreError) in
            try SecureFiles.withPrivateUmask { () throws(StoreError) -> T in
                try db.transaction { () throws(StoreError) -> T in try body(db) }
            }
        }
    }

    /// Marks a named point of a multi-step write (crash tests stop the process there).
    func step(_ name: String) { options.stepHook?(name) }

    var now: Date { options.clock() }

    // MARK: - Writability

    /// True when this process can change the store: it was not opened read-only, the state and
    /// key directories and the database are writable, and SQLite did not fall back to read-only.
    public func canWrite() -> Bool { (try? checkWritable()) != nil }

    /// Throws `StoreError.readOnly` naming what cannot be written (the Home API's prepare step
    /// calls this before it starts anything).
    public func checkWritable() throws(StoreError) {
        if options.readOnly { throw .readOnly(path: databasePath) }
        for path in [stateDirectory, keysDirectory] where access(path, W_OK | X_OK) != 0 {
            throw .readOnly(path: path)
        }
        if access(databasePath, W_OK) != 0 { throw .readOnly(path: databasePath) }
        if try withDatabase({ db throws(StoreError) in db.isReadOnly }) { throw .readOnly(path: databasePath) }
    }

    /// What SQLite holds in this process (kB): its page caches fill up to their bound as the
    /// store is read, which a memory curve has to tell from a leak.
    public static var sqliteMemoryKB: Int { Int(SQLiteDatabase.memoryInUse / 1024) }

    /// Runs SQLite's `PRAGMA integrity_check` and `foreign_key_check`; returns the problems
    /// found (empty when the database is sound).
    public func integrityProblems() throws(StoreError) -> [String] {
        try withDatabase { db throws(StoreError) in
            var problems = try db.query("PRAGMA integrity_check") { $0.text(0) }.filter { $0 != "ok" }
            problems += try db.query("PRAGMA foreign_key_check") { "foreign key: \($0.text(0)) row \($0.int64(1)) -> \($0.text(2))" }
            return problems
        }
    }
}

/// Whether a process with this PID exists (EPERM means it exists but belongs to someone else).
func processIsAlive(_ pid: Int32) -> Bool {
    guard pid > 0 else { return false }
    return kill(pid, 0) == 0 || errno == EPERM
}
