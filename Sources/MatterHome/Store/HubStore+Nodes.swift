import FoundationEssentials
import MatterCertificates
#if canImport(Glibc)
import Glibc
import MatterTLV
#endif

/// Commissioned devices and the node IDs reserved for commissionings in flight.
extension HubStore {
    /// Steps of `recordCommissionedNode` at which crash tests stop the process.
    package static let recordNodeSteps = ["node.checked", "node.inserted", "node.session-updated", "node.committed"]

    /// Reserves a fresh operational node ID: random in 1...0xFFFF_FFEF_FFFF_FFFF, not a device,
    /// not the controller, not reserved by anyone. The reservation is a row written in the
    /// same transaction as the check, so concurrent processes never get the same ID.
    ///
    /// The reservation is owned by this process (and `session`, when given). It is released by
    /// `releaseNodeID`, by the session's end, or once its owner process is gone; it becomes a
    /// device only through `recordCommissionedNode`.
    public func allocateNodeID(for session: CommissioningSession? = nil) throws(StoreError) -> NodeID {
        let reservedAt = now
        return try write { db throws(StoreError) in
            try Self.releaseStaleReservations(db)
            if let session { try Self.requireActive(session, db) }
            let id = try freeNodeID(db)
            try db.run("INSERT INTO node_reservations (node_id, owner_pid, session_id, reserved_at) VALUES (?, ?, ?, ?)",
                       [.id(id.rawValue), .integer(Int64(getpid())), session.map { .integer($0.id) } ?? .null, .date(reservedAt)])
            return id
        }
    }

    /// Gives back a reservation this process made (e.g. the commissioning failed).
    public func releaseNodeID(_ nodeID: NodeID) throws(StoreError) {
        try write { db throws(StoreError) in
            try db.run("DELETE FROM node_reservations WHERE node_id = ? AND owner_pid = ?", [.id(nodeID.rawValue), .integer(Int64(getpid()))])
        }
    }

    /// Node IDs currently reserved (by any process), ascending.
    public func reservedNodeIDs() throws(StoreError) -> [NodeID] {
        try withDatabase { db throws(StoreError) in
            try db.query("SELECT node_id FROM node_reservations", row: { NodeID($0.uint64(0)) }).sorted()
        }
    }

