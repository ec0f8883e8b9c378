/// The database schema and its migrations, versioned with `PRAGMA user_version`.
///
/// Integers are SQLite INTEGER (signed 64-bit); 64-bit Matter identifiers (fabric and node IDs)
/// are stored as their bit pattern (`Int64(bitPattern:)`). Times are Unix seconds.
///
/// Version 1:
///
/// - `fabric`: the hub's one fabric (`id` is always 1). Fabric ID, vendor ID (the hub's admin
///   vendor), RCAC in TLV and DER, optional ICAC, the 16-byte IPK epoch key, the controller's
///   own operational node ID and NOC, and the *file names* under `keys/` of the root, ICAC and
///   controller private keys (PKCS#8 DER, mode 0600). Keys never enter the database.
/// - `structures`: homes (at least one, "Home", created by the migration). `name_key` is the
///   case-folded name and is unique.
/// - `rooms`: belong to a structure (deleted with it); `name_key` unique within the structure.
/// - `nodes`: commissioned devices, primary key the operational node ID (unique in the hub's
///   fabric), vendor/product ID, name, room (set to NULL when the room goes), NOC serial,
///   commissioned-at and the commissioning session that added it.
/// - `node_addresses`: last known addresses of a node, in preference order, each with when the
///   hub last reached the node there (`reached_at`, seconds since 1970; null when not known).
/// - `commissioning_sessions`: one row per session (structure, owner PID, started-at, state,
///   ended-at). At most one row is active (`preparing`/`performing`) at a time: the partial
///   unique index enforces it, and the cross-process lock file decides who may insert it.
/// - `commissioning_session_nodes`: the node IDs a session commissioned.
/// - `node_reservations`: node IDs allocated for an in-flight commissioning (owner PID, optional
///   session). A reservation is never a device: `recordCommissionedNode` turns it into a `nodes`
///   row in the same transaction that records it in the session; reservations of dead processes
///   and ended sessions are released.
///
/// Version 2 (the hub service):
///
/// - `pending_nodes`: a node whose operational certificate is about to be (or was) sent with
///   AddNOC but whose commissioning has not been recorded as complete: its NOC (TLV), the
///   address commissioning reached it at, vendor/product, the name and room asked for. It keeps
///   the node ID taken. `recordCommissionedNode` deletes it in the transaction that records
///   the node; a hub that starts reconciles what is left (completes or drops each).
/// - `attribute_values`: the hub's cache of each node's attribute values (TLV of the value),
///   deleted with the node, so a restarted hub lists every node with its state at once.
///
/// Version 3 (months unattended):
///
/// - `node_connectivity`: when each node became available or unavailable and why (Unix
///   milliseconds; the reason is `NodeLifecycle.AvailabilityReason`'s raw value), the newest
///   `HubStore.connectivityHistoryLimit` per node, deleted with the node.
///
/// Version 4 (sleepy devices):
///
/// - `icd_registrations`: the hub's Check-In registration with a node's ICD Management cluster
///   (Matter Core 9.16): the check-in node ID and monitored subject it registered, the 16-byte
///   key it gave (a secret, as the fabric's IPK; the store is owner-only), the client type,
///   the device's ICDCounter at registration and the highest counter offset accepted since
///   (Check-Ins at or below it are replays), deleted with the node.
enum StoreSchema {
    /// The schema version this code reads and writes.
    static let currentVersion: Int64 = 5

