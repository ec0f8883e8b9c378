import MatterHome
import MatterMigration
import MatterServerAPI

/// `matterhub/import`: a home moved onto a running hub that holds no devices yet (a new install),
/// from the other server's storage on the hub's machine. A dry run first; the import itself only
/// with the dry run's token, so what is imported is what the user was shown. The hub's own
/// fabric, made at its first start and on no device, is replaced by the one taken over, and the
/// imported nodes are brought up as at a start.
extension HubService {
    /// Where the API server is told to make its listeners reconnect (all but the connection that
    /// asked for the import).
    public func setListenerRestart(_ restart: @escaping @Sendable (UInt64?) -> Void) { extensionState.listenerRestart.set(restart) }

    func importHome(_ kind: ImportSourceKind, path: String, fabricID: UInt64?, confirm: String?,
                    connection: UInt64?) async throws(HomeError) -> JSONValue {
        let plan: ImportPlan
        do { plan = try ImportPlan.read(kind, path, fabricID: fabricID) } catch {
            throw HomeError(.importRefused, "\(error.description) (\(error.code))", underlying: error)
        }
        let token = plan.confirmationToken
        guard let confirm else {
            try refuseUnlessEmpty()
            return .object(["dry_run": .bool(true), "confirm": .string(token), "plan": plan.json])
        }
        guard confirm == token else {
            throw HomeError(.importRefused, """
                the storage in \(path) no longer gives the plan that was confirmed (it changed since the dry run, or the \
                token is from another one). Run the dry run again and confirm what it shows; stop the other server first, \
                it rewrites its files while running.
                """)
        }
        try refuseUnlessEmpty()
        let fabric = try await hub.takeOverFabric(plan.takeover)
        let cfid: UInt64
        do { cfid = try fabric.compressedFabricID().rawValue } catch {
            throw HomeError(.fabricUnusable, "the imported fabric has no valid root key: \(error)", underlying: error)
        }
        await advertWatch.retarget(compressedFabricID: cfid)
        await node.retarget(credentials: try await hub.commissionerIdentity().controller, compressedFabricID: cfid, vendorID: fabric.vendorID)
        // Clients key devices by the compressed fabric ID, and OHF clients (Home Assistant's)
        // read it once, at connect, ignoring server_info_updated: they are made to reconnect.
        publish(.serverInfoUpdated(updateInfo {
            $0.fabricID = fabric.fabricID.rawValue
            $0.compressedFabricID = cfid
        }))
        extensionState.listenerRestart(connection)
        let records = (try? hub.store.nodes()) ?? []
        for record in records {
            // Added to the runtime first (it loads the imported values), announced with them
            // before any update about the node (held back until then).
            announcing(record.nodeID, true)
            await runtime.add(record.nodeID)
            publish(.nodeAdded(await nodeData(record)))
            announcing(record.nodeID, false)
            await announceDevice(record.nodeID.rawValue)
        }
        logger("hub: imported \(records.count) node\(records.count == 1 ? "" : "s") from \(kind.rawValue) storage \(path) "
               + "(fabric \(fabric.fabricID.rawValue))")
        return .object(["dry_run": .bool(false), "imported": .integer(records.count), "fabric_id": .integer(fabric.fabricID.rawValue),
                        "compressed_fabric_id": .integer(cfid), "plan": plan.json])
    }

    /// An import replaces the hub's fabric: only while no device is on it or joining it.
    private func refuseUnlessEmpty() throws(HomeError) {
        let count: Int
        let session: CommissioningSessionRecord?
        do {
            count = try hub.store.nodes().count
            session = try hub.store.activeCommissioningSession()
        } catch {
            throw HomeError("cannot read the hub's devices", store: error)
        }
        guard count == 0 else {
            throw HomeError(.importRefused, """
                the hub already holds \(count) device\(count == 1 ? "" : "s"); a home is moved in only onto a hub with none. \
                Import into a new state directory with 'matterctl --state DIR import' (the hub stopped), or remove the devices first.
                """)
        }
        guard session == nil else {
            throw HomeError(.commissioningSessionActive, "a commissioning session is active; finish or cancel it before moving a home in")
        }
    }
}
