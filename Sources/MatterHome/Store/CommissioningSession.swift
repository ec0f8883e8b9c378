import FoundationEssentials
import Synchronization
import MatterCertificates
#if canImport(Glibc)
import Glibc
import MatterTLV
#endif
import MatterPlatform

/// An active commissioning session: this process holds the exclusive, cross-process
/// commissioning lock (`flock` on `<state>/commissioning.lock`) and a `commissioning_sessions`
/// row in state preparing or performing.
///
/// End it with `finish(_:)`. If the process dies instead, the kernel drops the lock and the next
/// `beginCommissioningSession` marks the row cancelled and releases its node reservations.
public final class CommissioningSession: Sendable {
    public let id: Int64
    public let structureID: StructureID
    public let startedAt: Date
    private let store: HubStore
    /// The locked file descriptor; -1 once the session ended.
    private let lockFD: LockedFile

    init(id: Int64, structureID: StructureID, startedAt: Date, store: HubStore, lockFD: LockedFile) {
        self.id = id
        self.structureID = structureID
        self.startedAt = startedAt
        self.store = store
        self.lockFD = lockFD
    }

    deinit { lockFD.close() }

    /// True until `finish` (this process's view; the row is the source of truth).
    public var isActive: Bool { lockFD.isOpen }

    /// Moves a preparing session to performing (the device is being commissioned).
    public func markPerforming() throws(StoreError) {
        try store.updateSession(self, to: .performing)
    }

    /// Ends the session as completed or cancelled, releases its node reservations and the lock.
    public func finish(_ state: CommissioningSessionState) throws(StoreError) {
        precondition(!state.isActive, "finish takes completed or cancelled")
        try store.updateSession(self, to: state)
        lockFD.close()
    }
}

/// A file descriptor holding an flock, closed exactly once (closing drops the lock).
final class LockedFile: @unchecked Sendable {
    // fd is only read or changed under `lock`.
    private var fd: Int32
    private let lock = Mutex(())

    init(fd: Int32) { self.fd = fd }

    var isOpen: Bool {
        lock.withLock { _ in fd >= 0 }
    }

    func close() {
        lock.withLock { _ in
            if fd >= 0 { _ = Glibc.close(fd) }
            fd = -1
        }
    }
}

extension HubStore {
    /// Steps of `beginCommissioningSession` at which crash tests stop the process.
    package static let beginSessionSteps = ["session.locked", "session.inserted"]

    /// Starts a commissioning session in `structure` (the default structure when nil).
    ///
    /// Only one process may commission at a time: throws `commissioningSessionActive` with the
    /// holder's PID and start time while another live session holds the lock. A session whose
    /// process died is stale: its lock is free, so its row is marked cancelled and its node
    /// reservations released before the new row is inserted.
    public func beginCommissioningSession(in structure: StructureID? = nil) throws(StoreError) -> CommissioningSession {
        try checkWritable()
        let fd = SecureFiles.withPrivateUmask {
            open(commissioningLockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, SecureFiles.fileMode)
        }
        guard fd >= 0 else { throw .io(operation: "opening", path: commissioningLockPath, errno: errno) }
        let lockFile = LockedFile(fd: fd)
        var rc: Int32
        repeat { rc = flock(fd, LOCK_EX | LOCK_NB) } while rc != 0 && errno == EINTR
        if rc != 0 {
            let err = errno
            lockFile.close()
            guard err == EWOULDBLOCK else { throw .io(operation: "locking", path: commissioningLockPath, errno: err) }
            throw try activeSessionError()
        }
        // Until our row exists, the PID in the lock file names the holder to other processes.
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        step("session.locked")
        let startedAt = now
        do throws(StoreError) {
            let (id, structureID) = try write { db throws(StoreError) -> (Int64, StructureID) in
                // We hold the lock, so any active row belongs to a process that is gone.
                try db.run("UPDATE commissioning_sessions SET state = 'cancelled', ended_at = ? WHERE state IN ('preparing', 'performing')",
                           [.date(startedAt)])
                try Self.releaseStaleReservations(db)
                let structureID = if let structure { structure } else { try Self.defaultStructureID(db) }
                do throws(StoreError) {
                    try db.run("INSERT INTO commissioning_sessions (structure_id, owner_pid, started_at, state) VALUES (?, ?, ?, 'preparing')",
                               [.integer(structureID.rawValue), .integer(Int64(getpid())), .date(startedAt)])
                } catch where error.sqlitePrimaryCode == 19 {
                    throw .notFound(kind: .structure, id: structureID.description)
                }
                return (db.lastInsertRowID, structureID)
            }
            step("session.inserted")
            return CommissioningSession(id: id, structureID: structureID, startedAt: Self.whole(startedAt), store: self, lockFD: lockFile)
        } catch {
            lockFile.close()
            throw error
        }
    }

