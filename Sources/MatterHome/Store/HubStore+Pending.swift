import FoundationEssentials
import MatterCertificates
import MatterInteraction
import MatterTLV

/// A node between AddNOC and the record of its completed commissioning.
public struct PendingNode: Hashable, Sendable {
    public var nodeID: NodeID
    /// The NOC sent with AddNOC (Matter TLV).
    public var noc: [UInt8]
    public var vendorID: UInt16
    public var productID: UInt16
    public var name: String?
    public var roomID: RoomID?
    /// Where commissioning reached the device (CASE is tried there first).
    public var address: NodeAddress
    public var pendedAt: Date

    public init(nodeID: NodeID, noc: [UInt8], vendorID: UInt16, productID: UInt16, name: String?, roomID: RoomID?,
                address: NodeAddress, pendedAt: Date = Date(timeIntervalSince1970: 0)) {
        self.nodeID = nodeID
        self.noc = noc
        self.vendorID = vendorID
        self.productID = productID
        self.name = name
        self.roomID = roomID
        self.address = address
        self.pendedAt = pendedAt
    }
}

/// Nodes pending between AddNOC and their recorded completion, and the attribute cache.
extension HubStore {
    /// Records `node` as pending, before its NOC is sent: a crash from here on leaves a row the
    /// hub reconciles at its next start, never a device on our fabric that the hub forgot.
    public func recordPendingNode(_ node: PendingNode) throws(StoreError) {
        let pendedAt = now
        try write { db throws(StoreError) in
            do throws(StoreError) {
                try db.run("""
                    INSERT INTO pending_nodes (node_id, noc, vendor_id, product_id, name, room_id, host, port, interface_index, pended_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.id(node.nodeID.rawValue), .blob(node.noc), .integer(Int64(node.vendorID)), .integer(Int64(node.productID)),
                          node.name.map { .text($0) } ?? .null, node.roomID.map { .integer($0.rawValue) } ?? .null,
                          .text(node.address.host), .integer(Int64(node.address.port)),
                          node.address.interfaceIndex.map { .integer(Int64($0)) } ?? .null, .date(pendedAt)])
            } catch where error.isUniqueViolation {
                throw .nodeIDInUse(node.nodeID.description)
            }
        }
    }

    /// Nodes left pending (by a commissioning in flight, or by one that crashed).
    public func pendingNodes() throws(StoreError) -> [PendingNode] {
        try withDatabase { db throws(StoreError) in
            try db.query("""
                SELECT node_id, noc, vendor_id, product_id, name, room_id, host, port, interface_index, pended_at
                FROM pending_nodes ORDER BY node_id
                """) { s in
                PendingNode(nodeID: NodeID(s.uint64(0)), noc: s.blob(1), vendorID: s.uint16(2), productID: s.uint16(3),
                            name: s.optionalText(4), roomID: s.optionalInt64(5).map(RoomID.init(rawValue:)),
                            address: NodeAddress(host: s.text(6), port: s.uint16(7),
                                                 interfaceIndex: s.optionalInt64(8).map { UInt32(truncatingIfNeeded: $0) }),
                            pendedAt: s.date(9))
            }
        }
    }

    /// Forgets a pending node (its commissioning failed, or the device never answered again)
    /// and gives its node ID back.
    public func dropPendingNode(_ nodeID: NodeID) throws(StoreError) {
        try write { db throws(StoreError) in
            try db.run("DELETE FROM pending_nodes WHERE node_id = ?", [.id(nodeID.rawValue)])
            try db.run("DELETE FROM node_reservations WHERE node_id = ?", [.id(nodeID.rawValue)])
        }
    }

    /// Completes a pending node found on our fabric after a restart: it becomes a device (with
    /// no commissioning session) in one transaction.
    @discardableResult
    public func completePendingNode(_ nodeID: NodeID, name: String, addresses: [NodeAddress]) throws(StoreError) -> NodeRecord {
        let (validName, _) = try StoreNames.validated(name, kind: "device")
        let commissionedAt = now
        return try write { db throws(StoreError) -> NodeRecord in
            guard let pending = try db.queryOne("SELECT vendor_id, product_id, room_id FROM pending_nodes WHERE node_id = ?",
                                                [.id(nodeID.rawValue)], row: { s in (s.uint16(0), s.uint16(1), s.optionalInt64(2)) })
            else { throw .notFound(kind: .pendingNode, id: nodeID.description) }
            try db.run("DELETE FROM pending_nodes WHERE node_id = ?", [.id(nodeID.rawValue)])
            try db.run("DELETE FROM node_reservations WHERE node_id = ?", [.id(nodeID.rawValue)])
            try db.run("""
                INSERT INTO nodes (node_id, vendor_id, product_id, name, room_id, noc_serial, commissioned_at, session_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, NULL)
                """, [.id(nodeID.rawValue), .integer(Int64(pending.0)), .integer(Int64(pending.1)), .text(validName),
                      pending.2.map { .integer($0) } ?? .null, .blob([]), .date(commissionedAt)])
            try Self.insertAddresses(addresses, for: nodeID, db)
            return NodeRecord(nodeID: nodeID, vendorID: pending.0, productID: pending.1, name: validName,
                              roomID: pending.2.map(RoomID.init(rawValue:)), addresses: addresses,
                              commissionedAt: Self.whole(commissionedAt), nocSerial: [], sessionID: nil)
        }
    }

    // MARK: - The attribute cache

    /// Stores values of `nodeID`'s attributes (each value as TLV), replacing older ones, in one
    /// transaction.
    public func storeAttributeValues(_ values: [ConcreteAttributePath: [UInt8]], for nodeID: NodeID) throws(StoreError) {
        try storeAttributeValues([nodeID: values])
    }

    /// The values of several nodes in one transaction (one sync to disk for all of them).
    public func storeAttributeValues(_ byNode: [NodeID: [ConcreteAttributePath: [UInt8]]]) throws(StoreError) {
        guard byNode.values.contains(where: { !$0.isEmpty }) else { return }
        try write { db throws(StoreError) in
            for (nodeID, values) in byNode {
                for (path, value) in values {
                    try db.run("""
                        INSERT INTO attribute_values (node_id, endpoint, cluster, attribute, value) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (node_id, endpoint, cluster, attribute) DO UPDATE SET value = excluded.value
                        """, [.id(nodeID.rawValue), .integer(Int64(path.endpoint.rawValue)), .integer(Int64(path.cluster.rawValue)),
                              .integer(Int64(path.attribute.rawValue)), .blob(value)])
                }
            }
        }
    }

    /// Forgets the cached values of endpoints a node no longer has (a bridge's removed light).
    public func removeAttributeValues(_ endpointsByNode: [NodeID: Set<EndpointID>]) throws(StoreError) {
        guard endpointsByNode.values.contains(where: { !$0.isEmpty }) else { return }
        try write { db throws(StoreError) in
            for (nodeID, endpoints) in endpointsByNode {
                for endpoint in endpoints {
                    try db.run("DELETE FROM attribute_values WHERE node_id = ? AND endpoint = ?",
                               [.id(nodeID.rawValue), .integer(Int64(endpoint.rawValue))])
                }
            }
        }
    }

    /// The cached values of `nodeID`'s attributes (TLV), as last stored.
    public func attributeValues(for nodeID: NodeID) throws(StoreError) -> [ConcreteAttributePath: [UInt8]] {
        try withDatabase { db throws(StoreError) in
            let rows = try db.query("SELECT endpoint, cluster, attribute, value FROM attribute_values WHERE node_id = ?",
                                    [.id(nodeID.rawValue)]) { s in
                (ConcreteAttributePath(EndpointID(s.uint16(0)), ClusterID(UInt32(truncatingIfNeeded: s.int64(1))),
                                       AttributeID(UInt32(truncatingIfNeeded: s.int64(2)))), s.blob(3))
            }
            return Dictionary(rows, uniquingKeysWith: { _, last in last })
        }
    }
}
