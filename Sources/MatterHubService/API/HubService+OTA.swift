import FoundationEssentials
import MatterClusters
import MatterHome
import MatterInteraction
import MatterOTA
import MatterServerAPI
import MatterTLV
import MatterTrustStore

/// `check_node_update` and `update_node` (python-matter-server's shapes) from the images the hub
/// offers (`matterctl ota add`): a node has an update when the store holds a newer image for its
/// vendor and product that applies to the version it runs; installing it tells the node, through
/// its OTA Software Update Requestor (AnnounceOTAProvider), to ask the hub's OTA Provider, from
/// which it downloads the image over BDX. Its progress shows in its UpdateState attributes (0/42/2, 0/42/3).
extension HubService {
    typealias Basic = Clusters.BasicInformation.Attribute

    /// What the node says it runs: vendor, product and software version from its Basic Information.
    func installedSoftware(_ id: NodeID, for command: String) async throws(APIError) -> (vendor: UInt16, product: UInt16, version: UInt32) {
        guard (try? hub.store.node(id)) != nil else { throw APIError(.nodeNotExists, "Node \(id.rawValue) does not exist") }
        let cache = await runtime.attributes(of: id)
        func value<T: FixedWidthInteger & UnsignedInteger>(_ attribute: AttributeID, _: T.Type) -> T? {
            try? cache[ConcreteAttributePath(0, .basicInformation, attribute)]?.unsigned(as: T.self)
        }
        guard let vendor = value(Basic.vendorID, UInt16.self), let product = value(Basic.productID, UInt16.self),
              let version = value(Basic.softwareVersion, UInt32.self) else {
            throw APIError(.updateCheckError, "\(command): node \(id.rawValue) has not reported its vendor, product and software version yet; "
                           + "try again once it is available")
        }
        return (vendor, product, version)
    }

    /// The newest update for the node: the hub's own images and, when one is set, the DCL's
    /// published versions (the newer wins; the hub's image on a tie, as it needs no download).
    /// A DCL that cannot be reached is skipped (and left alone for a while) when the hub holds
    /// an image; otherwise its failure is the answer.
    func availableUpdate(_ id: NodeID, for command: String) async throws(APIError) -> FirmwareOffer? {
        let installed = try await installedSoftware(id, for: command)
        let local = node.imageStore?.best(vendorID: installed.vendor, productID: installed.product, currentVersion: installed.version)
            .map(FirmwareOffer.local)
        guard let dcl = firmwareDCLToAsk else { return local }
        let published: DCLModelVersion?
        do {
            published = try await dcl.client.newestUpdate(vendorID: installed.vendor, productID: installed.product,
                                                           currentVersion: installed.version)
        } catch {
            if error.code == .unreachable { quietFirmwareDCL() }
            if local != nil {
                logger("hub: \(command): the DCL was not asked for node \(id.rawValue)'s firmware: \(error.message); the hub's own image is offered")
                return local
            }
            throw APIError(.updateCheckError, "\(command): cannot ask the DCL (\(dcl.client.base.absoluteString)) for updates of node "
                           + "\(id.rawValue): \(error.message); the hub asks again in \(FirmwareDCL.unreachableBackoff), or add an image "
                           + "with 'matterctl ota add FILE'")
        }
        guard let published else { return local }
        if let local, local.version >= published.softwareVersion { return local }
        return .dcl(published, source: dcl.source)
    }

