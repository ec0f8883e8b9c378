import FoundationEssentials

/// Structures (homes) and their rooms. Names are unique case-insensitively: among structures,
/// and among the rooms of one structure.
extension HubStore {
    // MARK: Structures

    /// All structures, oldest first. There is always at least one ("Home").
    public func structures() throws(StoreError) -> [StructureRecord] {
        try withDatabase { db throws(StoreError) in
            try db.query("SELECT id, name, created_at FROM structures ORDER BY id", row: Self.structure)
        }
    }

    /// The first (oldest) structure, where rooms and devices go unless told otherwise.
    public func defaultStructure() throws(StoreError) -> StructureRecord {
        guard let first = try structures().first else { throw .notFound(kind: .structure, id: "default") }
        return first
    }

    public func addStructure(name: String) throws(StoreError) -> StructureRecord {
        let (name, key) = try StoreNames.validated(name, kind: "structure")
        let createdAt = now
        return try write { db throws(StoreError) in
            do throws(StoreError) {
                try db.run("INSERT INTO structures (name, name_key, created_at) VALUES (?, ?, ?)",
                           [.text(name), .text(key), .date(createdAt)])
            } catch where error.isUniqueViolation {
                throw .duplicateName(kind: "structure", name: name)
            }
            return StructureRecord(id: StructureID(rawValue: db.lastInsertRowID), name: name, createdAt: Self.whole(createdAt))
        }
    }

    public func renameStructure(_ id: StructureID, to newName: String) throws(StoreError) {
        let (name, key) = try StoreNames.validated(newName, kind: "structure")
        try write { db throws(StoreError) in
            do throws(StoreError) {
                try db.run("UPDATE structures SET name = ?, name_key = ? WHERE id = ?", [.text(name), .text(key), .integer(id.rawValue)])
            } catch where error.isUniqueViolation {
                throw .duplicateName(kind: "structure", name: name)
            }
            guard db.changes == 1 else { throw .notFound(kind: .structure, id: id.description) }
        }
    }

    /// Removes a structure and its rooms (their devices keep no room). The last structure stays.
    public func removeStructure(_ id: StructureID) throws(StoreError) {
        try write { db throws(StoreError) in
            let count = try db.queryOne("SELECT count(*) FROM structures") { $0.int64(0) } ?? 0
            guard try db.queryOne("SELECT 1 FROM structures WHERE id = ?", [.integer(id.rawValue)], row: { _ in true }) != nil else {
                throw .notFound(kind: .structure, id: id.description)
            }
            guard count > 1 else { throw .lastStructure }
            try db.run("DELETE FROM structures WHERE id = ?", [.integer(id.rawValue)])
        }
    }

    // MARK: Rooms

    /// Rooms of one structure, or of all structures, in creation order.
    public func rooms(in structure: StructureID? = nil) throws(StoreError) -> [RoomRecord] {
        try withDatabase { db throws(StoreError) in
            if let structure {
                return try db.query("SELECT id, structure_id, name, created_at FROM rooms WHERE structure_id = ? ORDER BY id",
                                    [.integer(structure.rawValue)], row: Self.room)
            }
            return try db.query("SELECT id, structure_id, name, created_at FROM rooms ORDER BY id", row: Self.room)
        }
    }

    public func room(_ id: RoomID) throws(StoreError) -> RoomRecord? {
        try withDatabase { db throws(StoreError) in
            try db.queryOne("SELECT id, structure_id, name, created_at FROM rooms WHERE id = ?", [.integer(id.rawValue)], row: Self.room)
        }
    }

    /// Adds a room to `structure` (the default structure when nil).
    public func addRoom(name: String, in structure: StructureID? = nil) throws(StoreError) -> RoomRecord {
        let (name, key) = try StoreNames.validated(name, kind: "room")
        let createdAt = now
        return try write { db throws(StoreError) in
            let structureID = if let structure { structure } else { try Self.defaultStructureID(db) }
            do throws(StoreError) {
                try db.run("INSERT INTO rooms (structure_id, name, name_key, created_at) VALUES (?, ?, ?, ?)",
                           [.integer(structureID.rawValue), .text(name), .text(key), .date(createdAt)])
            } catch where error.isUniqueViolation {
                throw .duplicateName(kind: "room", name: name)
            } catch where error.sqlitePrimaryCode == 19 {  // foreign key: no such structure
                throw .notFound(kind: .structure, id: structureID.description)
            }
            return RoomRecord(id: RoomID(rawValue: db.lastInsertRowID), structureID: structureID, name: name,
                              createdAt: Self.whole(createdAt))
        }
    }

    public func renameRoom(_ id: RoomID, to newName: String) throws(StoreError) {
        let (name, key) = try StoreNames.validated(newName, kind: "room")
        try write { db throws(StoreError) in
            do throws(StoreError) {
                try db.run("UPDATE rooms SET name = ?, name_key = ? WHERE id = ?", [.text(name), .text(key), .integer(id.rawValue)])
            } catch where error.isUniqueViolation {
                throw .duplicateName(kind: "room", name: name)
            }
            guard db.changes == 1 else { throw .notFound(kind: .room, id: id.description) }
        }
    }

    /// Removes a room; its devices stay, with no room.
    public func removeRoom(_ id: RoomID) throws(StoreError) {
        try write { db throws(StoreError) in
            try db.run("DELETE FROM rooms WHERE id = ?", [.integer(id.rawValue)])
            guard db.changes == 1 else { throw .notFound(kind: .room, id: id.description) }
        }
    }

    // MARK: Rows

    static func defaultStructureID(_ db: SQLiteDatabase) throws(StoreError) -> StructureID {
        guard let id = try db.queryOne("SELECT id FROM structures ORDER BY id LIMIT 1", row: { $0.int64(0) }) else {
            throw .notFound(kind: .structure, id: "default")
        }
        return StructureID(rawValue: id)
    }

    static func structure(_ s: SQLiteStatement) -> StructureRecord {
        StructureRecord(id: StructureID(rawValue: s.int64(0)), name: s.text(1), createdAt: s.date(2))
    }

    static func room(_ s: SQLiteStatement) -> RoomRecord {
        RoomRecord(id: RoomID(rawValue: s.int64(0)), structureID: StructureID(rawValue: s.int64(1)), name: s.text(2),
                   createdAt: s.date(3))
    }

    /// Times are stored in whole seconds; records returned before a reload match those after.
    static func whole(_ date: Date) -> Date { Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)) }
}