    /// The active session's row, if any (whichever process holds it).
    public func activeCommissioningSession() throws(StoreError) -> CommissioningSessionRecord? {
        try commissioningSessions().first { $0.state.isActive }
    }

    /// All sessions, newest first.
    public func commissioningSessions() throws(StoreError) -> [CommissioningSessionRecord] {
        try withDatabase { db throws(StoreError) in
            let rows = try db.query("SELECT id, structure_id, owner_pid, started_at, state, ended_at FROM commissioning_sessions ORDER BY id DESC") { s in
                (id: s.int64(0), structure: StructureID(rawValue: s.int64(1)), pid: Int32(truncatingIfNeeded: s.int64(2)),
                 started: s.date(3), state: CommissioningSessionState(rawValue: s.text(4)) ?? .cancelled,
                 ended: s.optionalInt64(5).map { Date(timeIntervalSince1970: TimeInterval($0)) })
            }
            return try rows.map { r throws(StoreError) in
                let nodes = try db.query("SELECT node_id FROM commissioning_session_nodes WHERE session_id = ?", [.integer(r.id)]) {
                    NodeID($0.uint64(0))
                }
                return CommissioningSessionRecord(id: r.id, structureID: r.structure, ownerPID: r.pid, startedAt: r.started,
                                                  state: r.state, endedAt: r.ended, commissionedNodeIDs: nodes.sorted())
            }
        }
    }

    /// The error for a lock held elsewhere: the holder's live row, else the PID in the lock file.
    private func activeSessionError() throws(StoreError) -> StoreError {
        // A row of a dead process is stale (its successor has not replaced it yet).
        if let active = try activeCommissioningSession(), processIsAlive(active.ownerPID) {
            return .commissioningSessionActive(pid: active.ownerPID, since: active.startedAt)
        }
        let text = String(decoding: (try? SecureFiles.read(commissioningLockPath)) ?? [], as: UTF8.self)
        let pid = Int32(text.trimmingWhitespaceAndNewlines()) ?? 0
        return .commissioningSessionActive(pid: pid, since: now)
    }

    /// Changes the session's state; ending it also releases its node reservations.
    func updateSession(_ session: CommissioningSession, to state: CommissioningSessionState) throws(StoreError) {
        let at = now
        try write { db throws(StoreError) in
            try Self.requireActive(session, db)
            try db.run("UPDATE commissioning_sessions SET state = ?, ended_at = ? WHERE id = ?",
                       [.text(state.rawValue), state.isActive ? .null : .date(at), .integer(session.id)])
            if !state.isActive {
                try db.run("DELETE FROM node_reservations WHERE session_id = ?", [.integer(session.id)])
            }
        }
    }

    /// The session is this process's and still active in the database.
    static func requireActive(_ session: CommissioningSession, _ db: SQLiteDatabase) throws(StoreError) {
        let row = try db.queryOne("SELECT state, owner_pid FROM commissioning_sessions WHERE id = ?", [.integer(session.id)]) {
            (state: $0.text(0), pid: $0.int64(1))
        }
        guard session.isActive, let row, CommissioningSessionState(rawValue: row.state)?.isActive == true,
              row.pid == Int64(getpid()) else {
            throw .commissioningSessionNotActive(id: session.id)
        }
    }
}
