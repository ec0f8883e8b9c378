import MatterPlatform
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Everything that can go wrong in the hub's persistent store, with a stable `code`, a human
/// `description` and what the user can do about it (`recoverySuggestion`).
///
/// Messages name files and SQLite's own message, never key material or secret column values.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// SQLite refused an operation: its (extended) result code and message.
    case sqlite(code: Int32, message: String, operation: String)
    /// A file-system call failed.
    case io(operation: String, path: String, errno: Int32)
    /// The store was opened read-only, or its directory or database cannot be written.
    case readOnly(path: String)
    /// The database was written by a newer MatterHub (its schema version is higher than ours).
    case schemaTooNew(found: Int64, supported: Int64)
    /// Another live process is commissioning; its PID and when its session started.
    case commissioningSessionActive(pid: Int32, since: Date)
    /// The commissioning session has ended or was taken over as stale.
    case commissioningSessionNotActive(id: Int64)
    /// A room or structure with this name (compared case-insensitively) already exists.
    case duplicateName(kind: String, name: String)
    /// A name is empty or too long.
    case invalidName(kind: String, name: String)
    /// No such room, structure, node, pending node or network credentials.
    case notFound(kind: RecordKind, id: String)

    /// What a store record is, for errors about it.
    public enum RecordKind: String, Hashable, Sendable, CustomStringConvertible {
        case room, structure, node
        case pendingNode = "pending node"
        case threadDataset = "Thread dataset"
        case wifiCredentials = "Wi-Fi credentials"
        public var description: String { rawValue }
    }
    /// The node ID is already a device, the controller, or reserved by another commissioning.
    case nodeIDInUse(String)
    /// `recordCommissionedNode` was given a node ID this session did not reserve.
    case nodeIDNotReserved(String)
    /// No free operational node ID was found (practically impossible: 2^64 space).
    case nodeIDsExhausted
    /// The last structure cannot be removed: the hub always has one.
    case lastStructure
    /// The stored fabric is incomplete or inconsistent (e.g. a key file is missing or does not
    /// match its certificate).
    case corruptFabric(String)
    /// Creating the fabric's certificates failed.
    case fabricCreation(String)
    /// Another fabric cannot be taken over: the store already holds one (or devices).
    case fabricExists(String)
    /// A Thread dataset or Wi-Fi credentials that cannot be stored (the defect is named; never
    /// the secret itself).
    case invalidNetworkCredentials(String)
    /// A network credentials file under `<state>/network` that MatterHub cannot read back.
    case corruptNetworkCredentials(path: String, why: String)

    /// A short, stable identifier for scripts and logs.
    public var code: String {
        switch self {
        case .sqlite: return "sqlite"
        case .io: return "io"
        case .readOnly: return "read_only"
        case .schemaTooNew: return "schema_too_new"
        case .commissioningSessionActive: return "commissioning_session_active"
        case .commissioningSessionNotActive: return "commissioning_session_not_active"
        case .duplicateName: return "duplicate_name"
        case .invalidName: return "invalid_name"
        case .notFound: return "not_found"
        case .nodeIDInUse: return "node_id_in_use"
        case .nodeIDNotReserved: return "node_id_not_reserved"
        case .nodeIDsExhausted: return "node_ids_exhausted"
        case .lastStructure: return "last_structure"
        case .corruptFabric: return "corrupt_fabric"
        case .fabricCreation: return "fabric_creation"
        case .fabricExists: return "fabric_exists"
        case .invalidNetworkCredentials: return "invalid_network_credentials"
        case .corruptNetworkCredentials: return "corrupt_network_credentials"
        }
    }

    public var description: String {
        switch self {
        case .sqlite(let code, let message, let operation):
            return "store: \(operation) failed: SQLite error \(code) (\(message))"
        case .io(let operation, let path, let err):
            return "store: \(operation) \(path) failed: \(errnoText(err)) (errno \(err))"
        case .readOnly(let path): return "store: \(path) is read-only"
        case .schemaTooNew(let found, let supported):
            return "store: database schema version \(found) is newer than this MatterHub supports (\(supported))"
        case .commissioningSessionActive(let pid, let since):
            return "store: process \(pid) has been commissioning since \(since.formatted(.iso8601))"
        case .commissioningSessionNotActive(let id): return "store: commissioning session \(id) is no longer active"
        case .duplicateName(let kind, let name): return "store: a \(kind) named \"\(name)\" already exists"
        case .invalidName(let kind, let name): return "store: \"\(name)\" is not a valid \(kind) name"
        case .notFound(let kind, let id): return "store: no \(kind) \(id)"
        case .nodeIDInUse(let id): return "store: node ID \(id) is already in use"
        case .nodeIDNotReserved(let id): return "store: node ID \(id) was not reserved by this commissioning session"
        case .nodeIDsExhausted: return "store: no free operational node ID found"
        case .lastStructure: return "store: the last structure cannot be removed"
        case .corruptFabric(let why): return "store: the stored fabric is unusable: \(why)"
        case .fabricCreation(let why): return "store: creating the fabric failed: \(why)"
        case .fabricExists(let what): return "store: the state directory already holds \(what)"
        case .invalidNetworkCredentials(let why): return "store: cannot store the network credentials: \(why)"
        case .corruptNetworkCredentials(let path, let why): return "store: \(path) is unusable: \(why)"
        }
    }

    /// What the user can do about it.
    public var recoverySuggestion: String {
        switch self {
        case .sqlite(let code, _, _):
            switch code & 0xFF {
            case 5, 6: return "Another MatterHub process is using the store; wait for it to finish and retry."
            case 8: return "Check that you own the state directory and its files and that the disk is not mounted read-only."
            case 11, 26: return "The database is damaged; restore it from a backup or move the state directory away to start over."
            case 13: return "The disk is full; free some space and retry."
            default: return "Retry; if it persists, check the state directory's disk and permissions."
            }
        case .io: return "Check that the state directory exists, belongs to you and the disk has space."
        case .readOnly: return "Run as the user who owns the state directory, or choose a writable --state directory."
        case .schemaTooNew: return "Use the MatterHub version that wrote this state, or a newer one."
        case .commissioningSessionActive(let pid, _):
            return "Wait for process \(pid) to finish commissioning, or stop it and retry."
        case .commissioningSessionNotActive: return "Start a new commissioning session."
        case .duplicateName: return "Choose another name."
        case .invalidName: return "Use a name of 1 to 128 characters that is not only spaces."
        case .notFound: return "List what exists and use one of those identifiers."
        case .nodeIDInUse, .nodeIDNotReserved: return "Allocate the node ID with allocateNodeID in this session."
        case .nodeIDsExhausted: return "Remove devices that are no longer used."
        case .lastStructure: return "Add another structure first."
        case .corruptFabric:
            return "Restore the state directory (database and keys/) from a backup; without the root key the hub cannot administer its devices."
        case .fabricCreation: return "Retry; if it persists, report a bug."
        case .fabricExists:
            return "Import into a new state directory (--state DIR), or replace this one (matterctl import --replace keeps it as a backup)."
        case .invalidNetworkCredentials: return "Fix what the message names and retry."
        case .corruptNetworkCredentials:
            return "Move the file away and add the Thread datasets or Wi-Fi credentials again (from the border router or your router)."
        }
    }
}
