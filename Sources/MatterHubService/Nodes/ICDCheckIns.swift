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

    func forget(_ node: NodeID) {
        try? store.removeICDRegistration(node)
        registrations[node] = nil
    }

    func receive(_ payload: [UInt8]) -> Outcome {
        guard payload.count >= CheckInMessage.minimumLength else { return .unknown }
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
