import MatterCrypto
import MatterHome
import MatterSecureChannel
import MatterTLV

/// The hub's side of the Check-In Protocol (Matter Core 4.18): the registrations it holds with
/// sleepy nodes (kept in the store) and the check of each Check-In that arrives. A Check-In is
/// unsecured and names no node, so it is opened with each registration's key in turn until one
/// authenticates it (the SDK's `CheckInHandler` does the same); then its counter must be past
/// the last one accepted, or it is a replay.
actor ICDCheckIns {
    enum Outcome: Equatable {
        /// From `node`, counter offset `offset`; `refreshKey`: the offset passed 2^31 and the
        /// registration should get a new key (Matter Core 4.18.7).
        case accepted(NodeID, offset: UInt32, refreshKey: Bool)
        /// No registration's key opens it (not for this hub, or forged).
        case unknown
        /// Authentic, but its counter is not past the last accepted one.
        case replayed(NodeID, offset: UInt32, last: UInt32)
    }

    private let store: HubStore
    private var registrations: [NodeID: ICDRegistration]

    init(store: HubStore) {
        self.store = store
        registrations = (try? store.icdRegistrations()) ?? [:]
    }

    func registration(of node: NodeID) -> ICDRegistration? { registrations[node] }
    var registeredNodes: [NodeID] { Array(registrations.keys) }

    /// Keeps `registration` (in the store first: a registration the hub forgot after a restart
    /// would leave the device checking in with a key nobody holds).
    func save(_ registration: ICDRegistration) throws(StoreError) {
        try store.saveICDRegistration(registration)
        registrations[registration.nodeID] = registration
    }

    private var ignored = 0
    private var lastIgnoredReport: ContinuousClock.Instant?

    /// Counts a Check-In nobody could read; the count to log, at most once a minute (a flood of
    /// forged ones must not flood the log).
    func ignoredOne() -> Int? {
        ignored += 1
        if let last = lastIgnoredReport, ContinuousClock.now - last < .seconds(60) { return nil }
        lastIgnoredReport = .now
        defer { ignored = 0 }
        return ignored
    }

    private var lastSenderLookUp: ContinuousClock.Instant?

    /// Whether an unreadable Check-In's sender may be looked up among the nodes now: at most once
    /// a second, so that a flood of forged ones does not become a flood of store reads.
    func mayLookUpSender() -> Bool {
        if let last = lastSenderLookUp, ContinuousClock.now - last < .seconds(1) { return false }
        lastSenderLookUp = .now
        return true
    }

    func forget(_ node: NodeID) {
        try? store.removeICDRegistration(node)
        registrations[node] = nil
    }

    /// Check-Ins carry a counter and at most a few bytes of application data (the threshold):
    /// anything longer is refused before any key is tried.
    static let maximumLength = CheckInMessage.minimumLength + 64

    func receive(_ payload: [UInt8]) -> Outcome {
        guard (CheckInMessage.minimumLength...Self.maximumLength).contains(payload.count) else { return .unknown }
        for (node, r) in registrations {
            guard let opened = try? CheckInMessage.open(key: r.key.bytes, payload: payload) else { continue }
            let offset = CheckInMessage.offset(of: opened.counter, from: r.counterStart)
            guard offset > r.lastOffset else { return .replayed(node, offset: offset, last: r.lastOffset) }
            registrations[node]?.lastOffset = offset
            try? store.acceptICDCheckIn(node, offset: offset)
            return .accepted(node, offset: offset, refreshKey: offset >= CheckInMessage.keyRefreshOffset)
        }
        return .unknown
    }
}
