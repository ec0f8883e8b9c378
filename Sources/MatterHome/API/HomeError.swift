import MatterCommissioning
import MatterDiscovery

/// What the Home API reports when it cannot do what was asked, with what the user can do.
///
/// `code` says what happened; `message` says it to the user. Both are the same in embedded and
/// remote mode (a hub carries them across verbatim). `underlyingError` is the error underneath
/// where the Home API has one: a `StoreError`, `CommissioningError`, `InteractionError`, ... In
/// remote mode only the commissioning error crosses the wire.
public struct HomeError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The hub's state directory or database cannot be written by this user.
        case storeNotWritable
        /// The store could not read or write (an SQLite or file-system error, a newer schema,
        /// a damaged file); the message names it.
        case storeFailed
        /// The hub's fabric (root key, certificates) cannot be created, loaded or used.
        case fabricUnusable
        /// The hub cannot be reached (remote mode), or cannot start what it needs (its UDP
        /// socket, avahi-daemon).
        case hubUnavailable
        case commissioningSessionActive
        case noCommissioningSession
        /// A setup code that does not parse, or one the hub cannot form.
        case invalidPayload
        case commissioningFailed
        /// The PAA trust store for device attestation cannot be loaded.
        case trustStoreUnavailable
        case deviceNotFound
        case roomNotFound
        /// No structure with this ID, or the home has none.
        case structureNotFound
        /// A room or structure with this name (compared case-insensitively) already exists.
        case duplicateName
        /// A room or structure name that is empty or too long.
        case invalidName
        case deviceUnreachable
        case deviceRefused
        /// A Thread dataset or Wi-Fi credentials that are malformed or cannot be stored.
        case invalidNetworkCredentials
        /// A move from another Matter server (`matterhub/import`) that cannot go ahead: the
        /// storage cannot be read or moved, the hub already holds devices, or the storage changed
        /// since the dry run; the message says which and what to do.
        case importRefused
        /// A firmware update that could not be checked or installed (the hub's `check_node_update`
        /// and `update_node`); the message names the step that failed and what to do.
        case updateFailed
    }

    public let code: Code
    public let message: String
    /// The commissioning step that failed, for `commissioningFailed`.
    public let commissioningError: CommissioningError?
    /// The error this one reports, where there is one (embedded mode; in remote mode, the
    /// commissioning error only).
    public let underlyingError: (any Error)?

    public init(_ code: Code, _ message: String, commissioningError: CommissioningError? = nil,
                underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.commissioningError = commissioningError
        self.underlyingError = underlying ?? commissioningError
    }

    /// A store failure while doing `what` ("cannot add room 'Kitchen'"): the code says what the
    /// store refused, the message adds the store's own words and what to do about it.
    package init(_ what: String, store error: StoreError) {
        self.init(Self.code(of: error), "\(what): \(error.description). \(error.recoverySuggestion)", underlying: error)
    }

    static func code(of error: StoreError) -> Code {
        switch error {
        case .readOnly: .storeNotWritable
        case .sqlite(let code, _, _) where code & 0xFF == 8: .storeNotWritable  // SQLITE_READONLY
        case .commissioningSessionActive: .commissioningSessionActive
        case .commissioningSessionNotActive: .noCommissioningSession
        case .duplicateName: .duplicateName
        case .invalidName: .invalidName
        case .notFound(.room, _): .roomNotFound
        case .notFound(.structure, _): .structureNotFound
        case .notFound(.node, _): .deviceNotFound
        case .corruptFabric, .fabricCreation, .fabricExists: .fabricUnusable
        case .invalidNetworkCredentials: .invalidNetworkCredentials
        case .sqlite, .io, .schemaTooNew, .notFound, .nodeIDInUse, .nodeIDNotReserved, .nodeIDsExhausted, .lastStructure,
             .corruptNetworkCredentials:
            .storeFailed
        }
    }

    public var description: String { message }
}