    /// Records a device that completed commissioning, in one transaction: the reservation
    /// becomes a `nodes` row (with its addresses) and the node ID is added to the session's
    /// commissioned nodes. A crash leaves all of it or none.
    @discardableResult
    public func recordCommissionedNode(_ node: CommissionedNode, in session: CommissioningSession) throws(StoreError) -> NodeRecord {
        let (name, _) = try StoreNames.validated(node.name, kind: "device")
        let commissionedAt = now
        let record = try write { db throws(StoreError) -> NodeRecord in
            try Self.requireActive(session, db)
            let reserved = try db.queryOne("""
                SELECT 1 FROM node_reservations
                WHERE node_id = ? AND (session_id = ? OR (session_id IS NULL AND owner_pid = ?))
                """, [.id(node.nodeID.rawValue), .integer(session.id), .integer(Int64(getpid()))]) { _ in true }
            guard reserved != nil else { throw .nodeIDNotReserved(node.nodeID.description) }
            step("node.checked")
            try db.run("DELETE FROM node_reservations WHERE node_id = ?", [.id(node.nodeID.rawValue)])
            try db.run("DELETE FROM pending_nodes WHERE node_id = ?", [.id(node.nodeID.rawValue)])
            do throws(StoreError) {
                try db.run("""
                    INSERT INTO nodes (node_id, vendor_id, product_id, name, room_id, noc_serial, commissioned_at, session_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.id(node.nodeID.rawValue), .integer(Int64(node.vendorID)), .integer(Int64(node.productID)), .text(name),
                          node.roomID.map { .integer($0.rawValue) } ?? .null, .blob(node.nocSerial), .date(commissionedAt),
                          .integer(session.id)])
            } catch where error.isUniqueViolation {
                throw .nodeIDInUse(node.nodeID.description)
            } catch where error.sqlitePrimaryCode == 19 {
                throw .notFound(kind: .room, id: node.roomID?.description ?? "?")
            }
            step("node.inserted")
            try Self.insertAddresses(node.addresses, for: node.nodeID, db)
            try db.run("INSERT INTO commissioning_session_nodes (session_id, node_id) VALUES (?, ?)",
                       [.integer(session.id), .id(node.nodeID.rawValue)])
            step("node.session-updated")
            return NodeRecord(nodeID: node.nodeID, vendorID: node.vendorID, productID: node.productID, name: name, roomID: node.roomID,
                              addresses: node.addresses, commissionedAt: Self.whole(commissionedAt), nocSerial: node.nocSerial,
                              sessionID: session.id)
        }
        step("node.committed")
        return record
    }

    /// All devices, ordered by node ID.
    public func nodes() throws(StoreError) -> [NodeRecord] {
        try withDatabase { db throws(StoreError) in
            let rows = try db.query("\(Self.nodeColumns) ORDER BY node_id", row: Self.nodeRow)
            return try rows.map { r throws(StoreError) in try Self.withAddresses(r, db) }.sorted { $0.nodeID < $1.nodeID }
        }
    }

    public func node(_ id: NodeID) throws(StoreError) -> NodeRecord? {
        try withDatabase { db throws(StoreError) in
            guard let r = try db.queryOne("\(Self.nodeColumns) WHERE node_id = ?", [.id(id.rawValue)], row: Self.nodeRow) else { return nil }
            return try Self.withAddresses(r, db)
        }
    }

    public func renameNode(_ id: NodeID, to newName: String) throws(StoreError) {
        let (name, _) = try StoreNames.validated(newName, kind: "device")
        try updateNode(id, "UPDATE nodes SET name = ? WHERE node_id = ?", [.text(name), .id(id.rawValue)])
    }

    /// Puts a device in a room, or in none.
    public func assignNode(_ id: NodeID, to room: RoomID?) throws(StoreError) {
        do throws(StoreError) {
            try updateNode(id, "UPDATE nodes SET room_id = ? WHERE node_id = ?", [room.map { .integer($0.rawValue) } ?? .null, .id(id.rawValue)])
        } catch where error.sqlitePrimaryCode == 19 {
            throw .notFound(kind: .room, id: room?.description ?? "?")
        }
    }

    /// Replaces a device's last known addresses.
    public func updateAddresses(_ addresses: [NodeAddress], for id: NodeID) throws(StoreError) {
        try write { db throws(StoreError) in
            guard try db.queryOne("SELECT 1 FROM nodes WHERE node_id = ?", [.id(id.rawValue)], row: { _ in true }) != nil else {
                throw .notFound(kind: .node, id: id.description)
            }
            try db.run("DELETE FROM node_addresses WHERE node_id = ?", [.id(id.rawValue)])
            try Self.insertAddresses(addresses, for: id, db)
        }
    }

    /// Forgets a device (after it was removed from the fabric).
    public func removeNode(_ id: NodeID) throws(StoreError) {
        try updateNode(id, "DELETE FROM nodes WHERE node_id = ?", [.id(id.rawValue)])
    }

    // MARK: Helpers

    private func updateNode(_ id: NodeID, _ sql: String, _ values: [SQLiteValue]) throws(StoreError) {
        try write { db throws(StoreError) in
            try db.run(sql, values)
            guard db.changes == 1 else { throw .notFound(kind: .node, id: id.description) }
        }
    }

    /// A random operational node ID that is neither a device, a reservation, a pending node nor the
    /// controller.
    func freeNodeID(_ db: SQLiteDatabase) throws(StoreError) -> NodeID {
        for _ in 0..<32 {
            let candidate = NodeID(Self.randomUInt64() % 0xFFFF_FFEF_FFFF_FFFF + 1)
            guard candidate.isOperational else { continue }
            let taken = try db.queryOne("""
                SELECT 1 FROM nodes WHERE node_id = ?1
                UNION ALL SELECT 1 FROM node_reservations WHERE node_id = ?1
                UNION ALL SELECT 1 FROM pending_nodes WHERE node_id = ?1
                UNION ALL SELECT 1 FROM fabric WHERE controller_node_id = ?1
                """, [.id(candidate.rawValue)]) { _ in true }
            if taken == nil { return candidate }
        }
        throw .nodeIDsExhausted
    }

    /// Reservations of processes that no longer run, and of sessions that ended, are released.
    static func releaseStaleReservations(_ db: SQLiteDatabase) throws(StoreError) {
        try db.run("""
            DELETE FROM node_reservations WHERE session_id IN
                (SELECT id FROM commissioning_sessions WHERE state NOT IN ('preparing', 'performing'))
            """)
        let owners = try db.query("SELECT DISTINCT owner_pid FROM node_reservations WHERE session_id IS NULL") { Int32(truncatingIfNeeded: $0.int64(0)) }
        for pid in owners where !processIsAlive(pid) {
            try db.run("DELETE FROM node_reservations WHERE session_id IS NULL AND owner_pid = ?", [.integer(Int64(pid))])
        }
    }

    static func insertAddresses(_ addresses: [NodeAddress], for id: NodeID, _ db: SQLiteDatabase) throws(StoreError) {
        for (position, a) in addresses.enumerated() {
            try db.run("INSERT INTO node_addresses (node_id, position, host, port, interface_index, reached_at) VALUES (?, ?, ?, ?, ?, ?)",
                       [.id(id.rawValue), .integer(Int64(position)), .text(a.host), .integer(Int64(a.port)),
                        a.interfaceIndex.map { .integer(Int64($0)) } ?? .null,
                        a.reachedAt.map { .integer(Int64($0.timeIntervalSince1970)) } ?? .null])
        }
    }

    private static let nodeColumns =
        "SELECT node_id, vendor_id, product_id, name, room_id, noc_serial, commissioned_at, session_id FROM nodes"

    private static func nodeRow(_ s: SQLiteStatement) -> NodeRecord {
        NodeRecord(nodeID: NodeID(s.uint64(0)), vendorID: s.uint16(1), productID: s.uint16(2), name: s.text(3),
                   roomID: s.optionalInt64(4).map(RoomID.init(rawValue:)), addresses: [], commissionedAt: s.date(6),
                   nocSerial: s.blob(5), sessionID: s.optionalInt64(7))
    }

    private static func withAddresses(_ record: NodeRecord, _ db: SQLiteDatabase) throws(StoreError) -> NodeRecord {
        var record = record
        record.addresses = try db.query("SELECT host, port, interface_index, reached_at FROM node_addresses WHERE node_id = ? ORDER BY position",
                                        [.id(record.nodeID.rawValue)]) { s in
            NodeAddress(host: s.text(0), port: s.uint16(1), interfaceIndex: s.optionalInt64(2).map { UInt32(truncatingIfNeeded: $0) },
                        reachedAt: s.optionalInt64(3).map { Date(timeIntervalSince1970: TimeInterval($0)) })
        }
        return record
    }
}
