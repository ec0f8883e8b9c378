import FoundationEssentials
import MatterClusters
import MatterCrypto
import MatterHome
import MatterInteraction
import MatterMessaging
import MatterServerAPI
import MatterTLV

/// Sleepy devices (ICDs, Matter Core 9.16 and 4.18) and matterjs-server's ICD commands: the hub
/// registers with a node's ICD Management cluster (a random 16-byte key, the hub's node ID as
/// check-in node and monitored subject), keeps the registration in its store, checks every
/// Check-In that arrives, and keeps the node available while it keeps its schedule
/// (``NodeLifecycle``); requests to it wait for its next wake.
extension HubService {
    typealias ICD = Clusters.IcdManagement

    /// The vendors whose fabrics do not count against `register_icd` (matterjs-server's default:
    /// Apple, SmartThings, the Open Home Foundation), replaced by a client's `ignored_vendors`.
    static let icdDefaultIgnoredVendors: [UInt16] = [0x1384, 0x110A, 0x134B]

    // MARK: Check-Ins

    func checkInArrived(_ payload: [UInt8], from address: PeerAddress) async {
        switch await icdCheckIns.receive(payload) {
        case .accepted(let node, let offset, let refreshKey):
            logger("hub: node \(node.rawValue) checked in (counter offset \(offset))")
            await runtime.checkIn(node)
            if refreshKey { Task { await self.refreshICDKey(node) } }
        case .replayed(let node, let offset, let last):
            logger("hub: a Check-In of node \(node.rawValue) with counter offset \(offset) (accepted up to \(last)) was a replay; ignored")
        case .unknown:
            // From a node the hub knows (one that keeps a stale registration, after resync_icd):
            // unread, but it says the node is awake now; a reconnection waiting for it goes now.
            if await icdCheckIns.mayLookUpSender(), let node = knownNode(at: address) {
                logger("hub: node \(node.rawValue) sent a Check-In under a key the hub no longer holds; it is awake, connecting now")
                await runtime.deviceAnnounced(node)
            } else if let count = await icdCheckIns.ignoredOne() {
                logger("hub: \(count) Check-In\(count == 1 ? "" : "s") that no registration's key opens ignored (another controller's, or forged)")
            }
        }
    }

    /// The commissioned node last reached at `address` (its IP, any port).
    private func knownNode(at address: PeerAddress) -> NodeID? {
        ((try? hub.store.nodes()) ?? []).first { record in
            record.addresses.contains { PeerAddress($0.host, port: $0.port)?.ip == address.ip }
        }?.nodeID
    }

    /// Puts the registered nodes' schedules in the runtime (at start).
    func restoreICDSchedules() async {
        for node in await icdCheckIns.registeredNodes {
            await runtime.setICDSchedule(node, Self.icdSchedule(await runtime.attributes(of: node)))
        }
    }

    /// IdleModeDuration (s) and ActiveModeDuration (ms) from the node's cached values (the
    /// cluster's defaults when absent: one hour, 300 ms).
    static func icdSchedule(_ cache: [ConcreteAttributePath: TLVElement]) -> NodeLifecycle.ICDSchedule {
        func value(_ a: AttributeID) -> UInt64? { try? cache[ConcreteAttributePath(0, .icdManagement, a)]?.unsigned(as: UInt64.self) }
        let idle = min(value(ICD.Attribute.idleModeDuration) ?? 3600, 86_400)
        let active = min(value(ICD.Attribute.activeModeDuration) ?? 300, 3_600_000)
        return NodeLifecycle.ICDSchedule(idle: Milliseconds(idle) * 1000, active: Milliseconds(active))
    }

    /// A node that can sleep for long (LIT-capable) gets the hub's registration as soon as it is
    /// commissioned, as Apple's and matterjs-server's controllers register with theirs: without
    /// it, a sleeping device would look dead. Other fabrics do not matter here (the user added
    /// the device to this hub); a failure is logged and `register_icd` can try again.
    func registerIfLongIdle(_ id: NodeID) async {
        let cache = await runtime.attributes(of: id)
        guard Self.supportsLIT(cache), await icdCheckIns.registration(of: id) == nil else { return }
        do { _ = try await registerICD(id, allowMultiAdmin: true, ignoredVendors: nil) } catch {
            logger("hub: node \(id.rawValue) can sleep for long but the hub could not register for its Check-Ins: \(error.details)")
        }
    }

