import FoundationEssentials
import MatterTLV

/// One change of a node's availability, as the hub saw it.
public struct ConnectivityEvent: Hashable, Sendable {
    public let nodeID: NodeID
    public let at: Date
    public let available: Bool
    /// Why (the node runtime's reason: `subscribed`, `lapsed`, `session-lost`, ...).
    public let reason: String

    public init(nodeID: NodeID, at: Date, available: Bool, reason: String) {
        self.nodeID = nodeID
        self.at = at
        self.available = available
        self.reason = reason
    }
}

extension HubStore {
    /// How many events are kept per node (the oldest go first).
    public static let connectivityHistoryLimit = 200

    /// Appends events, in one transaction; events of nodes the store no longer holds are
    /// dropped. Each node keeps its newest ``connectivityHistoryLimit``.
    public func appendConnectivity(_ events: [ConnectivityEvent]) throws(StoreError) {
        guard !events.isEmpty else { return }
        try write { db throws(StoreError) in
            for e in events {
                try db.run("""
                    INSERT INTO node_connectivity (node_id, at_ms, available, reason)
                    SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM nodes WHERE node_id = ?1)
                    """, [.id(e.nodeID.rawValue), .integer(Int64((e.at.timeIntervalSince1970 * 1000).rounded())),
                          .integer(e.available ? 1 : 0), .text(e.reason)])
            }
            for node in Set(events.map(\.nodeID)) {
                try db.run("""
                    DELETE FROM node_connectivity WHERE node_id = ?1 AND rowid NOT IN
                      (SELECT rowid FROM node_connectivity WHERE node_id = ?1 ORDER BY at_ms DESC, rowid DESC LIMIT ?2)
                    """, [.id(node.rawValue), .integer(Int64(Self.connectivityHistoryLimit))])
            }
        }
    }

    /// `nodeID`'s events, newest first, at most `limit`.
    public func connectivityHistory(of nodeID: NodeID, limit: Int = connectivityHistoryLimit) throws(StoreError) -> [ConnectivityEvent] {
        try withDatabase { db throws(StoreError) in
            try db.query("""
                SELECT at_ms, available, reason FROM node_connectivity WHERE node_id = ?
                ORDER BY at_ms DESC, rowid DESC LIMIT ?
                """, [.id(nodeID.rawValue), .integer(Int64(max(0, limit)))]) { s in
                ConnectivityEvent(nodeID: nodeID, at: Date(timeIntervalSince1970: Double(s.int64(0)) / 1000),
                                  available: s.int64(1) == 1, reason: s.text(2))
            }
        }
    }
}
