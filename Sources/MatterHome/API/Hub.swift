import FoundationEssentials
import MatterCertificates
import MatterClusters
import MatterCommissioning
import MatterCrypto
import MatterDiscovery
import MatterInteraction
import MatterInteractionMessaging
import MatterMessaging
import MatterSecureChannel
import MatterSetupPayload
import MatterTLV
import MatterPlatform

/// The running hub: the store, the fabric, one UDP endpoint and the sessions to devices.
/// Shared by `Home`, `Structure` and `HomeMatterCommissioner` opened on the same state directory.
public actor Hub {
    public nonisolated let store: HubStore
    public let stateDirectory: String
    private var manager: ExchangeManager?
    private var fabricCache: HubFabric?
    private var caseSessions: [NodeID: SessionHandle] = [:]
    private var resumption: [NodeID: CASEResumptionRecord] = [:]
    package nonisolated let discovery: MatterDiscovery
    /// The network namespace the UDP socket opens in (e.g. /run/netns/NAME; nil: this process's).
    package nonisolated let netnsPath: String?

    public init(stateDirectory: String, discovery: MatterDiscovery = MatterDiscovery()) throws(HomeError) {
        try self.init(stateDirectory: stateDirectory, discovery: discovery, netnsPath: nil)
    }

    /// A hub whose Matter traffic leaves from another network namespace (the lab tests').
    package init(stateDirectory: String, discovery: MatterDiscovery, netnsPath: String?) throws(HomeError) {
        self.stateDirectory = stateDirectory
        self.discovery = discovery
        self.netnsPath = netnsPath
        do {
            store = try HubStore(directory: stateDirectory)
        } catch {
            throw HomeError("cannot open the hub's store in \(stateDirectory)", store: error)
        }
    }

    /// The hub's fabric, created on first use.
    public func fabric() throws(HomeError) -> HubFabric {
        if let f = fabricCache { return f }
        do {
            let f = try store.createFabricIfNeeded()
            fabricCache = f
            return f
        } catch {
            throw HomeError("cannot create or load the hub's fabric", store: error)
        }
    }

    /// Takes over another controller's fabric and devices in place of the hub's own fabric,
    /// which no device may hold (``HubStore/takeOverFabric(_:replacingUnusedFabric:)``); what was
    /// cached of the old fabric (its CASE sessions and resumption records) is forgotten.
    public func takeOverFabric(_ takeover: FabricTakeover) throws(HomeError) -> HubFabric {
        let f: HubFabric
        do { f = try store.takeOverFabric(takeover, replacingUnusedFabric: true) } catch {
            throw HomeError("cannot take over fabric \(takeover.authority.fabricID.rawValue)", store: error)
        }
        fabricCache = f
        caseSessions = [:]
        resumption = [:]
        return f
    }

    /// The commissioner's identity on the hub's fabric.
    package func commissionerIdentity() throws(HomeError) -> CommissionerIdentity {
        let f = try fabric()
        do {
            let controller = try FabricCredentials(
                fabricIndex: 1, rcac: f.rootCertificate.tlv, icac: f.intermediateCertificate?.tlv, noc: f.controllerNOCTLV,
                operationalKey: f.controllerKey, ipkEpochKey: f.ipkEpochKey)
            return CommissionerIdentity(authority: f.certificateAuthority, ipkEpochKey: f.ipkEpochKey,
                                        adminVendorID: f.vendorID, controller: controller)
        } catch {
            throw HomeError(.fabricUnusable, "the hub's fabric credentials are inconsistent: \(error)", underlying: error)
        }
    }

    /// The hub's messaging endpoint (one UDP socket, any free port).
    func exchangeManager() async throws(HomeError) -> ExchangeManager {
        if let m = manager { return m }
        do {
            let m = ExchangeManager(transport: try UDPTransport(port: 0, netnsPath: netnsPath))
            await m.start()
            manager = m
            return m
        } catch {
            throw HomeError(.hubUnavailable, "cannot open a UDP socket: \(error)", underlying: error)
        }
    }

    /// Checks that avahi-daemon answers (the hub finds devices through it).
    func checkDiscovery(timeout: Duration = .milliseconds(700)) async throws(HomeError) {
        let stream = discovery.commissionableNodes()
        let failure: DiscoveryError? = await first(within: timeout) {
            do { for try await _ in stream { return nil } } catch let e as DiscoveryError { return e } catch {}
            return nil
        }
        if let failure { throw HomeError(.hubUnavailable, failure.message, underlying: failure) }
    }

    /// Commissions the devices of one setup code (a concatenated QR code gives several), in
    /// parallel, each with a node ID reserved in the store; records each in the session.
    func commission(code: String, session: CommissioningSession, name: String?, room: RoomID?,
                    options: CommissioningOptions, onStep: @escaping @Sendable (Int, StepTiming) -> Void) async throws(HomeError)
        -> [Result<CommissioningResult, CommissioningError>] {
        let payloads: [SetupPayload]
        do { payloads = try SetupPayload.parse(code) } catch {
            throw HomeError(.invalidPayload, "invalid setup code: \(error.description)", underlying: error)
        }
        let identity = try commissionerIdentity()
        let manager = try await exchangeManager()
        let options = try withStoredNetworkCredentials(options)
        let commissioner = Commissioner(manager: manager, identity: identity, options: options,
                                        finder: DeviceFinder(discovery: discovery))
        var nodeIDs: [NodeID] = []
        for _ in payloads {
            do { nodeIDs.append(try store.allocateNodeID(for: session)) } catch {
                throw HomeError("cannot reserve a node ID", store: error)
            }
        }
        let store = self.store
        let results = await withTaskGroup(of: (Int, Result<CommissioningResult, CommissioningError>).self) { group in
            for (i, payload) in payloads.enumerated() {
                let nodeID = nodeIDs[i]
                group.addTask {
                    do throws(CommissioningError) {
                        let hooks = CommissioningHooks(onStep: { onStep(i, $0) }, willAddNOC: { installation throws in
                            let address = installation.address
                            try store.recordPendingNode(PendingNode(
                                nodeID: nodeID, noc: installation.noc.tlv, vendorID: installation.vendorID,
                                productID: installation.productID, name: name, roomID: room,
                                address: NodeAddress(host: address.ipText, port: address.port, interfaceIndex: address.interfaceIndex)))
                        })
                        let r = try await commissioner.commission(payload, nodeID: nodeID, hooks: hooks)
                        return (i, .success(r))
                    } catch {
                        return (i, .failure(error))
                    }
                }
            }
            var out = [Result<CommissioningResult, CommissioningError>?](repeating: nil, count: payloads.count)
            for await (i, r) in group { out[i] = r }
            return out.map { $0! }
        }
        for (i, r) in results.enumerated() {
            switch r {
            case .success(let c):
                caseSessions[c.nodeID] = c.caseSession
                let label = name.map { payloads.count > 1 ? "\($0) \(i + 1)" : $0 } ?? Self.defaultName(vendorID: c.vendorID, productID: c.productID)
                let address = NodeAddress(host: c.operationalAddress.ipText, port: c.operationalAddress.port,
                                          interfaceIndex: c.operationalAddress.interfaceIndex)
                do {
                    try store.recordCommissionedNode(CommissionedNode(
                        nodeID: nodeIDs[i], vendorID: c.vendorID, productID: c.productID, name: label, roomID: room,
                        addresses: [address], nocSerial: []), in: session)
                } catch {
                    throw HomeError("device \(c.nodeID.rawValue) was commissioned but could not be recorded", store: error)
                }
            case .failure:
                // The fail-safe was disarmed: the device rolled back whatever it was given.
                try? store.dropPendingNode(nodeIDs[i])
            }
        }
        return results
    }

    static func defaultName(vendorID: UInt16, productID: UInt16) -> String {
        String(printf: "Matter device %04X:%04X", vendorID, productID)
    }

    /// An interaction client on a CASE session with `nodeID`: the live session, or a new one at
    /// its last known address, or wherever operational discovery finds it.
    public func client(for nodeID: NodeID) async throws(HomeError) -> InteractionClient {
        let session = try await session(for: nodeID)
        return InteractionClient.over(try await exchangeManager(), session: session)
    }

    /// A CASE session with `nodeID`: the live one, else a new one (resumed where the device
    /// allows it) at its last known address, else wherever `_matter._tcp` finds it; with
    /// `resolveAddress`, the live session is dropped and the discovered addresses are tried
    /// first (the node may have moved or restarted).
    package func session(for nodeID: NodeID, resolveAddress: Bool = false) async throws(HomeError) -> SessionHandle {
        let manager = try await exchangeManager()
        if resolveAddress, let stale = caseSessions.removeValue(forKey: nodeID) {
            // It moved or restarted: the session it had is gone on its side.
            await manager.removeSession(stale)
        }
        if let s = caseSessions[nodeID], await manager.secureSession(s) != nil { return s }
        let identity = try commissionerIdentity()
        guard let record = try? store.node(nodeID) else {
            throw HomeError(.deviceNotFound, "no device with node ID \(nodeID.rawValue) in this home (see 'matterctl devices')")
        }
        let known = record.addresses.compactMap { PeerAddress($0.host, port: $0.port, interfaceIndex: $0.interfaceIndex ?? 0) }
        var lastError = "no known address"
        // The `_matter._tcp` resolve starts alongside the known addresses when they have not
        // answered within a stagger (an answer before that cancels it: 200 nodes reconnecting at
        // once start no browse at all), and right away when the node is known to have moved.
        let cfid = try? identity.compressedFabricID().rawValue
        let discovery = Task { () async -> [PeerAddress] in
            if !resolveAddress, (try? await Task.sleep(for: Self.caseStagger)) == nil { return [] }
            guard let cfid else { return [] }
            return await self.operationalAddresses(cfid: cfid, nodeID: nodeID)
        }
        defer { discovery.cancel() }
        if !resolveAddress,
           let session = await establishCASE(nodeID, identity, at: known, recorded: record.addresses, lastError: &lastError) {
            return session
        }
        let discovered = await discovery.value
        let untried = resolveAddress ? discovered + known : discovered.filter { !known.contains($0) }
        if let session = await establishCASE(nodeID, identity, at: untried, recorded: record.addresses, lastError: &lastError) {
            return session
        }
        throw HomeError(.deviceUnreachable, "cannot reach device 0x\(nodeID.paddedHex) (\(record.name)): \(lastError); check that it is powered and on this network")
    }

    /// CASE with `nodeID` at the first of `candidates` that answers; remembers the session,
    /// its resumption record and the address (written only when it differs from `recorded`:
    /// every store write is synced to disk, and 200 nodes reconnecting wrote 200 unchanged rows).
    ///
    /// The candidates are tried in parallel, staggered as Happy Eyeballs does (RFC 8305): the
    /// next one starts when the one before fails or after ``caseStagger`` without an answer, at
    /// most ``maxCASEAttempts`` at once; the first session wins and the others are cancelled (a
    /// stale address first in the list costs a stagger, not a whole handshake timeout).
    private func establishCASE(_ nodeID: NodeID, _ identity: CommissionerIdentity, at candidates: [PeerAddress],
                               recorded: [NodeAddress] = [], lastError: inout String) async -> SessionHandle? {
        guard let manager, !candidates.isEmpty else { return nil }
        let fabric = identity.controller, record = resumption[nodeID]
        enum Event: Sendable {
            case attempt(PeerAddress, Result<CASEInitiator.Result, SecureChannelError>)
            case stagger
        }
        let (won, errors) = await withTaskGroup(of: Event.self) { group -> (CASEInitiator.Result?, [(PeerAddress, String)]) in
            var next = 0, inFlight = 0, errors: [(PeerAddress, String)] = []
            func startNext() {
                guard next < candidates.count, inFlight < Self.maxCASEAttempts else { return }
                let address = candidates[next]
                next += 1
                inFlight += 1
                group.addTask {
                    do throws(SecureChannelError) {
                        return .attempt(address, .success(try await CASEInitiator.establish(
                            manager: manager, peer: address, fabric: fabric, peerNodeID: nodeID.rawValue, resumption: record,
                            timeout: .seconds(5))))
                    } catch {
                        return .attempt(address, .failure(error))
                    }
                }
                if next < candidates.count {
                    group.addTask {
                        try? await Task.sleep(for: Self.caseStagger)
                        return .stagger
                    }
                }
            }
            startNext()
            var winner: CASEInitiator.Result?
            while let event = await group.next() {
                switch event {
                case .stagger:
                    if winner == nil { startNext() }
                case .attempt(let address, .failure(let error)):
                    inFlight -= 1
                    // A cancelled loser did not fail: only real failures count against an address.
                    if winner == nil { errors.append((address, error.description)) }
                    if winner == nil { startNext() }
                case .attempt(_, .success(let r)):
                    inFlight -= 1
                    if winner == nil {
                        winner = r
                        group.cancelAll()
                    } else {
                        await manager.removeSession(r.session)  // a second address answered too
                    }
                }
            }
            return (winner, errors)
        }
        guard let r = won else {
            lastError = errors.last?.1 ?? lastError
            return nil
        }
        caseSessions[nodeID] = r.session
        resumption[nodeID] = r.resumption
        if let p = await manager.secureSession(r.session)?.peerAddress {
            let reached = NodeAddress(host: p.ipText, port: p.port, interfaceIndex: p.interfaceIndex, reachedAt: Date())
            let failed = errors.map { NodeAddress(host: $0.0.ipText, port: $0.0.port) }
            if let remembered = Self.remembered(reached: reached, recorded: recorded, failed: failed) {
                try? store.updateAddresses(remembered, for: nodeID)
            }
        }
        return r.session
    }

    /// The addresses to keep after the node was `reached` at one (nil: the stored ones stand):
    /// that one first, then the others known before that did not fail now (a node on two
    /// networks keeps both; one that moved loses the dead one) and were reached within
    /// ``forgetAddressAfter``. Written only when the list changed or the reached address's time
    /// is ``reachedAtRefresh`` old: every store write is synced to disk, and 200 nodes
    /// reconnecting wrote 200 unchanged rows.
    static func remembered(reached: NodeAddress, recorded: [NodeAddress], failed: [NodeAddress]) -> [NodeAddress]? {
        let now = reached.reachedAt ?? Date()
        let kept = recorded.filter { a in
            !a.isSameEndpoint(as: reached) && !failed.contains(where: { $0.host == a.host && $0.port == a.port })
                && (a.reachedAt.map { now.timeIntervalSince($0) <= forgetAddressAfter } ?? true)
        }
        let remembered = Array(([reached] + kept).prefix(rememberedAddresses))
        let unchanged = remembered.count == recorded.count && zip(remembered, recorded).allSatisfy { $0.isSameEndpoint(as: $1) }
        if unchanged, let before = recorded.first?.reachedAt, now.timeIntervalSince(before) < reachedAtRefresh { return nil }
        return remembered
    }

    /// An address the node was not reached at for this long is forgotten.
    static let forgetAddressAfter: TimeInterval = 30 * 24 * 3600
    /// How stale the stored time of an unchanged address list may get before it is written again.
    static let reachedAtRefresh: TimeInterval = 24 * 3600

    /// How long a CASE attempt gets before the next address is tried alongside it.
    static let caseStagger: Duration = .milliseconds(300)
    /// CASE attempts to one node in flight at once.
    static let maxCASEAttempts = 3
    /// Addresses remembered per node, most recently reached first.
    static let rememberedAddresses = 4

    /// What became of a node left pending by a crash.
    package enum Reconciliation: Sendable, Equatable {
        /// It answered CASE on our fabric: commissioning was completed and it is a device now.
        case completed
        /// It did not answer: it rolled back (or never got its certificate); it was forgotten.
        case dropped
    }

    /// Reconciles the nodes a crash left pending (call once, before commissioning anything):
    /// one that answers CASE on our fabric is sent CommissioningComplete (its fail-safe may still
    /// be armed) and recorded; one that does not is dropped, with its node ID.
    package func reconcilePendingNodes() async -> [NodeID: Reconciliation] {
        guard let pending = try? store.pendingNodes(), !pending.isEmpty,
              let identity = try? commissionerIdentity(), let manager = try? await exchangeManager() else { return [:] }
        var outcome: [NodeID: Reconciliation] = [:]
        for node in pending {
            var candidates = PeerAddress(node.address.host, port: node.address.port, interfaceIndex: node.address.interfaceIndex ?? 0)
                .map { [$0] } ?? []
            var lastError = ""
            var session = await establishCASE(node.nodeID, identity, at: candidates, lastError: &lastError)
            if session == nil, let cfid = try? identity.compressedFabricID().rawValue {
                candidates = await operationalAddresses(cfid: cfid, nodeID: node.nodeID)
                session = await establishCASE(node.nodeID, identity, at: candidates, lastError: &lastError)
            }
            guard let session else {
                try? store.dropPendingNode(node.nodeID)
                outcome[node.nodeID] = .dropped
                continue
            }
            // Commits the fabric if the fail-safe is still armed; a device that already
            // committed answers NoFailSafe, which is as good.
            let client = InteractionClient.over(manager, session: session, timeout: .seconds(5))
            _ = try? await client.invoke(Clusters.GeneralCommissioning.CommissioningComplete(), endpoint: 0)
            let address = await manager.secureSession(session)?.peerAddress
            let addresses = address.map { [NodeAddress(host: $0.ipText, port: $0.port, interfaceIndex: $0.interfaceIndex)] } ?? [node.address]
            let name = node.name ?? Self.defaultName(vendorID: node.vendorID, productID: node.productID)
            if (try? store.completePendingNode(node.nodeID, name: name, addresses: addresses)) != nil {
                outcome[node.nodeID] = .completed
            }
        }
        return outcome
    }

    /// Forgets the session with `nodeID` (it failed, or its subscription lapsed), telling the
    /// node (CloseSession, best effort) so that it frees the slot: a device keeps only a few
    /// sessions, and the next CASE would otherwise sit beside a dead one.
    package func dropSession(for nodeID: NodeID) async {
        guard let session = caseSessions.removeValue(forKey: nodeID) else { return }
        await manager?.closeSession(session)
    }

    /// The hub's messaging endpoint, for the node runtime's report handler.
    package func messaging() async throws(HomeError) -> ExchangeManager {
        try await exchangeManager()
    }

    func operationalAddresses(cfid: UInt64, nodeID: NodeID, timeout: Duration = .seconds(3)) async -> [PeerAddress] {
        await DeviceFinder(discovery: discovery).operationalAddresses(compressedFabricID: cfid, nodeID: nodeID, timeout: timeout) ?? []
    }

    func dropSession(_ nodeID: NodeID) async {
        if let s = caseSessions.removeValue(forKey: nodeID) { await manager?.closeSession(s) }
        resumption[nodeID] = nil
    }

    /// Closes the hub's sockets.
    public func shutdown() async {
        await manager?.shutdown()
        manager = nil
    }
}