    /// A node that came back operating as LIT (it holds a registration, perhaps a stale one of
    /// the hub's after `resync_icd`) while the hub holds none registers again, as matterjs-server's
    /// controller does; a node the user unregistered operates as SIT and is left alone.
    func reregisterIfOperatingAsLIT(_ id: NodeID) async {
        let cache = await runtime.attributes(of: id)
        let mode = try? cache[ConcreteAttributePath(0, .icdManagement, ICD.Attribute.operatingMode)]?.unsigned(as: UInt8.self)
        guard mode == 1, Self.supportsLIT(cache), await icdCheckIns.registration(of: id) == nil else { return }
        do { _ = try await registerICD(id, allowMultiAdmin: true, ignoredVendors: nil) } catch {
            logger("hub: node \(id.rawValue) operates as LIT but the hub could not register for its Check-Ins: \(error.details)")
        }
    }

    // MARK: Commands

    func icdState(_ id: NodeID) async throws(APIError) -> JSONValue {
        try requireKnownNode(id)
        let cache = await runtime.attributes(of: id)
        guard Self.hasICDManagement(cache) else {
            return .object(["supported": .bool(false), "lit_supported": .bool(false), "registered": .bool(false),
                            "operating_mode": .null, "awake": .null, "available": .null, "next_expected_checkin": .null])
        }
        let registered = await icdCheckIns.registration(of: id) != nil
        let mode = (try? cache[ConcreteAttributePath(0, .icdManagement, ICD.Attribute.operatingMode)]?.unsigned(as: UInt8.self)) == 1
        let next = registered ? await runtime.nextExpectedCheckIn(id) : nil
        let awake = registered ? await runtime.isAwake(id) : true
        let available = await runtime.isAvailable(id)
        let nextMs: JSONValue = next.map { .integer(Int64(($0.timeIntervalSince1970 * 1000).rounded())) } ?? .null
        var o = JSONObject()
        o.append("supported", .bool(true))
        o.append("lit_supported", .bool(Self.supportsLIT(cache)))
        o.append("registered", .bool(registered))
        o.append("operating_mode", .string(mode ? "LIT" : "SIT"))
        o.append("awake", .bool(awake))
        o.append("available", .bool(available))
        o.append("next_expected_checkin", nextMs)
        return .object(o)
    }

    func registerICD(_ id: NodeID, allowMultiAdmin: Bool, ignoredVendors: [UInt16]?) async throws(APIError) -> JSONValue {
        let cache = try await icdCache(id)
        guard await icdCheckIns.registration(of: id) == nil else {
            throw APIError(.unknownError, "node \(id.rawValue) is already registered for Check-Ins with this hub; unregister_icd or resync_icd first")
        }
        let features = (try? cache[ConcreteAttributePath(0, .icdManagement, .featureMap)]?.unsigned(as: UInt32.self)) ?? 0
        guard ICD.Feature(rawValue: features).contains(.checkInProtocolSupport) else {
            throw APIError(.unknownError, "node \(id.rawValue) does not support the Check-In Protocol (ICD Management FeatureMap has no CIP)")
        }
        try await requireReadyNode(id)
        let client = try await client(id)
        if !allowMultiAdmin { try await refuseMultiAdmin(id, client: client, ignored: ignoredVendors ?? Self.icdDefaultIgnoredVendors) }
        let hubNode = await node.nodeID
        let key = SecureRandom.bytes(16)
        let counter = try await registerClient(id, client: client, hubNode: hubNode, key: key, verificationKey: nil)
        do {
            try await icdCheckIns.save(ICDRegistration(nodeID: id, checkInNodeID: hubNode, monitoredSubject: hubNode,
                                                       key: SecretBytes(key), counterStart: counter))
        } catch {
            throw APIError(.unknownError, "node \(id.rawValue) took the registration but the hub could not store it: \(error)")
        }
        await runtime.setICDSchedule(id, Self.icdSchedule(cache))
        logger("hub: registered for node \(id.rawValue)'s Check-Ins (ICDCounter \(counter))")
        await announceICDChange(id)
        return try await icdState(id)
    }

