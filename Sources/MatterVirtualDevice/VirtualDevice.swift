import FoundationEssentials
import MatterClusters
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import MatterBDX
import MatterCertificates
import MatterCrypto
import MatterDiscovery
import MatterInteraction
import MatterInteractionMessaging
import MatterMessaging
import MatterPlatform
import MatterSecureChannel
import MatterSetupPayload
import MatterTLV

/// A strict Matter commissionee on one UDP port: PASE and CASE responders, the Interaction Model
/// over the device's clusters (root node on endpoint 0, an on/off light or plug on endpoint 1),
/// a fail-safe that rolls back, access control on every CASE request, DNS-SD adverts through
/// avahi, and state that survives restarts.
///
/// ```swift
/// let device = try await VirtualDevice(configuration: .init(passcode: 20202021, discriminator: 3840))
/// print(device.qrCode, device.manualCode)
/// try await device.start()
/// ```
public actor VirtualDevice {
    /// The QR code (`MT:...`) of the basic commissioning window.
    public nonisolated let qrCode: String
    /// The 11-digit manual pairing code of the basic commissioning window.
    public nonisolated let manualCode: String
    public nonisolated let vendorID: UInt16
    public nonisolated let productID: UInt16
    nonisolated let faults: Set<VirtualDeviceFault>
    nonisolated let advertises: Bool
    nonisolated let manager: ExchangeManager
    /// A LIT device's radio (nil: the device never sleeps).
    nonisolated let sleepGate: SleepGate?
    nonisolated let icdConfiguration: ICDConfiguration?
    var icdSchedule: Task<Void, Never>?
    /// Where each check-in client's last CASE session came from, kept after the session is
    /// closed (a client that lost its subscription often closes it before the next wake).
    var checkInClientAddresses: [UInt64: PeerAddress] = [:]
    nonisolated let checkInCount = Counter()
    nonisolated let otaQueryInterval: UInt32?
    nonisolated let otaMinimumDownload: Duration
    var otaQueries: Task<Void, Never>?
    nonisolated let core: DeviceCore
    nonisolated let server: InteractionServer
    private(set) var dataModel: DataModel
    /// The time of the device's timers, MRP and reports.
    nonisolated let clock: any MatterClock
    private var pase: PASEResponder?
    private var caseResponder: CASEResponder?
    private var commissionableAdvert: AvahiAdvertisement?
    private var operationalAdverts: [UInt8: (OperationalAdvert, AvahiAdvertisement)] = [:]
    private let instanceName = (0..<8).map { _ in String(printf: "%02X", UInt8.random(in: 0...255)) }.joined()
    private var started = false
    /// Counts window changes, so a publish that finishes after a newer change is withdrawn.
    private var windowGeneration: UInt64 = 0
    /// The fabrics the adverts should be for (the latest `fabricsChanged`).
    private var advertisedFabrics: Set<UInt8> = []
    /// The latest update of the operational adverts (each waits for the one before).
    private var advertUpdate: Task<Void, Never>?
    private var reportPump: Task<Void, Never>?
    /// The report pump's sleep: its continuation and the timer that ends it.
    private var reportSleep: (continuation: CheckedContinuation<Void, Never>, timer: ClockTimer)?
    private var wakePending = false
    /// The interaction a task serves (inherited by the tasks it starts): a change an
    /// interaction makes is reported once its response is out, as the SDK's reporting engine
    /// runs after the message that caused it (`DeviceCore.bump`). Reported at once, the report
    /// was built while the response was, on the other core of two, and delayed it.
    @TaskLocal static var servedInteraction: UInt64?

    /// Opens the UDP port and prepares everything; nothing answers until `start()`.
    public init(configuration: VirtualDeviceConfiguration) async throws(VirtualDeviceError) {
        try Self.validate(configuration)  // before any socket opens
        let transport: UDPTransport
        do { transport = try UDPTransport(port: configuration.port, netnsPath: configuration.netnsPath) } catch {
            throw VirtualDeviceError("transport", "cannot open UDP port \(configuration.port): \(error)")
        }
        try await self.init(configuration: configuration, transport: transport)
    }

    /// The same over any transport (in-process tests use a `MemoryNetwork` endpoint) and clock
    /// (tests use a `ManualClock` to move time on).
    package init(configuration c: VirtualDeviceConfiguration, transport: any MessageTransport,
                 clock: any MatterClock = SystemClock()) async throws(VirtualDeviceError) {
        try Self.validate(c)
        let payload = SetupPayload(kind: .qrCode, vendorID: c.vendorID, productID: c.productID, commissioningFlow: .standard,
                                   discoveryCapabilities: .onNetwork, discriminator: .long(c.discriminator), passcode: c.passcode)
        var manual = payload
        manual.kind = .manualCode
        manual.discoveryCapabilities = nil
        do {
            qrCode = try QRCode.encode([payload])
            manualCode = try ManualPairingCode.encode(manual)
        } catch {
            throw .configuration("cannot form the setup codes: \(error)")
        }
        // The verifier is computed once; the passcode is not kept.
        let salt = SecureRandom.bytes(32)
        let verifier: PASEVerifier
        do { verifier = try PASEVerifier(passcode: c.passcode, salt: salt, iterations: c.pbkdfIterations) } catch {
            throw .configuration("cannot derive the PASE verifier: \(error)")
        }
        let basic = CommissioningWindow(kind: .basic, verifier: verifier, salt: salt, iterations: UInt32(c.pbkdfIterations),
                                        discriminator: c.discriminator)
        let credentials = try DeviceCredentials(vendorID: c.vendorID, productID: c.productID, deviceType: c.kind.deviceType,
                                                cdVendorID: c.faults.contains(.cdVendorMismatch) ? 0xFFF2 : c.vendorID,
                                                chain: c.attestation)
        let store = c.stateDirectory.map { DeviceStateStore(directory: $0) }
        var state = try store?.load() ?? DeviceState()
        state.bootCount &+= 1
        state.assignSerialNumber()
        try store?.save(state)
        vendorID = c.vendorID
        productID = c.productID
        faults = c.faults
        advertises = c.advertises
        self.clock = clock
        icdConfiguration = c.icd
        otaQueryInterval = c.softwareVersion == nil ? nil : c.otaQueryInterval
        otaMinimumDownload = c.otaMinimumDownload ?? .zero
        sleepGate = c.icd?.mode == .lit ? SleepGate(clock: clock, thresholdMilliseconds: c.icd!.thresholdMilliseconds) : nil
        manager = ExchangeManager(transport: sleepGate.map { SleepyTransport(inner: transport, gate: $0) } ?? transport, clock: clock)
        core = DeviceCore(configuration: c, credentials: credentials, basicWindow: basic, store: store, state: state, clock: clock)
        dataModel = DeviceDataModel.dataModel(shape: DeviceShape(c))
        // Event numbers keep rising across reboots: each boot starts a new 2^32 block.
        server = InteractionServer(dataModel: dataModel, device: core, maxPathsPerInvoke: Int(max(1, c.maxPathsPerInvoke)),
                                   firstEventNumber: UInt64(state.bootCount) << 32,
                                   icdIdleSeconds: c.icd.map { UInt16(min($0.idleSeconds, 3600)) })
    }

    private static func validate(_ c: VirtualDeviceConfiguration) throws(VirtualDeviceError) {
        guard Passcode.isValid(c.passcode) else { throw .configuration("passcode \(c.passcode) is not allowed") }
        guard c.discriminator <= 0xFFF else { throw .configuration("discriminator \(c.discriminator) exceeds 4095") }
        if c.network == nil, let f = c.faults.first(where: { $0 == .wrongNetworkCredentials || $0 == .networkNotFound }) {
            throw .configuration("fault \(f.rawValue) needs a simulated network (--network wifi|thread)")
        }
        guard (1000...100_000).contains(c.pbkdfIterations) else { throw .configuration("PBKDF iterations must be 1000...100000") }
        if c.kind == .bridge, !(1...VirtualDeviceConfiguration.maxBridgedLights).contains(c.bridgedLights) {
            throw .configuration("a bridge has 1 to \(VirtualDeviceConfiguration.maxBridgedLights) bridged lights, not \(c.bridgedLights)")
        }
    }

    /// The UDP port the device listens on.
    public var port: UInt16 { get async { await manager.localPort } }

    /// Whether at least one fabric is committed.
    public var isCommissioned: Bool { get async { await core.isCommissioned } }

    /// The indexes of the device's fabrics (committed and staged).
    public var fabricIndexes: [UInt8] { get async { await core.state.fabrics.map(\.index) } }

    /// Whether a commissioning window is open.
    public var isCommissioningWindowOpen: Bool { get async { await core.window != nil } }

    /// Toggles the light from the device side (its own button): a change no controller made.
    /// On a bridge, bridged light `light` (0 is the first; wraps around).
    public func pressButton(light: Int = 0) async { await core.pressButton(light: light) }

    /// Downloads `designator` over BDX, receiver-driven, from the peer of a CASE session (the
    /// newest), as an OTA requestor downloads its image (`virtual-device --fetch`).
    public func fetch(_ designator: String, stallTimeout: Duration = .seconds(3)) async throws(BDXError) -> [UInt8] {
        let sessions = await manager.secureSessions().filter { if case .operational = $0.peer { true } else { false } }
        guard let session = sessions.map(\.localSessionID).last else {
            throw BDXError(.messaging(.closed), "no CASE session to fetch \(designator) over")
        }
        var data: [UInt8] = []
        _ = try await BDXReceiver.receive(manager: manager, session: .secure(localSessionID: session),
                                          fileDesignator: Array(designator.utf8), stallTimeout: stallTimeout) { data += $0 }
        return data
    }

    /// The software version it runs (an OTA update changes it).
    public var softwareVersion: UInt32 { get async { await core.currentSoftwareVersion } }
    /// Whether its OTA requestor is in an update (UpdateState not Idle).
    public var isUpdating: Bool { get async { await core.ota.updateState != .idle } }

    /// Changes the Thread neighbours the device reports (and tells its subscribers).
    public func setThreadNeighbors(_ neighbors: [RadioDiagnostics.ThreadNeighbor]) async {
        await core.setThreadNeighbors(neighbors)
    }

    /// Whether On/Off is on.
    public var isOn: Bool { get async { await core.state.onOff } }

    /// A bridge's lights become `count` (1 to 1000): endpoints added after the last or removed
    /// from the end, PartsList and the subscriptions following, as a bridge whose user paired or
    /// removed a light does.
    public func setBridgedLights(_ count: Int) async throws(VirtualDeviceError) {
        guard core.kind == .bridge, (1...VirtualDeviceConfiguration.maxBridgedLights).contains(count) else {
            throw .configuration("only a bridge has bridged lights, 1 to \(VirtualDeviceConfiguration.maxBridgedLights)")
        }
        let before = Set(dataModel.endpoints.keys)
        let shape = await core.setBridgedLights(count)
        dataModel = DeviceDataModel.dataModel(shape: shape)
        await server.replaceDataModel(dataModel)
        for endpoint in Set(dataModel.endpoints.keys).subtracting(before) {
            for cluster in dataModel.endpoints[endpoint]?.clusters.keys.map({ $0 }) ?? [] { await markChanged(endpoint, cluster) }
        }
        await markChanged(0, .descriptor)
        await markChanged(1, .descriptor)
        wakeReportPump()
    }

    /// A bridge's bridged light at `endpoint`: whether it is on.
    public func bridgedLightIsOn(_ endpoint: UInt16) async -> Bool { await core.bridgedOn[EndpointID(endpoint)] ?? false }

    /// Level Control's CurrentLevel (1...254; nil for a plug, which has no Level Control).
    public var currentLevel: UInt8? { get async { await core.state.level?.currentLevel } }

    /// Whether the fail-safe is armed.
    public var isFailSafeArmed: Bool { get async { await core.failSafe != nil } }

    /// Whether the device is on the operational network (always on Ethernet; with a simulated
    /// Wi-Fi or Thread interface, once ConnectNetwork succeeded and until a rollback).
    public var isOnOperationalNetwork: Bool { get async { await core.isOnOperationalNetwork } }

    /// The simulated interface's configured networks (its Networks attribute); empty on Ethernet.
    public var networks: [Clusters.NetworkCommissioning.NetworkInfo] {
        get async {
            guard let r = await core.radio else { return [] }
            return r.networks.map { .init(networkID: $0.id, connected: $0.id == r.connectedID) }
        }
    }

    /// Starts answering: PASE, CASE, the Interaction Model, and the adverts.
    public func start() async {
        guard !started else { return }
        started = true
        let core = self.core
        let pase = await PASEResponder(manager: manager, configuration: nil) { outcome in
            switch outcome {
            case .established: await core.paseEstablished()
            case .failedAttempt: await core.paseFailed()
            case .abandoned: break
            }
        }
        let caseResponder = CASEResponder(manager: manager, fabrics: [])
        if faults.contains(.badSigma2Signature) { caseResponder.setSignsWrongSigma2Bytes(true) }
        self.pase = pase
        self.caseResponder = caseResponder
        let rebootPending = self.rebootPending
        await manager.setHandler(for: .secureChannel) { exchange, first in
            switch first.opcode {
            case SecureChannelOpcode.pbkdfParamRequest.rawValue: await pase.handle(exchange, first: first)
            case SecureChannelOpcode.sigma1.rawValue:
                // Fault reboot-mid-commissioning: the power goes when the commissioner first
                // reaches for the new operational identity (after AddNOC, before CommissioningComplete).
                if rebootPending.isSet {
                    StandardError.line("virtual-device: fault reboot-mid-commissioning: exiting after AddNOC")
                    exit(3)
                }
                // Off the operational network (a Wi-Fi or Thread device before ConnectNetwork),
                // only the commissioning channel reaches the device.
                guard await core.isOnOperationalNetwork else {
                    await exchange.close()
                    return
                }
                await caseResponder.handle(exchange, first: first)
            default: await exchange.close()
            }
        }
        await manager.setHandler(for: .interactionModel) { [weak self] exchange, first in
            await self?.serveInteraction(exchange, first: first)
        }
        let manager = self.manager
        await core.setHooks(DeviceHooks(
            fabricsChanged: { [weak self] records in await self?.fabricsChanged(records) },
            windowChanged: { [weak self] window in await self?.windowChanged(window) },
            attestationChallenge: { id in await manager.secureSession(.secure(localSessionID: id))?.attestationChallenge.bytes },
            nocAdded: { [weak self] in await self?.nocAdded() },
            failSafeExpired: {
                for s in await manager.secureSessions() where s.peer == .pase {
                    await manager.removeSession(.secure(localSessionID: s.localSessionID))
                }
            },
            clusterChanged: { [weak self] endpoint, cluster in await self?.clusterChanged(endpoint, cluster) },
            networkChanged: { [weak self] online in await self?.networkChanged(online) },
            otaAnnounced: { [weak self] provider, endpoint, fabric, session in
                guard let self else { return }
                await OTAUpdate(manager: self.manager, core: core, session: .secure(localSessionID: session), provider: provider,
                                endpoint: endpoint, fabricIndex: fabric, minimumDownload: self.otaMinimumDownload,
                                log: { [weak self] in self?.log($0) }).run()
            }))
        await manager.start()
        await core.start()
        // BasicInformation StartUp (critical), with SoftwareVersion, as a device does at boot.
        await server.emitEvent(endpoint: 0, cluster: .basicInformation, event: 0, priority: 2,
                               epochTimestampMs: UInt64(Date().timeIntervalSince1970 * 1000),
                               data: .structure([.unsigned(.context(0), DeviceCore.softwareVersion)]))
        startICDSchedule()
        startOTAQueries()
        let clock = self.clock
        reportPump = Task { [weak self] in
            // Ends with the device: a device released without stop() made `self?` calls return at
            // once, and the loop spun a worker thread at full speed for the rest of the process.
            while !Task.isCancelled {
                guard let device = self else { return }
                await device.sendDueReports()
                await device.sleepUntilReportsAreDue(clock)
            }
        }
    }

    /// Sleeps until the next report is due (at most 1 s), or until `wakeReportPump` (a change,
    /// a new subscription) ends the sleep early: no polling, so 200 devices in one process are
    /// quiet when nothing happens and report a change at once.
    private func sleepUntilReportsAreDue(_ clock: any MatterClock) async {
        let now = clock.now()
        let deadline = min(await server.nextReportDeadline ?? .max, now + 1000)
        // A wake that came while the deadline was read is not lost.
        if wakePending {
            wakePending = false
            return
        }
        // A clock timer, not a sleeping task: a change ends the sleep (below) without a task to
        // cancel and a timer to set again each time.
        await withCheckedContinuation { continuation in
            let timer = clock.schedule(at: deadline) { [weak self] in
                Task { await self?.endReportSleep() }
            }
            reportSleep = (continuation, timer)
        }
    }

    private func endReportSleep() {
        guard let sleep = reportSleep else { return }
        reportSleep = nil
        sleep.timer.cancel()
        sleep.continuation.resume()
    }

    /// Ends the report pump's sleep so it looks at the subscriptions again.
    private func wakeReportPump() {
        wakePending = true
        endReportSleep()
    }

    /// A sleepy device's wake: the reports that are due go out now.
    func wakeReportPumpForICD() { wakeReportPump() }

    // MARK: Subscriptions

    /// Sends the subscription reports that are due, each on a new exchange to its subscriber.
    private func sendDueReports() async {
        let now = clock.now()
        guard let next = await server.nextReportDeadline, next <= now else { return }
        for report in await server.dueReports(now: now) {
            if faults.contains(.silentSubscriptions) {
                await server.forgetSubscription(report.subscriptionID)
                continue
            }
            guard let id = report.context.sessionID,
                  let exchange = try? await manager.newExchange(on: .secure(localSessionID: id)) else { continue }
            let server = self.server
            Task { [weak self] in
                try? await server.deliver(report, on: MessagingIMExchange(exchange: exchange, timeout: .seconds(10)), now: now)
                await exchange.close()
                await self?.wakeReportPump()  // the subscription's next deadline moved
            }
        }
    }

    private func clusterChanged(_ endpoint: EndpointID, _ cluster: ClusterID) async {
        await markChanged(endpoint, cluster)
        wakeReportPump()
    }

    /// After an interaction's last message: what it changed goes to the subscriptions.
    private func interactionEnded(changing clusters: [ClusterPathIB]) async {
        for c in clusters { await markChanged(c.endpoint, c.cluster) }
        wakeReportPump()  // its changes, and a subscription that started or ended
    }

    /// Tells the server every attribute of the cluster changed (its data version moved).
    private func markChanged(_ endpoint: EndpointID, _ cluster: ClusterID) async {
        guard let c = dataModel.cluster(endpoint, cluster) else { return }
        await server.attributesChanged(c.attributes.map { ConcreteAttributePath(endpoint, cluster, $0) })
    }

    /// Withdraws the adverts and closes the socket.
    /// Drops every secure session without a word, as a device that restarts without sending
    /// CloseSession does: its controllers' next messages go unacknowledged.
    public func forgetSessions() async {
        for session in await manager.secureSessions() {
            await manager.removeSession(.secure(localSessionID: session.localSessionID))
        }
    }

    public func shutdown() async {
        await core.flushUnsaved()
        reportPump?.cancel()
        stopICDSchedule()
        otaQueries?.cancel()
        endReportSleep()
        await advertUpdate?.value
        commissionableAdvert?.withdraw()  // at shutdown: wait until the adverts are gone
        commissionableAdvert = nil
        for (_, a) in operationalAdverts.values { a.withdraw() }
        operationalAdverts = [:]
        await manager.shutdown()
    }

    // MARK: Interaction Model

    /// Feeds each IM message of an exchange the peer opened to the server and sends its replies
    /// on the same exchange, until the interaction ends.
    nonisolated func serveInteraction(_ exchange: Exchange, first: ReceivedMessage) async {
        guard let context = await InteractionServing.context(of: first.session, on: manager) else {
            await exchange.close()  // the IM never runs on an unsecured session
            return
        }
        let id = await core.beginInteraction()
        let (faults, manager, core, clock) = (self.faults, self.manager, self.core, self.clock)
        await Self.$servedInteraction.withValue(id) {
            await InteractionServing.serve(exchange, first: first, context: context, server: server, now: { clock.now() }) { _ in
                if faults.contains(.dropResponses) { return false }
                if faults.contains(.closeSession) {
                    // As the SDK does when the arming PASE session goes: the fail-safe expires too.
                    await manager.closeSession(first.session)
                    await core.rollBack()
                    return false
                }
                if faults.contains(.slowResponses) { try? await Task.sleep(for: .seconds(2)) }
                return true
            }
        }
        await exchange.close()
        await interactionEnded(changing: await core.endInteraction(id))
    }

    // MARK: Hooks from the core

    private func fabricsChanged(_ records: [FabricRecord]) async {
        var list: [FabricCredentials] = []
        for r in records {
            guard let key = try? P256PrivateKey(rawRepresentation: r.operationalKey),
                  let f = try? FabricCredentials(fabricIndex: r.index, rcac: r.rcac, icac: r.icac, noc: r.noc, operationalKey: key,
                                                 ipkEpochKey: SecretBytes(r.ipkEpochKey)) else {
                log("fabric \(r.index): stored credentials are unusable; CASE will not answer for it")
                continue
            }
            list.append(f)
        }
        caseResponder?.setFabrics(list)
        let indexes = Set(records.map(\.index))
        advertisedFabrics = indexes
        // Sessions of removed fabrics end once the current response has gone out.
        let stale = await manager.secureSessions().filter {
            if case .operational(let f, _, _) = $0.peer { return !indexes.contains(f) } else { return false }
        }
        if !stale.isEmpty {
            let manager = self.manager
            Task {
                try? await Task.sleep(for: .milliseconds(500))
                for s in stale { await manager.removeSession(.secure(localSessionID: s.localSessionID)) }
            }
        }
        guard advertises else { return }
        // The adverts follow in order, without holding up the command that changed the fabrics
        // (AddNOC's response does not wait for the daemon; CASE goes to the PASE address first).
        let previous = advertUpdate
        advertUpdate = Task { [weak self] in
            await previous?.value
            await self?.updateOperationalAdverts(records)
        }
    }

    /// Withdraws the adverts of fabrics that went and publishes those of new ones; operational
    /// adverts go out only on the operational network (a simulated radio joins it on ConnectNetwork).
    private func updateOperationalAdverts(_ records: [FabricRecord]) async {
        let indexes = Set(records.map(\.index))
        let online = await core.isOnOperationalNetwork
        for (index, (_, advert)) in operationalAdverts where !indexes.contains(index) || !online {
            advert.withdrawInBackground()
            operationalAdverts[index] = nil
        }
        guard online else { return }
        let port = await manager.localPort
        for r in records where operationalAdverts[r.index] == nil {
            let advert = OperationalAdvert(name: OperationalInstanceName(compressedFabricID: r.compressedFabricID, nodeID: r.nodeID),
                                           port: port, txt: sessionTXT())
            do {
                let published = try await AvahiAdvertisement.publish(advert.serviceAdvert())
                // The fabrics may have changed while it was being published.
                if advertisedFabrics.contains(r.index) && operationalAdverts[r.index] == nil, await core.isOnOperationalNetwork {
                    operationalAdverts[r.index] = (advert, published)
                } else {
                    published.withdrawInBackground()
                }
            } catch {
                log("cannot publish \(advert.name): \(error)")
            }
        }
    }

    /// The simulated interface joined (publish the operational adverts) or left the network.
    private func networkChanged(_ online: Bool) async {
        if advertises { log(online ? "joined the operational network" : "left the operational network") }
        await fabricsChanged(await core.state.fabrics)
    }

    private func windowChanged(_ window: CommissioningWindow?) async {
        pase?.setConfiguration(window.map {
            PASEResponder.Configuration(verifier: $0.verifier, salt: $0.salt, iterations: $0.iterations)
        })
        guard advertises else { return }
        windowGeneration += 1
        let generation = windowGeneration
        commissionableAdvert?.withdrawInBackground()
        commissionableAdvert = nil
        guard let window else { return }
        var txt = sessionTXT()
        txt.discriminator = window.discriminator
        txt.vendorID = vendorID
        txt.productID = productID
        txt.commissioningMode = window.kind == .basic ? 1 : 2
        txt.deviceType = core.kind.deviceType
        txt.deviceName = "MatterHub " + core.kind.rawValue.capitalized  // MatterHub Light, Plug, Bridge
        txt.pairingHint = 33
        let advert = CommissionableAdvert(instanceName: instanceName, port: await manager.localPort, txt: txt)
        do {
            let published = try await AvahiAdvertisement.publish(advert.serviceAdvert())
            // A later change of the window (while this one was being published) wins.
            if generation == windowGeneration { commissionableAdvert = published } else { published.withdrawInBackground() }
        } catch {
            log("cannot publish the commissionable advert: \(error)")
        }
    }

    private func sessionTXT() -> MatterTXT {
        let p = SessionParameters.matterHub
        return .operational(idleInterval: p.idleInterval, activeInterval: p.activeInterval, activeThreshold: p.activeThreshold)
    }

    /// Set after AddNOC under the reboot-mid-commissioning fault; the next Sigma1 ends the process.
    private let rebootPending = Flag()

    private func nocAdded() async {
        guard faults.contains(.rebootMidCommissioning) else { return }
        rebootPending.set()
    }

    nonisolated func log(_ s: String) {
        StandardError.line("virtual-device: \(s)")
    }
}

/// A count shared with tests.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// A one-way flag shared with the message handlers.
final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