    /// The stored image of an offer: a DCL version is fetched first (checked against the
    /// ledger's size and checksum, then as any image is: header and digest) and kept, so a retry
    /// does not fetch it again.
    func storedImage(of offer: FirmwareOffer, for id: NodeID) async throws(APIError) -> OTAImageStore.Image {
        switch offer {
        case .local(let image):
            return image
        case .dcl(let record, _):
            guard let store = node.imageStore, let dcl = firmwareDCL else {
                throw APIError(.updateError, "update_node: this hub takes no firmware images")
            }
            if let held = store.images().first(where: {
                $0.header.vendorID == record.vendorID && $0.header.productID == record.productID
                    && $0.header.softwareVersion == record.softwareVersion
            }) { return held }
            let started = ContinuousClock.now
            let staging = store.directory + "/uploads/dcl-\(record.vendorID)-\(record.productID)-\(record.softwareVersion).part"
            defer { try? FileManager.default.removeItem(atPath: staging) }
            do {
                try FileManager.default.createDirectory(atPath: store.directory + "/uploads", withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw APIError(.updateError, "update_node: the hub cannot stage a download in \(store.directory)/uploads: \(error)")
            }
            do { try await dcl.client.otaImage(record, toFile: staging) } catch {
                throw APIError(.updateError, "update_node: version \(record.softwareVersion) for node \(id.rawValue) could not be fetched "
                               + "from the DCL's otaUrl: \(error.message); the node still runs its old version")
            }
            do {
                // Checked before it is stored: an image of another version must not replace that
                // version's image.
                let header = try OTAImageFile.header(path: staging)
                guard header.vendorID == record.vendorID, header.productID == record.productID,
                      header.softwareVersion == record.softwareVersion else {
                    throw OTAImageError(.unreadable, "its header says version \(header.softwareVersion) of "
                                        + "\(header.vendorID)/\(header.productID), not the DCL's")
                }
                let image = try store.add(path: staging)
                logger("hub: fetched \(image.name) from the DCL: \(OTATransferRate(bytes: image.header.totalSize, took: .now - started))")
                return image
            } catch let error as OTAImageError {
                throw APIError(.updateError, "update_node: the DCL's image of version \(record.softwareVersion) was refused: "
                               + "\(error.description); the node still runs its old version")
            } catch {
                throw APIError(.updateError, "update_node: the DCL's image could not be stored: \(error)")
            }
        }
    }

    public var otaUploadDirectory: String? { node.imageStore.map { $0.directory + "/uploads" } }

    /// An uploaded image (`POST /ota-upload/<id>`), checked and added as `matterctl ota add` does.
    public func importOTAImage(atPath path: String) async throws(APIError) -> JSONValue {
        guard let store = node.imageStore else { throw APIError(.otaUploadError, "This hub takes no firmware images") }
        do {
            let image = try store.add(path: path)
            let h = image.header
            logger("hub: uploaded OTA image stored as \(image.name) (version \(h.softwareVersion) \"\(h.softwareVersionString)\")")
            return FirmwareOffer.local(image).json
        } catch {
            throw APIError(.otaUploadError, "The uploaded image was refused: \(error.description)")
        }
    }

    func checkNodeUpdate(_ id: NodeID) async throws(APIError) -> JSONValue {
        try await availableUpdate(id, for: "check_node_update")?.json ?? .null
    }

    /// Installs `version` on the node, as python-matter-server's update_node does: returns once
    /// the node runs it, or fails naming the step that did not happen (each bounded by
    /// ``OTAUpdateTimeouts``): AnnounceOTAProvider, the node's QueryImage, its download over BDX,
    /// its ApplyUpdateRequest, its restart into the new version. One at a time per node; a
    /// failed update can be retried at once.
    func updateNode(_ id: NodeID, to version: SoftwareVersion) async throws(APIError) -> JSONValue {
        let ledger = node.otaLedger
        guard ledger.beginFollowing(id.rawValue) else {
            throw APIError(.updateError, "update_node: node \(id.rawValue) is already being updated; wait for that update to end")
        }
        defer { ledger.endFollowing(id.rawValue) }
        let image = try await announceUpdate(id, to: version)
        try await followUpdate(id, to: image, announced: .now)
        logger("hub: node \(id.rawValue) runs version \(image.header.softwareVersion) now")
        return .null
    }

    /// Tells the node to fetch `version` from the hub: AnnounceOTAProvider with reason
    /// UpdateAvailable, naming the hub's node on endpoint 0.
    private func announceUpdate(_ id: NodeID, to version: SoftwareVersion) async throws(APIError) -> OTAImageStore.Image {
        guard let offer = try await availableUpdate(id, for: "update_node") else {
            throw APIError(.updateError, "update_node: the hub has no newer image for node \(id.rawValue); add one with 'matterctl ota add FILE'")
        }
        guard offer.matches(version) else {
            throw APIError(.updateError, "update_node: the hub offers version \(offer.version) "
                           + "(\(offer.versionString)) for node \(id.rawValue), not \(version.text)")
        }
        let image = try await storedImage(of: offer, for: id)
        let requestor = await runtime.attributes(of: id).keys.contains { $0.endpoint == 0 && $0.cluster == .otaSoftwareUpdateRequestor }
        guard requestor else {
            throw APIError(.updateError, "update_node: node \(id.rawValue) has no OTA Software Update Requestor cluster, so it cannot "
                           + "be updated over Matter; update it with its vendor's app")
        }
        try await requireReadyNode(id)
        typealias T = Clusters.OtaSoftwareUpdateRequestor.AnnounceOTAProviderTag
        let fields = TLVElement.structure([
            .unsigned(.context(T.providerNodeID), await node.nodeID),
            .unsigned(.context(T.vendorID), (try? await hub.fabric().vendorID) ?? 0xFFF1),
            .unsigned(.context(T.announcementReason), UInt8(1)),  // UpdateAvailable
            .unsigned(.context(T.endpoint), UInt16(0)),
        ])
        let client = try await client(id)
        let path = CommandPathIB(0, .otaSoftwareUpdateRequestor, Clusters.OtaSoftwareUpdateRequestor.Command.announceOTAProvider)
        let result: InvokeResult
        do { result = try await client.invoke(commandPath: path, fields: fields) } catch {
            throw APIError.device(error, "AnnounceOTAProvider to node \(id.rawValue)")
        }
        if case .status(let status) = result, let error = status.error(at: .command(path)) {
            throw APIError.device(error, "AnnounceOTAProvider to node \(id.rawValue)")
        }
        logger("hub: node \(id.rawValue) told to fetch \(image.name) from the hub")
        return image
    }

    /// Waits until the node runs `image`'s version, reading what the provider and the BDX sender
    /// saw (the ledger) and what the node reports (its UpdateState and SoftwareVersion).
    private func followUpdate(_ id: NodeID, to image: OTAImageStore.Image, announced: ContinuousClock.Instant) async throws(APIError) {
        typealias R = Clusters.OtaSoftwareUpdateRequestor.Attribute
        let (ledger, limits) = (node.otaLedger, await node.otaTimeouts)
        let target = image.header.softwareVersion
        func failure(_ what: String) -> APIError {
            APIError(.updateError, "update_node: node \(id.rawValue) \(what); it still runs its old version and can be updated again")
        }
        func percent(_ sent: UInt64, _ length: UInt64) -> String { length == 0 ? "0 %" : "\(sent * 100 / length) %" }
        while true {
            // A stop cuts the transfer too: say so rather than what the cut looks like.
            try? await Task.sleep(for: .milliseconds(200))
            if Task.isCancelled || isStopping {
                throw APIError(.updateError, "update_node: the hub is stopping; node \(id.rawValue)'s update was left unfinished "
                               + "(it still runs its old version; ask again once the hub is back)")
            }
            let cache = await runtime.attributes(of: id)
            let running = try? cache[ConcreteAttributePath(0, .basicInformation, Basic.softwareVersion)]?.unsigned(as: UInt32.self)
            // Back and reachable too, so that a command right after update_node reaches it.
            if running == target, await runtime.isAvailable(id) { return }
            // Idle (1): the requestor is not updating (any more).
            let idle = (try? cache[ConcreteAttributePath(0, .otaSoftwareUpdateRequestor, R.updateState)]?.unsigned(as: UInt8.self)) == 1
            let now = ContinuousClock.now
            guard let entry = ledger.entry(of: id.rawValue) else {
                if now - announced > limits.query {
                    throw failure("did not ask the hub for the image (QueryImage) within \(limits.query) of AnnounceOTAProvider")
                }
                continue
            }
            let quiet = now - entry.at
            switch entry.step {
            case .notOffered(let why):
                throw failure("asked, but was offered nothing: \(why)")
            case .offered:
                if quiet > limits.transferStart { throw failure("was offered \(image.name) but did not start downloading it within \(limits.transferStart)") }
            case .downloading(let sent, let length):
                // A second of silence with the requestor back at Idle: it gave the download up.
                if idle && quiet > .seconds(1) {
                    throw failure("abandoned the download of \(image.name) at \(percent(sent, length)) (its requestor went back to Idle)")
                }
                if quiet > limits.transferStall + .seconds(5) { throw failure("stopped downloading \(image.name) at \(percent(sent, length))") }
            case .transferFailed(let sent, let length, let reason):
                throw failure("did not finish downloading \(image.name): it ended at \(percent(sent, length)): \(reason)")
            case .downloaded:
                if idle && quiet > .seconds(1) {
                    throw failure("refused \(image.name) after downloading it (its requestor went back to Idle without ApplyUpdateRequest)")
                }
                if quiet > limits.applyRequest { throw failure("downloaded \(image.name) but did not ask to apply it within \(limits.applyRequest)") }
            case .applying(let version):
                if quiet > limits.reboot {
                    throw failure("was told to apply version \(version) but did not restart into it within \(limits.reboot)"
                                  + (running.map { " (it reports version \($0))" } ?? ""))
                }
            case .applied(let version):
                // NotifyUpdateApplied comes before the resubscription shows the new
                // SoftwareVersion: wait (a while) for the cache, so that a read right after
                // update_node returns sees the version it installed.
                if version == target {
                    if quiet > min(limits.reboot, .seconds(30)) { return }
                    continue
                }
                throw failure("reports it applied version \(version), not \(target)")
            }
        }
    }

    /// How long each step of an update may take (tests shorten them).
    public func setOTAUpdateTimeouts(_ timeouts: OTAUpdateTimeouts) async { await node.setOTATimeouts(timeouts) }

    /// A node that can update (an OTA Requestor on endpoint 0) is told where to ask by itself:
    /// its DefaultOTAProviders names the hub's own node (endpoint 0, the OTA Provider), so that
    /// it finds the hub's images on its own schedule, not only when `update_node` announces them.
    /// A failure is logged; `update_node` still works.
    func writeDefaultOTAProvider(_ id: NodeID) async {
        guard node.imageStore != nil else { return }
        let servers = await runtime.attributes(of: id)[ConcreteAttributePath(0, .descriptor, Clusters.Descriptor.Attribute.serverList)]
        guard servers?.members.contains(where: { (try? $0.unsigned(as: UInt32.self)) == ClusterID.otaSoftwareUpdateRequestor.rawValue }) == true
        else { return }
        typealias T = Clusters.OtaSoftwareUpdateRequestor.ProviderLocationTag
        let hubNode = await node.nodeID
        let providers = TLVElement.array([.structure([.unsigned(.context(T.providerNodeID), hubNode),
                                                      .unsigned(.context(T.endpoint), UInt16(0))])])
        let path = ConcreteAttributePath(0, .otaSoftwareUpdateRequestor, Clusters.OtaSoftwareUpdateRequestor.Attribute.defaultOTAProviders)
        do {
            try await client(id).writeAttribute(path, value: providers)
            logger("hub: node \(id.rawValue) asks the hub for updates by itself now (DefaultOTAProviders)")
        } catch {
            logger("hub: node \(id.rawValue)'s DefaultOTAProviders could not be written: \(error); update_node still announces updates")
        }
    }
}

extension SoftwareVersion {
    /// As the client gave it.
    var text: String {
        switch self {
        case .number(let n): String(n)
        case .string(let s): "\"\(s)\""
        }
    }
}