    func unregisterICD(_ id: NodeID, force: Bool) async throws(APIError) -> JSONValue {
        _ = try await icdCache(id)
        guard let registration = await icdCheckIns.registration(of: id) else { return try await icdState(id) }
        // The local registration goes whatever the device answers (as matterjs-server's): a
        // device that cannot be reached must not keep the hub waiting for its Check-Ins.
        defer { Task { await self.forgetICD(id) } }
        if !force {
            try await requireReadyNode(id)
            let fields = TLVElement.structure([
                .unsigned(.context(ICD.UnregisterClientTag.checkInNodeID), registration.checkInNodeID),
                .bytes(.context(ICD.UnregisterClientTag.verificationKey), registration.key.bytes),
            ])
            try await invokeICD(id, ICD.Command.unregisterClient, fields)
        }
        await forgetICD(id)
        await announceICDChange(id)
        return try await icdState(id)
    }

    /// Forgets the registration here only and connects again (the device keeps a stale entry
    /// until it is registered anew).
    func resyncICD(_ id: NodeID) async throws(APIError) -> JSONValue {
        _ = try await icdCache(id)
        await forgetICD(id)
        await runtime.deviceRestarted(id)
        return .null
    }

    // MARK: Helpers

    private func forgetICD(_ id: NodeID) async {
        await icdCheckIns.forget(id)
        await runtime.setICDSchedule(id, nil)
    }

    /// Error 5 for a node the hub does not hold (a store lookup, not the node's whole data: a
    /// bridge's is thousands of values).
    private func requireKnownNode(_ id: NodeID) throws(APIError) {
        guard (try? hub.store.node(id)) != nil else { throw APIError(.nodeNotExists, "Node \(id.rawValue) does not exist") }
    }

    /// The node's cache, after checking it exists (5) and has ICD Management (0).
    private func icdCache(_ id: NodeID) async throws(APIError) -> [ConcreteAttributePath: TLVElement] {
        try requireKnownNode(id)
        let cache = await runtime.attributes(of: id)
        guard Self.hasICDManagement(cache) else {
            throw APIError(.unknownError, "node \(id.rawValue) has no ICD Management cluster on endpoint 0: it is not a sleepy device")
        }
        return cache
    }

    static func hasICDManagement(_ cache: [ConcreteAttributePath: TLVElement]) -> Bool {
        let servers = cache[ConcreteAttributePath(0, .descriptor, Clusters.Descriptor.Attribute.serverList)]?.members ?? []
        return servers.contains { (try? $0.unsigned(as: UInt32.self)) == ClusterID.icdManagement.rawValue }
            || cache.keys.contains { $0.endpoint == 0 && $0.cluster == .icdManagement }
    }

    /// LITS in the FeatureMap and a device of Matter 1.4 or later (matterjs-server's rule).
    static func supportsLIT(_ cache: [ConcreteAttributePath: TLVElement]) -> Bool {
        let features = (try? cache[ConcreteAttributePath(0, .icdManagement, .featureMap)]?.unsigned(as: UInt32.self)) ?? 0
        let spec = (try? cache[ConcreteAttributePath(0, .basicInformation, Clusters.BasicInformation.Attribute.specificationVersion)]?
            .unsigned(as: UInt32.self)) ?? 0
        return ICD.Feature(rawValue: features).contains(.longIdleTimeSupport) && spec >= 0x0104_0000
    }

    /// Error 100 when more than one administering fabric belongs to a vendor not in `ignored`
    /// (they may not support LIT), with matterjs-server's details.
    private func refuseMultiAdmin(_ id: NodeID, client: InteractionClient, ignored: [UInt16]) async throws(APIError) {
        var unfiltered = client
        unfiltered.isFabricFiltered = false
        let fabrics: TLVElement
        do {
            fabrics = try await unfiltered.readAttribute(ConcreteAttributePath(0, .operationalCredentials,
                                                                               Clusters.OperationalCredentials.Attribute.fabrics))
        } catch {
            throw APIError.device(error, "reading node \(id.rawValue)'s fabrics")
        }
        let vendors = fabrics.members.compactMap {
            try? $0.required(Clusters.OperationalCredentials.FabricDescriptorStructTag.vendorID).unsigned(as: UInt16.self)
        }
        if let refusal = Self.multiAdminRefusal(fabricVendors: vendors, ignored: ignored) { throw refusal }
    }

    /// matterjs-server's error 100: more than one fabric of a vendor not in `ignored`; the
    /// details a JSON string with the message and the distinct vendor IDs.
    static func multiAdminRefusal(fabricVendors: [UInt16], ignored: [UInt16]) -> APIError? {
        let counted = fabricVendors.filter { !ignored.contains($0) }
        guard counted.count > 1 else { return nil }
        var distinct: [UInt16] = []
        for v in counted where !distinct.contains(v) { distinct.append(v) }
        let details: JSONValue = .object(["message": .string("Peer has administrators from other vendors that may not support LIT"),
                                          "admin_vendor_ids": .array(distinct.map { .integer($0) })])
        return APIError(.icdMultiAdmin, JSONWriter.string(details))
    }

