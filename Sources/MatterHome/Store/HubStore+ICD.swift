import FoundationEssentials
import MatterCrypto
import MatterTLV

/// The hub's Check-In registration with one node (an ICD, Matter Core 9.16): what it sent in
/// RegisterClient and what it accepted since. `key` is a secret (``SecretBytes`` prints redacted).
public struct ICDRegistration: Sendable, Hashable {
    public let nodeID: NodeID
    /// The node ID the device checks in with (the hub's own) and the subject it watches for.
    public let checkInNodeID: UInt64
    public let monitoredSubject: UInt64
    public let key: SecretBytes
    /// 0 Permanent, 1 Ephemeral.
    public let clientType: UInt8
    /// The device's ICDCounter when it took the registration.
    public let counterStart: UInt32
    /// The highest counter offset (counter - start, wrapping) of an accepted Check-In.
    public var lastOffset: UInt32
    public let registeredAt: Date

    public init(nodeID: NodeID, checkInNodeID: UInt64, monitoredSubject: UInt64, key: SecretBytes, clientType: UInt8 = 0,
                counterStart: UInt32, lastOffset: UInt32 = 0, registeredAt: Date = Date()) {
        self.nodeID = nodeID
        self.checkInNodeID = checkInNodeID
        self.monitoredSubject = monitoredSubject
        self.key = key
        self.clientType = clientType
        self.counterStart = counterStart
        self.lastOffset = lastOffset
        self.registeredAt = registeredAt
    }
}

extension HubStore {
    /// Records (or replaces) the registration with its node; a node the store does not hold is refused.
    public func saveICDRegistration(_ r: ICDRegistration) throws(StoreError) {
        try write { db throws(StoreError) in
            guard try db.queryOne("SELECT 1 FROM nodes WHERE node_id = ?", [.id(r.nodeID.rawValue)], row: { _ in true }) != nil else {
                throw StoreError.notFound(kind: .node, id: r.nodeID.description)
            }
            try db.run("""
                INSERT OR REPLACE INTO icd_registrations
                  (node_id, check_in_node_id, monitored_subject, key, client_type, counter_start, last_offset, registered_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, [.id(r.nodeID.rawValue), .id(r.checkInNodeID), .id(r.monitoredSubject), .blob(r.key.bytes),
                      .integer(Int64(r.clientType)), .integer(Int64(r.counterStart)), .integer(Int64(r.lastOffset)),
                      .date(r.registeredAt)])
        }
    }

    /// Every registration, by node.
    public func icdRegistrations() throws(StoreError) -> [NodeID: ICDRegistration] {
        let rows = try withDatabase { db throws(StoreError) in
            try db.query("""
                SELECT node_id, check_in_node_id, monitored_subject, key, client_type, counter_start, last_offset, registered_at
                FROM icd_registrations
                """) { s in
                ICDRegistration(nodeID: NodeID(s.uint64(0)), checkInNodeID: s.uint64(1), monitoredSubject: s.uint64(2),
                                key: SecretBytes(s.blob(3)), clientType: UInt8(truncatingIfNeeded: s.int64(4)),
                                counterStart: UInt32(truncatingIfNeeded: s.int64(5)), lastOffset: UInt32(truncatingIfNeeded: s.int64(6)),
                                registeredAt: s.date(7))
            }
        }
        return Dictionary(rows.map { ($0.nodeID, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Moves the accepted offset on (only forwards: a Check-In at or below it is a replay).
    public func acceptICDCheckIn(_ nodeID: NodeID, offset: UInt32) throws(StoreError) {
        try write { db throws(StoreError) in
            try db.run("UPDATE icd_registrations SET last_offset = ?2 WHERE node_id = ?1 AND last_offset < ?2",
                       [.id(nodeID.rawValue), .integer(Int64(offset))])
        }
    }

    public func removeICDRegistration(_ nodeID: NodeID) throws(StoreError) {
        try write { db throws(StoreError) in
            try db.run("DELETE FROM icd_registrations WHERE node_id = ?", [.id(nodeID.rawValue)])
        }
    }
}
