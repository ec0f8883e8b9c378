internal import CSQLite

/// SQLite asks to copy bound buffers when given this destructor (the C macro is a cast of -1).
private let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A value bound to a statement parameter.
enum SQLiteValue: Sendable, Hashable {
    case integer(Int64)
    case text(String)
    case blob([UInt8])
    case null
}

/// One SQLite connection: open with flags, `exec`, prepared statements and transactions.
///
/// Every failure is a `StoreError.sqlite` with SQLite's extended code and message; nothing
/// traps. A connection is used by one thread at a time: `HubStore` serialises access with its
/// mutex, which is why the class can be `@unchecked Sendable`.
final class SQLiteDatabase: @unchecked Sendable {
    /// What SQLite holds in the process now (page caches, statements, schemas), in bytes.
    static var memoryInUse: Int64 { sqlite3_memory_used() }

    private let handle: OpaquePointer

    struct OpenFlags: OptionSet, Sendable {
        let rawValue: Int32
        static let readOnly = OpenFlags(rawValue: SQLITE_OPEN_READONLY)
        static let readWrite = OpenFlags(rawValue: SQLITE_OPEN_READWRITE)
        static let create = OpenFlags(rawValue: SQLITE_OPEN_CREATE)
        /// The connection is used by one thread at a time (our mutex); SQLite need not lock.
        static let noMutex = OpenFlags(rawValue: SQLITE_OPEN_NOMUTEX)
        /// Refuse a symlink as the database path.
        static let noFollow = OpenFlags(rawValue: 0x0100_0000)
        /// Report extended result codes (e.g. SQLITE_CONSTRAINT_UNIQUE).
        static let extendedCodes = OpenFlags(rawValue: 0x0200_0000)
    }

    init(path: String, flags: OpenFlags) throws(StoreError) {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags.rawValue, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            if let db { sqlite3_close_v2(db) }
            throw .sqlite(code: rc, message: message, operation: "opening \(path)")
        }
        sqlite3_extended_result_codes(db, 1)
        handle = db
    }

    deinit { sqlite3_close_v2(handle) }

    /// Waits up to `milliseconds` for another connection's lock instead of failing with BUSY.
    func setBusyTimeout(milliseconds: Int32) { sqlite3_busy_timeout(handle, milliseconds) }

    /// True when the connection cannot write (opened read-only, or the file is not writable).
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Rows changed by the last INSERT/UPDATE/DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs one or more SQL statements without results.
    func exec(_ sql: String) throws(StoreError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw .sqlite(code: rc, message: message, operation: Self.summary(sql))
        }
    }

    /// Prepares `sql` and binds `values` to its parameters in order.
    func prepare(_ sql: String, _ values: [SQLiteValue] = []) throws(StoreError) -> SQLiteStatement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc, Self.summary(sql)) }
        let statement = SQLiteStatement(database: self, handle: stmt, sql: sql)
        try statement.bind(values)
        return statement
    }

    /// Runs a statement that returns no rows.
    func run(_ sql: String, _ values: [SQLiteValue] = []) throws(StoreError) {
        let statement = try prepare(sql, values)
        while try statement.step() {}
    }

    /// All rows of a query, each mapped by `row`.
    func query<T>(_ sql: String, _ values: [SQLiteValue] = [],
                  row: (SQLiteStatement) throws(StoreError) -> T) throws(StoreError) -> [T] {
        let statement = try prepare(sql, values)
        var result: [T] = []
        while try statement.step() { result.append(try row(statement)) }
        return result
    }

    /// The first row of a query, or nil.
    func queryOne<T>(_ sql: String, _ values: [SQLiteValue] = [],
                     row: (SQLiteStatement) throws(StoreError) -> T) throws(StoreError) -> T? {
        let statement = try prepare(sql, values)
        return try statement.step() ? try row(statement) : nil
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction (the write lock is taken up front, so two
    /// writers wait on the busy timeout instead of deadlocking), commits when it returns and
    /// rolls back when it throws.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try exec("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try exec("COMMIT")
            return result
        } catch {
            // After a failed COMMIT or statement SQLite may already have rolled back.
            if sqlite3_get_autocommit(handle) == 0 { try? exec("ROLLBACK") }
            throw error
        }
    }

    func error(_ rc: Int32, _ operation: String) -> StoreError {
        .sqlite(code: rc, message: String(cString: sqlite3_errmsg(handle)), operation: operation)
    }

    /// The first words of a statement, for error messages (never bound values).
    static func summary(_ sql: String) -> String {
        let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" }).prefix(4)
        return words.joined(separator: " ")
    }
}

/// A prepared statement: typed binds, `step`, typed column reads. Finalised on deinit.
final class SQLiteStatement {
    private let database: SQLiteDatabase
    private let handle: OpaquePointer
    private let sql: String

    fileprivate init(database: SQLiteDatabase, handle: OpaquePointer, sql: String) {
        self.database = database
        self.handle = handle
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ values: [SQLiteValue]) throws(StoreError) {
        guard values.count == Int(sqlite3_bind_parameter_count(handle)) else {
            throw .sqlite(code: SQLITE_RANGE, message: "\(values.count) values for \(sqlite3_bind_parameter_count(handle)) parameters",
                          operation: SQLiteDatabase.summary(sql))
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
            case .text(let s): rc = sqlite3_bind_text(handle, index, s, -1, transientDestructor)
            case .blob(let bytes):
                // A zero-length blob is still a blob, not NULL.
                rc = bytes.isEmpty ? sqlite3_bind_zeroblob(handle, index, 0)
                    : bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), transientDestructor) }
            case .null: rc = sqlite3_bind_null(handle, index)
            }
            guard rc == SQLITE_OK else { throw database.error(rc, "binding parameter \(index) of \(SQLiteDatabase.summary(sql))") }
        }
    }

    /// Advances to the next row: true when a row is available, false when done.
    func step() throws(StoreError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(rc, SQLiteDatabase.summary(sql))
        }
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

    func text(_ column: Int32) -> String {
        guard let p = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
    }

    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let p = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: count))
    }

    func optionalBlob(_ column: Int32) -> [UInt8]? { isNull(column) ? nil : blob(column) }
}

extension StoreError {
    /// SQLite's primary result code (the low byte of an extended code).
    var sqlitePrimaryCode: Int32? {
        if case .sqlite(let code, _, _) = self { return code & 0xFF }
        return nil
    }

    /// A UNIQUE or PRIMARY KEY constraint failed.
    var isUniqueViolation: Bool {
        if case .sqlite(let code, _, _) = self {
            return code == 2067 || code == 1555  // SQLITE_CONSTRAINT_UNIQUE, SQLITE_CONSTRAINT_PRIMARYKEY (macros Swift cannot import)
        }
        return false
    }
}
