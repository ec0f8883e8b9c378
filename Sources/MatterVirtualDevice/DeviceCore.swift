import MatterCertificates
import MatterClusters
import MatterCrypto
import MatterInteraction
import MatterMessaging
import MatterSecureChannel
import MatterTLV

/// An open commissioning window: the verifier PASE answers with and the discriminator advertised.
struct CommissioningWindow: Sendable {
    enum Kind: Sendable { case basic, enhanced }
    var kind: Kind
    var verifier: PASEVerifier
    var salt: [UInt8]
    var iterations: UInt32
    var discriminator: UInt16
}

/// What the device core tells its I/O shell (the `VirtualDevice` actor).
struct DeviceHooks: Sendable {
    /// The fabrics CASE should answer for (committed and staged) changed.
    var fabricsChanged: @Sendable ([FabricRecord]) async -> Void = { _ in }
    /// A window opened (non-nil) or closed (nil).
    var windowChanged: @Sendable (CommissioningWindow?) async -> Void = { _ in }
    /// The attestation challenge of a secure session, by our local session ID.
    var attestationChallenge: @Sendable (UInt16) async -> [UInt8]? = { _ in nil }
    /// AddNOC succeeded (its response is about to be sent).
    var nocAdded: @Sendable () async -> Void = {}
    /// The fail-safe timer expired (after the rollback): commissioning sessions must end.
    var failSafeExpired: @Sendable () async -> Void = {}
    /// A cluster's attributes changed (its data version moved), for subscriptions.
    var clusterChanged: @Sendable (EndpointID, ClusterID) async -> Void = { _, _ in }
    /// The simulated interface joined or left the operational network.
    var networkChanged: @Sendable (Bool) async -> Void = { _ in }
    /// AnnounceOTAProvider came (provider node, its endpoint, the fabric, our session ID): the
    /// requestor's update runs (``OTAUpdate``).
    var otaAnnounced: @Sendable (UInt64, EndpointID, UInt8, UInt16) async -> Void = { _, _, _, _ in }
}

/// The fail-safe context (Matter Core 11.10.7.2): what AddTrustedRootCertificate, CSRRequest and
/// AddNOC staged since arming, rolled back on expiry or ArmFailSafe(0).
struct FailSafe: Sendable {
    var generation: UInt64
    /// The fabric that armed it (nil: a PASE session not yet bound to a fabric).
    var armingFabric: UInt8?
    var pendingRoot: [UInt8]?
    var pendingKey: P256PrivateKey?
    var addedFabric: UInt8?
    /// The simulated interface's networks before the first change under this fail-safe.
    var networkSnapshot: SimulatedNetworkInterface.Snapshot?
    /// When it was first armed, on the device's clock.
    var firstArmed: Milliseconds
    var timer: Task<Void, Never>?
}

