import MatterClusters
import MatterDiscovery
import MatterInteraction
import MatterInteractionMessaging
import MatterMessaging
import MatterOTA
import MatterSecureChannel
import MatterTLV

/// The hub as a Matter node of its own on its fabric, with the identity it commissions with: it
/// answers CASE on the hub's UDP socket (the one it reaches devices from), serves its endpoint-0
/// clusters (``ClusterTable``) to any node of its fabric, and, under `hub serve`, advertises
/// `<compressed fabric ID>-<node ID>._matter._tcp` so that devices can find it. It is what an OTA
/// requestor queries, what an ICD checks in with, and what a binding points to.
actor HubNode {
    let manager: ExchangeManager
    private(set) var credentials: FabricCredentials
    private(set) var compressedFabricID: UInt64
    private(set) var server: InteractionServer
    private let caseResponder: CASEResponder
    private let softwareVersionString: String
    /// The images the OTA Provider offers (nil: none, and BDX serves nothing).
    let imageStore: OTAImageStore?
    /// How far each node's update has come, as the provider and the BDX sender see it.
    let otaLedger = OTAUpdateLedger()
    /// How long each step of an update may take.
    private(set) var otaTimeouts = OTAUpdateTimeouts()
    let log: @Sendable (String) -> Void
    private var advert: AvahiAdvertisement?
    private var advertTask: Task<Void, Never>?
    private var advertLog: (@Sendable (String) -> Void)?

    var nodeID: UInt64 { credentials.identity.nodeID.rawValue }

    init(manager: ExchangeManager, credentials: FabricCredentials, compressedFabricID: UInt64, vendorID: UInt16,
         softwareVersionString: String, imageStore: OTAImageStore? = nil, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.manager = manager
        self.credentials = credentials
        self.compressedFabricID = compressedFabricID
        self.softwareVersionString = softwareVersionString
        self.imageStore = imageStore
        self.log = log
        caseResponder = CASEResponder(manager: manager, fabrics: [credentials])
        server = Self.server(credentials, compressedFabricID: compressedFabricID, vendorID: vendorID,
                             softwareVersionString: softwareVersionString, imageStore: imageStore, ledger: otaLedger, log: log)
    }

    func setOTATimeouts(_ timeouts: OTAUpdateTimeouts) { otaTimeouts = timeouts }

    /// The node on another fabric (a home moved in): CASE answers for it, the clusters say so,
    /// and the advert follows.
    func retarget(credentials: FabricCredentials, compressedFabricID: UInt64, vendorID: UInt16) async {
        self.credentials = credentials
        self.compressedFabricID = compressedFabricID
        caseResponder.setFabrics([credentials])
        server = Self.server(credentials, compressedFabricID: compressedFabricID, vendorID: vendorID,
                             softwareVersionString: softwareVersionString, imageStore: imageStore, ledger: otaLedger, log: log)
        if let log = advertLog {
            stop()
            await advertise(log: log)
        }
    }

    private static func server(_ credentials: FabricCredentials, compressedFabricID: UInt64, vendorID: UInt16,
                               softwareVersionString: String, imageStore: OTAImageStore?, ledger: OTAUpdateLedger,
                               log: @escaping @Sendable (String) -> Void) -> InteractionServer {
        let node = credentials.identity.nodeID.rawValue, fabricIndex = credentials.fabricIndex
        var servers: [any ClusterServer] = [
            HubNodeClusters.basicInformation(
                vendorID: vendorID, softwareVersionString: softwareVersionString,
                uniqueID: OperationalInstanceName(compressedFabricID: compressedFabricID, nodeID: node).description),
            HubNodeClusters.accessControl(hubNodeID: node, fabricIndex: fabricIndex),
        ]
        if let imageStore { servers.append(HubOTAProviderServer(store: imageStore, hubNodeID: node, ledger: ledger, log: log)) }
        let descriptor = HubNodeClusters.descriptor(servers: servers.map(\.id), isOTAProvider: imageStore != nil)
        let table = ClusterTable(endpoints: [0: [descriptor] + servers]) { context, access, _, cluster in
            allows(context, access, cluster, fabricIndex: fabricIndex, hubNodeID: node)
        }
        return InteractionServer(dataModel: table.dataModel, device: table, maxPathsPerInvoke: 1)
    }

    /// The ACL the Access Control cluster shows: View for any node of the hub's fabric over CASE,
    /// and Operate on the OTA Provider (its commands); everything for the hub's own identity;
    /// nothing over PASE (the hub is not commissionable).
    static func allows(_ context: IMSessionContext, _ access: ClusterAccess, _ cluster: ClusterID, fabricIndex: UInt8,
                       hubNodeID: UInt64) -> Bool {
        guard context.authMode == .case, context.fabricIndex == fabricIndex else { return false }
        return access == .read || context.peerNodeID == hubNodeID || (access == .invoke && cluster == .otaSoftwareUpdateProvider)
    }

    /// Answers CASE (Sigma1) from now on, and hands ICD Check-Ins (unsecured, unacknowledged) to
    /// `checkIn`; other unsolicited secure-channel messages are not ours.
    func start(checkIn: @escaping @Sendable ([UInt8], PeerAddress) async -> Void = { _, _ in }) async {
        let responder = caseResponder, manager = self.manager
        await manager.setHandler(for: .bdx) { [weak self] exchange, first in
            guard let self else { return await exchange.close() }
            await self.serveBDX(exchange, first: first)
        }
        await manager.setHandler(for: .secureChannel) { exchange, first in
            if first.opcode == SecureChannelOpcode.sigma1.rawValue {
                await responder.handle(exchange, first: first)
            } else if first.opcode == SecureChannelOpcode.icdCheckIn.rawValue, case .unsecured = first.session {
                // Each Check-In comes from a fresh random node ID: its unsecured session goes with it.
                await exchange.close()
                await manager.removeSession(first.session)
                await checkIn(first.payload, first.from)
            } else {
                await exchange.close()
            }
        }
    }

    /// Publishes the node's operational advert through avahi, in the background (a hub whose
    /// daemon is down still serves; the failure is logged).
    func advertise(log: @escaping @Sendable (String) -> Void) async {
        advertLog = log
        let port = await manager.localPort
        let p = SessionParameters.matterHub
        let txt = MatterTXT.operational(idleInterval: p.idleInterval, activeInterval: p.activeInterval,
                                        activeThreshold: p.activeThreshold)
        let advert = OperationalAdvert(name: OperationalInstanceName(compressedFabricID: compressedFabricID, nodeID: nodeID),
                                       port: port, txt: txt)
        advertTask = Task { [weak self] in
            do {
                let published = try AvahiAdvertisement(advert)
                await self?.keep(published)
                log("hub: node \(advert.name) advertised on UDP port \(port)")
            } catch {
                log("hub: cannot advertise the hub's node \(advert.name): \(error); devices cannot reach it by name")
            }
        }
    }

    private func keep(_ advert: AvahiAdvertisement) { self.advert = advert }

    func stop() {
        advertTask?.cancel()
        advert?.withdraw()
        advert = nil
    }

    /// One Interaction Model exchange a node opened with the hub (a read, an invoke).
    func serve(_ exchange: Exchange, first: ReceivedMessage) async {
        guard let context = await InteractionServing.context(of: first.session, on: manager) else {
            await exchange.close()
            return
        }
        let server = self.server
        await InteractionServing.serve(exchange, first: first, context: context, server: server,
                                       now: { SystemClock().now() })
        await exchange.close()
    }
}