    /// `migrations[n]` upgrades version n to n + 1.
    static let migrations: [String] = [
        """
        CREATE TABLE fabric (
            id                  INTEGER PRIMARY KEY CHECK (id = 1),
            fabric_id           INTEGER NOT NULL CHECK (fabric_id <> 0),
            vendor_id           INTEGER NOT NULL CHECK (vendor_id BETWEEN 0 AND 65535),
            rcac_tlv            BLOB NOT NULL,
            rcac_der            BLOB NOT NULL,
            icac_tlv            BLOB,
            icac_der            BLOB,
            root_key_file       TEXT NOT NULL,
            icac_key_file       TEXT,
            ipk_epoch_key       BLOB NOT NULL CHECK (length(ipk_epoch_key) = 16),
            controller_node_id  INTEGER NOT NULL,
            controller_noc_tlv  BLOB NOT NULL,
            controller_noc_der  BLOB NOT NULL,
            controller_key_file TEXT NOT NULL,
            created_at          INTEGER NOT NULL,
            CHECK ((icac_tlv IS NULL) = (icac_key_file IS NULL))
        );
        CREATE TABLE structures (
            id         INTEGER PRIMARY KEY,
            name       TEXT NOT NULL,
            name_key   TEXT NOT NULL UNIQUE,
            created_at INTEGER NOT NULL
        );
        INSERT INTO structures (name, name_key, created_at) VALUES ('Home', 'home', CAST(strftime('%s','now') AS INTEGER));
        CREATE TABLE rooms (
            id           INTEGER PRIMARY KEY,
            structure_id INTEGER NOT NULL REFERENCES structures(id) ON DELETE CASCADE,
            name         TEXT NOT NULL,
            name_key     TEXT NOT NULL,
            created_at   INTEGER NOT NULL,
            UNIQUE (structure_id, name_key)
        );
        CREATE TABLE commissioning_sessions (
            id           INTEGER PRIMARY KEY,
            structure_id INTEGER NOT NULL REFERENCES structures(id) ON DELETE CASCADE,
            owner_pid    INTEGER NOT NULL,
            started_at   INTEGER NOT NULL,
            state        TEXT NOT NULL CHECK (state IN ('preparing', 'performing', 'completed', 'cancelled')),
            ended_at     INTEGER
        );
        CREATE UNIQUE INDEX one_active_commissioning_session ON commissioning_sessions ((1))
            WHERE state IN ('preparing', 'performing');
        CREATE TABLE nodes (
            node_id         INTEGER PRIMARY KEY,
            vendor_id       INTEGER NOT NULL CHECK (vendor_id BETWEEN 0 AND 65535),
            product_id      INTEGER NOT NULL CHECK (product_id BETWEEN 0 AND 65535),
            name            TEXT NOT NULL,
            room_id         INTEGER REFERENCES rooms(id) ON DELETE SET NULL,
            noc_serial      BLOB NOT NULL,
            commissioned_at INTEGER NOT NULL,
            session_id      INTEGER REFERENCES commissioning_sessions(id) ON DELETE SET NULL
        );
        CREATE INDEX nodes_by_room ON nodes (room_id);
        CREATE TABLE node_addresses (
            node_id         INTEGER NOT NULL REFERENCES nodes(node_id) ON DELETE CASCADE,
            position        INTEGER NOT NULL,
            host            TEXT NOT NULL,
            port            INTEGER NOT NULL CHECK (port BETWEEN 0 AND 65535),
            interface_index INTEGER,
            PRIMARY KEY (node_id, position)
        );
        CREATE TABLE commissioning_session_nodes (
            session_id INTEGER NOT NULL REFERENCES commissioning_sessions(id) ON DELETE CASCADE,
            node_id    INTEGER NOT NULL,
            PRIMARY KEY (session_id, node_id)
        );
        CREATE TABLE node_reservations (
            node_id     INTEGER PRIMARY KEY,
            owner_pid   INTEGER NOT NULL,
            session_id  INTEGER REFERENCES commissioning_sessions(id) ON DELETE CASCADE,
            reserved_at INTEGER NOT NULL
        );
        """,
        """
        CREATE TABLE pending_nodes (
            node_id         INTEGER PRIMARY KEY,
            noc             BLOB NOT NULL,
            vendor_id       INTEGER NOT NULL CHECK (vendor_id BETWEEN 0 AND 65535),
            product_id      INTEGER NOT NULL CHECK (product_id BETWEEN 0 AND 65535),
            name            TEXT,
            room_id         INTEGER REFERENCES rooms(id) ON DELETE SET NULL,
            host            TEXT NOT NULL,
            port            INTEGER NOT NULL CHECK (port BETWEEN 0 AND 65535),
            interface_index INTEGER,
            pended_at       INTEGER NOT NULL
        );
        CREATE TABLE attribute_values (
            node_id   INTEGER NOT NULL REFERENCES nodes(node_id) ON DELETE CASCADE,
            endpoint  INTEGER NOT NULL CHECK (endpoint BETWEEN 0 AND 65535),
            cluster   INTEGER NOT NULL,
            attribute INTEGER NOT NULL,
            value     BLOB NOT NULL,
            PRIMARY KEY (node_id, endpoint, cluster, attribute)
        ) WITHOUT ROWID;
        """,
        """
        CREATE TABLE node_connectivity (
            node_id   INTEGER NOT NULL REFERENCES nodes(node_id) ON DELETE CASCADE,
            at_ms     INTEGER NOT NULL,
            available INTEGER NOT NULL CHECK (available IN (0, 1)),
            reason    TEXT NOT NULL
        );
        CREATE INDEX node_connectivity_by_node ON node_connectivity (node_id, at_ms);
        """,
        """
        CREATE TABLE icd_registrations (
            node_id           INTEGER PRIMARY KEY REFERENCES nodes(node_id) ON DELETE CASCADE,
            check_in_node_id  INTEGER NOT NULL,
            monitored_subject INTEGER NOT NULL,
            key               BLOB NOT NULL CHECK (length(key) = 16),
            client_type       INTEGER NOT NULL CHECK (client_type IN (0, 1)),
            counter_start     INTEGER NOT NULL CHECK (counter_start BETWEEN 0 AND 4294967295),
            last_offset       INTEGER NOT NULL CHECK (last_offset BETWEEN 0 AND 4294967295),
            registered_at     INTEGER NOT NULL
        );
        """,
        """
        ALTER TABLE node_addresses ADD COLUMN reached_at INTEGER;
        """,
    ]
}