/// The device's data model and commissioning logic, free of sockets: an `InteractionDevice`
/// the `InteractionServer` calls, with hooks out to the I/O shell.
actor DeviceCore: InteractionDevice {
    /// BasicInformation SoftwareVersion (and the StartUp event's field).
    static let softwareVersion: UInt32 = 1
    let vendorID: UInt16
    let productID: UInt16
    nonisolated let kind: VirtualDeviceConfiguration.Kind
    /// Its endpoints and clusters (a bridge's change with its lights).
    private(set) var shape: DeviceShape {
        didSet { dataModel = DeviceDataModel.dataModel(shape: shape) }
    }
    /// Its endpoints and clusters, from `shape`.
    private(set) var dataModel: DataModel
    /// A bridge's bridged lights: on or off, by endpoint (not kept across restarts).
    var bridgedOn: [EndpointID: Bool] = [:]
    /// Names clients gave bridged lights (not kept across restarts).
    var bridgedLabels: [EndpointID: String] = [:]
    /// Network Commissioning's InterfaceEnabled as written (not kept across restarts).
    var interfaceEnabled = true
    /// `--kind thermostat`'s Thermostat cluster on endpoint 1.
    var thermostat: ThermostatState?
    nonisolated let network: VirtualDeviceConfiguration.Network?
    /// The simulated Wi-Fi or Thread interface (nil: Ethernet).
    var radio: SimulatedNetworkInterface?
    /// What the radio reports in Thread or Wi-Fi Network Diagnostics.
    var radioDiagnostics: RadioDiagnostics
    /// `--software-version`: the version it came with, and it is an OTA requestor (nil: 1, no OTA).
    nonisolated let configuredSoftwareVersion: UInt32?
    nonisolated let maxPathsPerInvoke: UInt16
    var ota = OTARequestorState()
    /// An OTA fault (`--fault ota-*`) acts on the first update only.
    private var otaFaultTaken = false
    /// ICD Management, with `--icd` (nil: an always-on device).
    var icd: ICDManagementState?
    let faults: Set<VirtualDeviceFault>
    let credentials: DeviceCredentials
    let basicWindow: CommissioningWindow
    private let store: DeviceStateStore?
    private var hooks: DeviceHooks
    /// Interactions being answered, and the clusters each changed: reported when it ends
    /// (`VirtualDevice.servedInteraction`).
    private var openInteractions: [UInt64: [ClusterPathIB]] = [:]
    private var interactionIDs: UInt64 = 0
    /// The time the window and fail-safe timers run on.
    nonisolated let clock: any MatterClock
    /// When the device started, for General Diagnostics' UpTime.
    let startedAt: Milliseconds

    private(set) var state: DeviceState
    private(set) var window: CommissioningWindow?
    private var windowTimer: Task<Void, Never>?
    private(set) var windowAdmin: (fabric: UInt8, vendor: UInt16)?
    private(set) var failSafe: FailSafe?
    private var failSafeGeneration: UInt64 = 0
    /// PASE sessions bound to the fabric their AddNOC created.
    private var paseBindings: [UInt16: UInt8] = [:]
    private(set) var breadcrumb: UInt64 = 0
    /// An attribute change waits to be written (`persistSoon`).
    private var unsaved = false
    private var versions: [ClusterPathIB: UInt32] = [:]
    private(set) var failedPASEAttempts = 0

    /// Failed PASE attempts after which the window closes (Matter Core 5.4.2.7).
    static let maxFailedPASEAttempts = 20
    static let supportedFabrics = 5
    static let failSafeExpiryLengthSeconds: UInt16 = 60
    static let maxCumulativeFailsafeSeconds: UInt16 = 900

    init(configuration c: VirtualDeviceConfiguration, credentials: DeviceCredentials, basicWindow: CommissioningWindow,
         store: DeviceStateStore?, state: DeviceState, clock: any MatterClock = SystemClock()) {
        vendorID = c.vendorID
        productID = c.productID
        kind = c.kind
        shape = DeviceShape(c)
        dataModel = DeviceDataModel.dataModel(shape: DeviceShape(c))
        network = c.network
        faults = c.faults
        self.credentials = credentials
        self.basicWindow = basicWindow
        self.store = store
        self.state = state
        // A light boots at its StartUpCurrentLevel; a plug has no Level Control.
        self.state.level = c.kind == .light ? (state.level ?? LevelState()).booted() : nil
        self.clock = clock
        startedAt = clock.now()
        hooks = DeviceHooks()
        radioDiagnostics = c.radioDiagnostics ?? .defaults(discriminator: c.discriminator)
        configuredSoftwareVersion = c.softwareVersion
        maxPathsPerInvoke = c.maxPathsPerInvoke
        thermostat = c.kind == .thermostat ? ThermostatState() : nil
        icd = c.icd.map(ICDManagementState.init)
        if let n = c.network {
            var r = SimulatedNetworkInterface(kind: n, faults: c.faults)
            r.load(state.networks ?? [])
            radio = r
        }
    }

    /// Whether the device is on the operational network: always on Ethernet; with a simulated
    /// radio, once ConnectNetwork succeeded.
    var isOnOperationalNetwork: Bool { radio?.isConnected ?? true }

    func setHooks(_ hooks: DeviceHooks) { self.hooks = hooks }

    /// Publishes the stored fabrics and, when there are none, opens the basic window.
    func start() async {
        await hooks.fabricsChanged(state.fabrics)
        if state.fabrics.isEmpty { await openWindow(basicWindow, timeout: nil) }
    }

    var isCommissioned: Bool { !committedFabrics.isEmpty }
    /// Fabrics outside any fail-safe: what is persisted.
    var committedFabrics: [FabricRecord] { state.fabrics.filter { $0.index != failSafe?.addedFabric } }

    // MARK: Sessions

    /// A PASE session was established: the fail-safe arms for 60 s if it is not armed already.
    func paseEstablished() async {
        if failSafe == nil { arm(seconds: Self.failSafeExpiryLengthSeconds, fabric: nil) }
    }

    /// A PASE attempt failed its confirmation; the 20th closes the window.
    func paseFailed() async {
        failedPASEAttempts += 1
        if failedPASEAttempts >= Self.maxFailedPASEAttempts { await closeWindow() }
    }

    /// The fabric a session acts for: its CASE fabric, or the fabric its PASE session's AddNOC made.
    func accessingFabric(_ c: IMSessionContext) -> UInt8? {
        c.fabricIndex ?? c.sessionID.flatMap { paseBindings[$0] }
    }

    /// The context with the accessing fabric as its fabric, for a cluster server.
    func accessing(_ c: IMSessionContext) -> IMSessionContext {
        var c = c
        c.fabricIndex = accessingFabric(c)
        return c
    }

    // MARK: Windows

    func openWindow(_ w: CommissioningWindow, timeout: UInt16?, admin: (fabric: UInt8, vendor: UInt16)? = nil) async {
        window = w
        windowAdmin = admin
        failedPASEAttempts = 0
        windowTimer?.cancel()
        if let timeout {
            let clock = self.clock, deadline = clock.deadline(after: .seconds(Int(timeout)))
            windowTimer = Task { [weak self] in
                do { try await clock.sleep(until: deadline) } catch { return }
                await self?.closeWindow()
            }
        }
        bump(0, .administratorCommissioning)
        await hooks.windowChanged(w)
    }

    func closeWindow() async {
        windowTimer?.cancel()
        windowTimer = nil
        guard window != nil else { return }
        window = nil
        windowAdmin = nil
        bump(0, .administratorCommissioning)
        await hooks.windowChanged(nil)
    }

    // MARK: Fail-safe

    func arm(seconds: UInt16, fabric: UInt8?) {
        failSafeGeneration += 1
        let generation = failSafeGeneration
        let now = clock.now()
        var fs = failSafe ?? FailSafe(generation: generation, armingFabric: fabric, firstArmed: now)
        fs.generation = generation
        fs.timer?.cancel()
        // The fail-safe never outlasts MaxCumulativeFailsafeSeconds from its first arming.
        let deadline = min(now + Milliseconds(seconds) * 1000, fs.firstArmed + Milliseconds(Self.maxCumulativeFailsafeSeconds) * 1000)
        let clock = self.clock
        fs.timer = Task { [weak self] in
            do { try await clock.sleep(until: deadline) } catch { return }
            await self?.failSafeExpired(generation)
        }
        failSafe = fs
    }

    private func failSafeExpired(_ generation: UInt64) async {
        guard failSafe?.generation == generation else { return }
        await rollBack()
        // The commissioning (PASE) sessions end with the fail-safe (Matter Core 11.10.7.2.2).
        await hooks.failSafeExpired()
    }

    /// Undoes what the fail-safe staged and disarms it (Matter Core 11.10.7.2.2).
    func rollBack() async {
        guard let fs = failSafe else { return }
        fs.timer?.cancel()
        failSafe = nil
        breadcrumb = 0
        if let saved = fs.networkSnapshot, radio != nil {
            let wasOnline = isOnOperationalNetwork
            radio?.restore(saved)
            bump(0, .networkCommissioning)
            if wasOnline != isOnOperationalNetwork { await hooks.networkChanged(isOnOperationalNetwork) }
        }
        if let added = fs.addedFabric {
            state.fabrics.removeAll { $0.index == added }
            state.acl.removeAll { $0.fabricIndex == added }
            paseBindings = paseBindings.filter { $0.value != added }
            bumpFabricClusters()
            await hooks.fabricsChanged(state.fabrics)
        }
        // A device left without fabrics is commissionable again.
        if state.fabrics.isEmpty && window == nil { await openWindow(basicWindow, timeout: nil) }
    }

    /// Makes the fail-safe's changes permanent (CommissioningComplete).
    func commit() async {
        failSafe?.timer?.cancel()
        failSafe = nil
        breadcrumb = 0
        persist()
        await closeWindow()
    }

    // MARK: State

    /// Writes an attribute change (a light switched, a label written) behind the response, at
    /// most once per 50 ms, as a device's flash writes are; fabric, ACL and network changes are
    /// written at once with `persist()`. `flushUnsaved()` writes what waits (at shutdown).
    func persistSoon() {
        guard store != nil, !unsaved else { return }
        unsaved = true
        // Real time whatever the device's clock (a test's ManualClock does not move by itself).
        let writeBehind = Self.writeBehindClock
        _ = writeBehind.schedule(at: writeBehind.deadline(after: .milliseconds(50))) { [weak self] in
            Task { await self?.flushUnsaved() }
        }
    }
    private static let writeBehindClock = SystemClock()

    func flushUnsaved() {
        if unsaved { persist() }
    }

    func persist() {
        unsaved = false
        guard let store else { return }
        var s = state
        s.fabrics = committedFabrics
        // The networks of a fail-safe in progress are not kept until it commits.
        if let r = radio { s.networks = (failSafe?.networkSnapshot).map { snap in
            var committed = r
            committed.restore(snap)
            return committed.records
        } ?? r.records }
        s.acl = state.acl.filter { r in s.fabrics.contains { $0.index == r.fabricIndex } }
        try? store.save(s)
    }

    func bump(_ endpoint: EndpointID, _ cluster: ClusterID) {
        let key = ClusterPathIB(endpoint: endpoint, cluster: cluster)
        versions[key] = (versions[key] ?? UInt32.random(in: 0...UInt32.max)) &+ 1
        // Made by an interaction still being answered: told when it ends, after its response,
        // with no task started meanwhile (one woke a thread that preempted the response). A
        // timer that interaction started inherits its ID, but runs after it ended.
        if let id = VirtualDevice.servedInteraction, openInteractions[id] != nil {
            if !openInteractions[id]!.contains(key) { openInteractions[id]!.append(key) }
            return
        }
        let changed = hooks.clusterChanged
        Task { await changed(endpoint, cluster) }
    }

    func beginInteraction() -> UInt64 {
        interactionIDs += 1
        openInteractions[interactionIDs] = []
        return interactionIDs
    }

    /// Ends an interaction; returns the clusters it changed.
    func endInteraction(_ id: UInt64) -> [ClusterPathIB] {
        openInteractions.removeValue(forKey: id) ?? []
    }

    func bumpFabricClusters() {
        bump(0, .operationalCredentials)
        bump(0, .accessControl)
    }

    func dataVersion(_ endpoint: EndpointID, _ cluster: ClusterID) async -> UInt32? {
        let key = ClusterPathIB(endpoint: endpoint, cluster: cluster)
        if let v = versions[key] { return v }
        let v = UInt32.random(in: 0...UInt32.max)
        versions[key] = v
        return v
    }

    func deviceTypes(_ endpoint: EndpointID) -> [UInt32] { shape.deviceTypes(endpoint).map(\.id) }

    func allows(_ p: Clusters.AccessControl.Privilege, _ endpoint: EndpointID, _ cluster: ClusterID, _ c: IMSessionContext) -> Bool {
        AccessControl.allows(p, endpoint: endpoint, cluster: cluster, deviceTypes: deviceTypes(endpoint), context: c, acl: state.acl)
    }

    // MARK: Mutations the command handlers use

    func setBreadcrumb(_ v: UInt64) {
        breadcrumb = v
        bump(0, .generalCommissioning)
    }

    func setRegulatory(_ config: UInt8, _ country: String) {
        state.regulatoryConfig = config
        state.location = country
        bump(0, .generalCommissioning)
    }

    /// The light's On/Off and Level Control state: what changed is reported (endpoint 1) and,
    /// if asked, persisted.
    func setLight(onOff: Bool, level: LevelState?, persisting: Bool) {
        let changed = (onOff: onOff != state.onOff, level: level != state.level)
        state.onOff = onOff
        state.level = level
        if changed.level { bump(1, .levelControl) }
        if changed.onOff { bump(1, .onOff) }
        if persisting && (changed.level || changed.onOff) { persistSoon() }
    }

    func setPendingKey(_ key: P256PrivateKey) { failSafe?.pendingKey = key }
    /// Keeps the simulated networks as they were before the fail-safe's first change to them.
    func saveNetworksForRollback() {
        if failSafe?.networkSnapshot == nil { failSafe?.networkSnapshot = radio?.snapshot }
    }
    func setPendingRoot(_ root: [UInt8]) { failSafe?.pendingRoot = root }

    func updateFabric(at i: Int, _ change: (inout FabricRecord) -> Void) {
        change(&state.fabrics[i])
        bump(0, .operationalCredentials)
        persist()
    }

    func freeFabricIndex() -> UInt8? {
        let used = Set(state.fabrics.map(\.index))
        for step in 0..<254 {
            let candidate = UInt8((Int(state.nextFabricIndex) - 1 + step) % 254 + 1)
            if !used.contains(candidate) { return candidate }
        }
        return nil
    }

    /// Adds a fabric inside the fail-safe: not persisted until CommissioningComplete.
    func addStagedFabric(_ record: FabricRecord, admin: ACLRecord, session: UInt16?) {
        state.fabrics.append(record)
        state.acl.append(admin)
        state.nextFabricIndex = record.index == 254 ? 1 : record.index + 1
        failSafe?.addedFabric = record.index
        if failSafe?.armingFabric == nil { failSafe?.armingFabric = record.index }
        if let session { paseBindings[session] = record.index }
        bumpFabricClusters()
    }

    /// RemoveFabric: the fabric, its ACL entries and its adverts go; with none left the device
    /// becomes commissionable again.
    func removeFabric(_ index: UInt8) async {
        if failSafe?.addedFabric == index {
            await rollBack()
            return
        }
        state.fabrics.removeAll { $0.index == index }
        state.acl.removeAll { $0.fabricIndex == index }
        icd?.forget(fabricIndex: index)
        ota.defaultProviders.removeAll { $0.fabricIndex == index }
        paseBindings = paseBindings.filter { $0.value != index }
        bumpFabricClusters()
        persist()
        await hooks.fabricsChanged(state.fabrics)
        if state.fabrics.isEmpty && window == nil { await openWindow(basicWindow, timeout: nil) }
    }

    func fabricsChangedHook() async { await hooks.fabricsChanged(state.fabrics) }
    func networkChangedHook() async { await hooks.networkChanged(isOnOperationalNetwork) }
    func nocAddedHook() async { await hooks.nocAdded() }
    func hooksChallenge(_ session: UInt16) async -> [UInt8]? { await hooks.attestationChallenge(session) }

    // MARK: InteractionDevice

    func readAttribute(_ path: ConcreteAttributePath, fabricFiltered: Bool, context: IMSessionContext) async throws(IMStatus) -> TLVElement {
        guard allows(AccessControl.readPrivilege(path.cluster, path.attribute), path.endpoint, path.cluster, context) else {
            throw .unsupportedAccess
        }
        guard let server = server(path.endpoint, path.cluster) else { throw .unsupportedCluster }
        return try await server.readAny(path.attribute, fabricFiltered: fabricFiltered, context: accessing(context))
    }

    func writeAttribute(_ path: ConcreteAttributePath, value: TLVElement, listIndex: ListIndex?, context: IMSessionContext) async throws(IMStatus) {
        guard allows(AccessControl.writePrivilege(path.cluster, path.attribute), path.endpoint, path.cluster, context) else {
            throw .unsupportedAccess
        }
        let before = path.cluster == .thermostat ? thermostat?.values(now: clock.now()) : nil
        try write(path, value: value, listIndex: listIndex, context: context)
        // A Presets write inside an atomic write is pending: nothing visible changed yet.
        if before == nil || thermostat?.values(now: clock.now()) != before { bump(path.endpoint, path.cluster) }
        if path.cluster == .accessControl { persist() } else { persistSoon() }
    }

    func invokeCommand(_ path: CommandPathIB, fields: TLVElement?, context: IMSessionContext) async -> CommandOutcome {
        let endpoint = path.endpoint ?? 0
        guard allows(AccessControl.invokePrivilege(path.cluster), endpoint, path.cluster, context) else {
            return .status(StatusIB(.unsupportedAccess))
        }
        switch path.cluster {
        case .onOff: return onOff(path.command, endpoint: endpoint)
        case .levelControl where endpoint == 1 && state.level != nil: return levelControl(path.command, fields, endpoint: endpoint)
        case .thermostat where endpoint == 1 && thermostat != nil:
            let before = thermostat!.values(now: clock.now())
            let outcome = thermostat!.invoke(path.command, fields, context: context, now: clock.now())
            // Opening or ending an atomic write changes no attribute: the data version stays.
            if thermostat!.values(now: clock.now()) != before { bump(endpoint, .thermostat) }
            return outcome
        case .generalCommissioning: return await generalCommissioning(path.command, fields, context)
        case .operationalCredentials: return await operationalCredentials(path.command, fields, context)
        case .administratorCommissioning: return await administratorCommissioning(path.command, fields, context)
        case .networkCommissioning: return await networkCommissioning(path.command, fields)
        case .otaSoftwareUpdateRequestor where endpoint == 0 && configuredSoftwareVersion != nil:
            return announceOTAProvider(path.command, fields, context)
        case .icdManagement where endpoint == 0 && icd != nil:
            guard let fabric = context.fabricIndex else { return .status(StatusIB(.unsupportedAccess)) }
            let outcome = icd!.invoke(path.command, fields, fabricIndex: fabric,
                                      isAdministrator: allows(.administer, 0, .icdManagement, context))
            bump(0, .icdManagement)
            return outcome
        default: return .status(StatusIB(.unsupportedCommand))
        }
    }

    /// The device's own button: the light toggles itself, as a person at the switch would make
    /// it, and subscribers get the change like any other.
    // MARK: OTA requestor

    var currentSoftwareVersion: UInt32 { basicInformation.softwareVersion }

    /// Vendor, product and the version running, as QueryImage gives them.
    var identity: (UInt16, UInt16, UInt32) { (vendorID, productID, currentSoftwareVersion) }

    private func announceOTAProvider(_ command: CommandID, _ fields: TLVElement?, _ context: IMSessionContext) -> CommandOutcome {
        typealias T = Clusters.OtaSoftwareUpdateRequestor.AnnounceOTAProviderTag
        guard command == Clusters.OtaSoftwareUpdateRequestor.Command.announceOTAProvider else { return .status(StatusIB(.unsupportedCommand)) }
        guard let f = fields, let provider = try? f.required(T.providerNodeID).unsigned(as: UInt64.self),
              (try? f.required(T.vendorID).unsigned(as: UInt16.self)) != nil,
              (try? f.required(T.announcementReason).unsigned(as: UInt8.self)) != nil,
              let endpoint = try? f.required(T.endpoint).unsigned(as: UInt16.self) else {
            return .status(StatusIB(.invalidCommand))
        }
        guard let fabric = context.fabricIndex, let session = context.sessionID, ota.updateState == .idle else {
            return .status(StatusIB(ota.updateState == .idle ? .unsupportedAccess : .busy))
        }
        let announced = hooks.otaAnnounced
        Task { await announced(provider, EndpointID(endpoint), fabric, session) }
        return .status(StatusIB(.success))
    }

    /// One wake of a sleepy device: the Check-Ins to send to `clients` (client, payload).
    func icdWake(for clients: [ICDManagementState.Registration]) -> [(ICDManagementState.Registration, [UInt8])] {
        guard icd != nil else { return [] }
        let checkIns = icd!.wake(for: clients)
        if !checkIns.isEmpty { bump(0, .icdManagement) }
        return checkIns
    }

    var icdRegistrations: [ICDManagementState.Registration] { icd?.registrations ?? [] }
    var icdOperatesAsLIT: Bool { icd?.operatesAsLIT ?? false }

    /// Where the device asks for updates by itself: the first fabric's DefaultOTAProviders entry
    /// (nil: none written, or not an OTA requestor).
    var defaultOTAProvider: OTARequestorState.ProviderLocation? {
        ota.updateState == .idle ? ota.defaultProviders.first : nil
    }

    /// The OTA fault this update shows, once: the first update that gets to download takes it.
    func takeOTAFault() -> VirtualDeviceFault? {
        guard !otaFaultTaken, let fault = VirtualDeviceFault.otaFaults.first(where: faults.contains) else { return nil }
        otaFaultTaken = true
        return fault
    }

    func setUpdateState(_ s: OTARequestorState.UpdateState, progress: UInt8?) {
        ota.updateState = s
        ota.progress = progress
        bump(0, .otaSoftwareUpdateRequestor)
    }

    /// The "reboot" into a new version: kept across restarts, reported by Basic Information.
    func install(version: UInt32, string: String) {
        state.softwareVersion = version
        state.softwareVersionString = string
        ota = OTARequestorState()
        bump(0, .basicInformation)
        bump(0, .otaSoftwareUpdateRequestor)
        persist()
    }

    /// This node's credentials on fabric `index` (for a CASE session it opens itself).
    func fabricCredentials(_ index: UInt8) -> FabricCredentials? {
        guard let r = state.fabrics.first(where: { $0.index == index }),
              let key = try? P256PrivateKey(rawRepresentation: r.operationalKey) else { return nil }
        return try? FabricCredentials(fabricIndex: r.index, rcac: r.rcac, icac: r.icac, noc: r.noc, operationalKey: key,
                                      ipkEpochKey: SecretBytes(r.ipkEpochKey))
    }

    /// The Thread neighbours the radio reports from now on (a neighbour moved, a link faded).
    func setThreadNeighbors(_ neighbors: [RadioDiagnostics.ThreadNeighbor]) {
        radioDiagnostics.threadNeighbors = neighbors
        bump(0, .threadNetworkDiagnostics)
    }

    /// A bridge's lights become `count`; the lights that went forget their state.
    func setBridgedLights(_ count: Int) -> DeviceShape {
        shape.bridgedLights = count
        bridgedOn = bridgedOn.filter { shape.isBridgedLight($0.key) }
        return shape
    }

    /// A bridged light's names and reachability (always reachable).
    /// The light's own button; on a bridge, bridged light `light` (0: the first; wraps around).
    func pressButton(light: Int = 0) {
        if kind == .bridge {
            let endpoint = EndpointID(DeviceShape.firstBridgedEndpoint.rawValue + UInt16(light % max(shape.bridgedLights, 1)))
            bridgedOn[endpoint] = !(bridgedOn[endpoint] ?? false)
            bump(endpoint, .onOff)
            return
        }
        state.onOff.toggle()
        if state.onOff { levelFollowsOn() }
        bump(1, .onOff)  // the light is endpoint 1
        persistSoon()
    }

    private func onOff(_ command: CommandID, endpoint: EndpointID) -> CommandOutcome {
        if shape.isBridgedLight(endpoint) {
            let on = bridgedOn[endpoint] ?? false
            switch command {
            case Clusters.OnOff.Command.off: bridgedOn[endpoint] = false
            case Clusters.OnOff.Command.on: bridgedOn[endpoint] = true
            case Clusters.OnOff.Command.toggle: bridgedOn[endpoint] = !on
            default: return .status(StatusIB(.unsupportedCommand))
            }
            bump(endpoint, .onOff)
            return .status(.success)
        }
        switch command {
        case Clusters.OnOff.Command.off: state.onOff = false
        case Clusters.OnOff.Command.on: state.onOff = true
        case Clusters.OnOff.Command.toggle: state.onOff.toggle()
        default: return .status(StatusIB(.unsupportedCommand))
        }
        if state.onOff { levelFollowsOn() }
        bump(endpoint, .onOff)
        persistSoon()
        return .status(.success)
    }

    // MARK: Writes

    /// Writes through the cluster's server and keeps what it changed.
    private func write(_ path: ConcreteAttributePath, value: TLVElement, listIndex: ListIndex?, context: IMSessionContext) throws(IMStatus) {
        let c = accessing(context)
        switch path.cluster {
        case .basicInformation:
            var s = basicInformation
            try s.write(path.attribute, value: value, listIndex: listIndex, context: c)
            state.nodeLabel = s.nodeLabel
            state.location = s.location
        case .accessControl:
            var s = accessControl
            try s.write(path.attribute, value: value, listIndex: listIndex, context: c)
            state.acl = s.entries.map { ACLRecord($0, fabricIndex: $0.fabricIndex ?? 0) }
        case .generalCommissioning:
            var s = generalCommissioning
            try s.write(path.attribute, value: value, listIndex: listIndex, context: c)
            breadcrumb = s.breadcrumb
        case .bridgedDeviceBasicInformation:
            var s = bridgedBasicInformation(path.endpoint)
            try s.write(path.attribute, value: value, listIndex: listIndex, context: c)
            bridgedLabels[path.endpoint] = s.label
        case .networkCommissioning:
            var s = networkCommissioning
            try s.write(path.attribute, value: value, listIndex: listIndex, context: c)
            interfaceEnabled = s.interfaceEnabled
        case .levelControl where state.level != nil:
            try state.level!.write(path.attribute, value: value, listIndex: listIndex, context: c)
        case .thermostat where thermostat != nil:
            var s = thermostatServer!
            try s.write(path.attribute, value: value, listIndex: listIndex, context: c)
            thermostat = s.state
        case .otaSoftwareUpdateRequestor where configuredSoftwareVersion != nil:
            try ota.write(path.attribute, value: value, listIndex: listIndex, context: c)
        default:
            throw .unsupportedWrite
        }
    }
}