    /// RegisterClient; the device's ICDCounter.
    private func registerClient(_ id: NodeID, client: InteractionClient, hubNode: UInt64, key: [UInt8],
                                verificationKey: [UInt8]?) async throws(APIError) -> UInt32 {
        typealias T = ICD.RegisterClientTag
        var fields: [TLVElement] = [.unsigned(.context(T.checkInNodeID), hubNode), .unsigned(.context(T.monitoredSubject), hubNode),
                                    .bytes(.context(T.key), key)]
        if let verificationKey { fields.append(.bytes(.context(T.verificationKey), verificationKey)) }
        fields.append(.unsigned(.context(T.clientType), UInt8(0)))
        let result: InvokeResult
        do {
            result = try await client.invoke(commandPath: CommandPathIB(0, .icdManagement, ICD.Command.registerClient),
                                             fields: .structure(fields))
        } catch {
            throw APIError.device(error, "RegisterClient on node \(id.rawValue)")
        }
        switch result {
        case .response(let data):
            guard let counter = try? data.fields?.required(ICD.RegisterClientResponseTag.icdCounter).unsigned(as: UInt32.self) else {
                throw APIError(.unknownError, "node \(id.rawValue) answered RegisterClient without an ICDCounter")
            }
            return counter
        case .status(let s):
            throw APIError(.unknownError, "node \(id.rawValue) refused RegisterClient: \(s)")
        }
    }

    private func invokeICD(_ id: NodeID, _ command: CommandID, _ fields: TLVElement) async throws(APIError) {
        let client = try await client(id)
        let path = CommandPathIB(0, .icdManagement, command)
        let result: InvokeResult
        do { result = try await client.invoke(commandPath: path, fields: fields) } catch {
            throw APIError.device(error, "ICD Management command \(command) on node \(id.rawValue)")
        }
        if case .status(let s) = result, let e = s.error(at: .command(path)) {
            throw APIError.device(e, "ICD Management command \(command) on node \(id.rawValue)")
        }
    }

    /// A new key when the counter offset passed 2^31 (Matter Core 4.18.7): RegisterClient with
    /// the old key as VerificationKey; the counter starts again from the device's answer.
    func refreshICDKey(_ id: NodeID) async {
        guard let old = await icdCheckIns.registration(of: id), let client = try? await client(id) else { return }
        let key = SecureRandom.bytes(16)
        do {
            let counter = try await registerClient(id, client: client, hubNode: old.checkInNodeID, key: key, verificationKey: old.key.bytes)
            try? await icdCheckIns.save(ICDRegistration(nodeID: id, checkInNodeID: old.checkInNodeID, monitoredSubject: old.monitoredSubject,
                                                        key: SecretBytes(key), counterStart: counter))
            logger("hub: node \(id.rawValue)'s Check-In key was refreshed")
        } catch {
            logger("hub: node \(id.rawValue)'s Check-In key could not be refreshed: \(error); tried again at its next Check-In")
        }
    }

    private func announceICDChange(_ id: NodeID) async {
        if let data = try? await nodeData(id) { publish(.nodeUpdated(data)) }
        await announceDevice(id.rawValue)
    }

    /// Holds a request for a sleepy node until it wakes (its next Check-In or report), at
    /// most until a little after its next expected Check-In; error 3 when it did not wake.
    func awaitAwake(_ id: NodeID) async throws(APIError) {
        guard await !runtime.isAwake(id) else { return }
        let next = await runtime.nextExpectedCheckIn(id) ?? Date()
        let wait = min(600, max(30, next.timeIntervalSinceNow + 15))
        logger("hub: node \(id.rawValue) is asleep; the request waits for its next check-in (due by \(NodeDataBuilder.isoTimestamp(next))Z)")
        guard await runtime.waitUntilAwake(id, timeout: .milliseconds(Int64(wait * 1000))) else {
            throw APIError(.nodeNotReady, """
                Node \(id.rawValue) is asleep (a sleepy device) and did not wake within \(Int(wait)) s; the request was not sent. \
                Send it again once the node checks in.
                """)
        }
    }
}
