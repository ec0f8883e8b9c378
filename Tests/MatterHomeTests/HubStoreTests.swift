import Foundation
import MatterCertificates
@testable import MatterHome
import Testing
import MatterTLV

/// Round trips of structures, rooms, nodes and sessions; names and constraints; schema version.
@Suite struct HubStoreTests {
    /// Which addresses the hub keeps after reaching a node: the reached one first, the others
    /// that did not fail and were reached within 30 days; an unchanged list is written again
    /// only once a day (each write is synced to disk).
    @Test func rememberedAddresses() {
        let now = Date(timeIntervalSince1970: 1_780_000_000)
        func at(_ host: String, _ port: UInt16 = 5540, daysAgo: Double?) -> NodeAddress {
            NodeAddress(host: host, port: port, reachedAt: daysAgo.map { now.addingTimeInterval(-$0 * 86_400) })
        }
        let reached = at("fd00::2", daysAgo: 0)
        let recorded = [at("fd00::1", daysAgo: 1), at("192.0.2.1", daysAgo: 40), at("fe80::1", daysAgo: nil), at("fd00::3", daysAgo: 2)]
        // fd00::3 failed now; 192.0.2.1 was last reached 40 days ago; fe80::1 has no time (kept).
        #expect(Hub.remembered(reached: reached, recorded: recorded, failed: [NodeAddress(host: "fd00::3", port: 5540)])
                == [reached, at("fd00::1", daysAgo: 1), at("fe80::1", daysAgo: nil)])
        // The same list, its first address reached an hour ago: nothing to write.
        #expect(Hub.remembered(reached: at("fd00::1", daysAgo: 0), recorded: [at("fd00::1", daysAgo: 1.0 / 24)], failed: []) == nil)
        // Two days ago: written with the new time.
        #expect(Hub.remembered(reached: at("fd00::1", daysAgo: 0), recorded: [at("fd00::1", daysAgo: 2)], failed: [])
                == [at("fd00::1", daysAgo: 0)])
        // An address stored without a time (from before, or imported) gets one.
        #expect(Hub.remembered(reached: at("fd00::1", daysAgo: 0), recorded: [at("fd00::1", daysAgo: nil)], failed: [])
                == [at("fd00::1", daysAgo: 0)])
        // Another port is another address: the device restarted there.
        #expect(Hub.remembered(reached: at("fd00::1", 5541, daysAgo: 0), recorded: [at("fd00::1", daysAgo: 0)], failed: [NodeAddress(host: "fd00::1", port: 5540)])
                == [at("fd00::1", 5541, daysAgo: 0)])
    }

    @Test func defaultStructureExistsAndStructuresRoundTrip() throws {
        let dir = TemporaryStateDirectory()
        defer { dir.cleanup() }
        let store = try HubStore(directory: dir.path)
        #expect(try store.structures().map(\.name) == ["Home"])
        let cabin = try store.addStructure(name: "Cabin")
        try store.renameStructure(cabin.id, to: "Lake Cabin")
        #expect(throws: StoreError.duplicateName(kind: "structure", name: "HOME")) { try store.addStructure(name: "HOME") }
        let reopened = try HubStore(directory: dir.path)
        #expect(try reopened.structures().map(\.name) == ["Home", "Lake Cabin"])
        #expect(try reopened.structures().last == StructureRecord(id: cabin.id, name: "Lake Cabin", createdAt: cabin.createdAt))
        try reopened.removeStructure(cabin.id)
        #expect(throws: StoreError.lastStructure) { try reopened.removeStructure(try reopened.defaultStructure().id) }
    }

    @Test func roomsRoundTripWithCaseInsensitiveUniqueNames() throws {
        let dir = TemporaryStateDirectory()
        defer { dir.cleanup() }
        let store = try HubStore(directory: dir.path)
        let kitchen = try store.addRoom(name: "  Küche ")
        #expect(kitchen.name == "Küche")
        // Unicode case folding, and NFD vs NFC spellings, are the same name.
        #expect(throws: StoreError.self) { try store.addRoom(name: "KÜCHE") }
        #expect(throws: StoreError.self) { try store.addRoom(name: "ku\u{0308}che") }
        #expect(throws: StoreError.self) { try store.addRoom(name: "   ") }
        let office = try store.addRoom(name: "Office")
        #expect(throws: StoreError.duplicateName(kind: "room", name: "office")) { try store.renameRoom(kitchen.id, to: "office") }
        try store.renameRoom(kitchen.id, to: "Kitchen")
        // The same name in another structure is fine.
        let cabin = try store.addStructure(name: "Cabin")
        let cabinKitchen = try store.addRoom(name: "kitchen", in: cabin.id)

        let reopened = try HubStore(directory: dir.path)
        let home = try reopened.defaultStructure().id
        #expect(try reopened.rooms(in: home).map(\.name) == ["Kitchen", "Office"])
        #expect(try reopened.rooms(in: cabin.id) == [cabinKitchen])
        #expect(try reopened.room(office.id) == office)
        try reopened.removeRoom(office.id)
        #expect(throws: StoreError.notFound(kind: .room, id: office.id.description)) { try reopened.removeRoom(office.id) }
        #expect(throws: StoreError.notFound(kind: .structure, id: "999")) {
            try reopened.addRoom(name: "Nowhere", in: StructureID(rawValue: 999))
        }
        // Removing a structure removes its rooms.
        try reopened.removeStructure(cabin.id)
        #expect(try reopened.room(cabinKitchen.id) == nil)
    }

    @Test func commissionedNodesRoundTripAndKeepNoRoomWhenItGoes() throws {
        let dir = TemporaryStateDirectory()
        defer { dir.cleanup() }
        let store = try HubStore(directory: dir.path)
        let room = try store.addRoom(name: "Living room")
        let session = try store.beginCommissioningSession()
        let id = try store.allocateNodeID(for: session)
        #expect(id.isOperational)
        #expect(try store.reservedNodeIDs() == [id])
        #expect(try store.nodes().isEmpty)  // a reservation is not a device
        let addresses = [NodeAddress(host: "fe80::1", port: 5540, interfaceIndex: 3), NodeAddress(host: "192.0.2.7", port: 5541)]
        let recorded = try store.recordCommissionedNode(
            CommissionedNode(nodeID: id, vendorID: 0xFFF1, productID: 0x8001, name: "Ceiling light", roomID: room.id,
                             addresses: addresses, nocSerial: [0x12, 0x34]), in: session)
        #expect(try store.reservedNodeIDs().isEmpty)
        // A second record of the same ID is refused: it is no longer reserved.
        #expect(throws: StoreError.nodeIDNotReserved(id.description)) {
            try store.recordCommissionedNode(CommissionedNode(nodeID: id, vendorID: 1, productID: 1, name: "x", nocSerial: []), in: session)
        }
        #expect(throws: StoreError.nodeIDNotReserved(NodeID(42).description)) {
            try store.recordCommissionedNode(CommissionedNode(nodeID: NodeID(42), vendorID: 1, productID: 1, name: "x", nocSerial: []),
                                             in: session)
        }
        try session.finish(.completed)
        #expect(throws: StoreError.commissioningSessionNotActive(id: session.id)) { try store.allocateNodeID(for: session) }

        let reopened = try HubStore(directory: dir.path)
        #expect(try reopened.nodes() == [recorded])
        #expect(try reopened.node(id)?.addresses == addresses)
        let sessions = try reopened.commissioningSessions()
        #expect(sessions.count == 1)
        #expect(sessions[0].state == .completed && sessions[0].commissionedNodeIDs == [id] && sessions[0].ownerPID == getpid())

        try reopened.renameNode(id, to: "Lamp")
        let reached = NodeAddress(host: "::1", port: 5540, reachedAt: Date(timeIntervalSince1970: 1_780_000_000))
        try reopened.updateAddresses([reached], for: id)
        try reopened.removeRoom(room.id)
        let after = try #require(try reopened.node(id))
        #expect(after.name == "Lamp" && after.roomID == nil && after.addresses == [reached])
        let den = try reopened.addRoom(name: "Den")
        try reopened.assignNode(id, to: den.id)
        #expect(try reopened.node(id)?.roomID == den.id)
        #expect(throws: StoreError.notFound(kind: .room, id: "999")) { try reopened.assignNode(id, to: RoomID(rawValue: 999)) }
        try reopened.removeNode(id)
        #expect(try reopened.nodes().isEmpty)
        #expect(throws: StoreError.notFound(kind: .node, id: id.description)) { try reopened.removeNode(id) }
        #expect(try reopened.integrityProblems().isEmpty)
    }

    /// A node's connectivity history: newest first, bounded per node, gone with the node, and
    /// events of a node the store does not hold are dropped.
    @Test func connectivityHistoryIsBoundedAndGoesWithItsNode() throws {
        let dir = TemporaryStateDirectory()
        defer { dir.cleanup() }
        let store = try HubStore(directory: dir.path)
        let session = try store.beginCommissioningSession()
        let id = try store.allocateNodeID(for: session)
        _ = try store.recordCommissionedNode(CommissionedNode(nodeID: id, vendorID: 0xFFF1, productID: 0x8001, name: "Lamp", nocSerial: [1]),
                                             in: session)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let limit = HubStore.connectivityHistoryLimit
        var events: [ConnectivityEvent] = []
        for i in 0..<(limit + 5) {
            let up = i % 2 == 0
            events.append(ConnectivityEvent(nodeID: id, at: start.addingTimeInterval(Double(i)), available: up,
                                            reason: up ? "subscribed" : "lapsed"))
        }
        try store.appendConnectivity(events + [ConnectivityEvent(nodeID: NodeID(0x4242), at: start, available: true, reason: "subscribed")])
        let history = try store.connectivityHistory(of: id)
        #expect(history.count == limit)
        #expect(history.first == events.last && history.last == events[5], "newest first, the oldest dropped")
        #expect(try store.connectivityHistory(of: id, limit: 2) == Array(events.suffix(2).reversed()))
        #expect(try store.connectivityHistory(of: NodeID(0x4242)).isEmpty)
        try store.removeNode(id)
        #expect(try store.connectivityHistory(of: id).isEmpty)
        #expect(try store.integrityProblems().isEmpty)
    }

    @Test func nodeIDsAreUniqueAndNeverTheController() throws {
        let dir = TemporaryStateDirectory()
        defer { dir.cleanup() }
        let store = try HubStore(directory: dir.path)
        let fabric = try store.createFabricIfNeeded()
        var seen: Set<NodeID> = []
        for _ in 0..<200 {
            let id = try store.allocateNodeID()
            #expect(id.isOperational && id != fabric.controllerNodeID)
            #expect(seen.insert(id).inserted)
        }
        #expect(Set(try store.reservedNodeIDs()) == seen)
        // The primary key refuses a second device row with the same node ID.
        let session = try store.beginCommissioningSession()
        let id = try store.allocateNodeID(for: session)
        try store.recordCommissionedNode(CommissionedNode(nodeID: id, vendorID: 1, productID: 1, name: "a", nocSerial: [1]), in: session)
        #expect(throws: StoreError.self) {
            try store.withDatabase { db throws(StoreError) in
                try db.run("INSERT INTO nodes (node_id, vendor_id, product_id, name, noc_serial, commissioned_at) VALUES (?, 1, 1, 'b', x'01', 0)",
                           [.id(id.rawValue)])
            }
        }
        try store.releaseNodeID(seen.first!)
        #expect(try store.reservedNodeIDs().count == seen.count - 1)
        try session.finish(.cancelled)
    }

    @Test func schemaVersionIsCurrentAndANewerOneIsRefused() throws {
        let dir = TemporaryStateDirectory()
        defer { dir.cleanup() }
        let store = try HubStore(directory: dir.path)
        #expect(try store.withDatabase { db throws(StoreError) in try HubStore.userVersion(db) } == StoreSchema.currentVersion)
        try store.withDatabase { db throws(StoreError) in try db.exec("PRAGMA user_version = 99") }
        #expect(throws: StoreError.schemaTooNew(found: 99, supported: StoreSchema.currentVersion)) {
            _ = try HubStore(directory: dir.path)
        }
    }

    @Test func canWriteIsFalseForAReadOnlyStore() throws {
        let dir = TemporaryStateDirectory()
        defer { dir.cleanup() }
        let store = try HubStore(directory: dir.path)
        #expect(store.canWrite())
        var options = HubStore.Options()
        options.readOnly = true
        let readOnly = try HubStore(directory: dir.path, options: options)
        #expect(!readOnly.canWrite())
        #expect(throws: StoreError.readOnly(path: readOnly.databasePath)) { try readOnly.checkWritable() }
        #expect(throws: StoreError.readOnly(path: readOnly.databasePath)) { try readOnly.addRoom(name: "x") }
        #expect(try readOnly.structures().count == 1)  // reading still works
        if getuid() != 0 {  // root ignores mode bits
            chmod(dir.path, 0o500)
            defer { chmod(dir.path, 0o700) }
            #expect(!store.canWrite())
        }
    }

    @Test func sqliteErrorsAreTypedWithCodeAndAdvice() throws {
        let dir = TemporaryStateDirectory()
        defer { dir.cleanup() }
        let store = try HubStore(directory: dir.path)
        do {
            try store.withDatabase { db throws(StoreError) in try db.exec("SELECT * FROM no_such_table") }
            Issue.record("expected an error")
        } catch {
            guard case .sqlite(let code, let message, _) = error else { Issue.record("wrong error \(error)"); return }
            #expect(code == 1 && message.contains("no_such_table"))
            #expect(!error.recoverySuggestion.isEmpty)
        }
        // A wrong number of bound values is an error, not a trap.
        #expect(throws: StoreError.self) { try store.withDatabase { db throws(StoreError) in try db.run("SELECT ?", []) } }
    }
}
