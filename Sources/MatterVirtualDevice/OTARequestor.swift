import MatterBDX
import MatterClusters
import MatterCrypto
import MatterInteraction
import MatterInteractionMessaging
import MatterMessaging
import MatterOTA
import MatterSecureChannel
import MatterTLV

/// The OTA Software Update Requestor's attributes (Matter Core 11.20.7.5): where it is in an
/// update, as a hub shows progress from them.
struct OTARequestorState: Sendable, Hashable {
    typealias A = Clusters.OtaSoftwareUpdateRequestor.Attribute
    static let attributeIDs = [A.defaultOTAProviders, A.updatePossible, A.updateState, A.updateStateProgress]

    /// UpdateStateEnum: 1 Idle, 2 Querying, 4 Downloading, 5 Applying.
    enum UpdateState: UInt8, Sendable {
        case idle = 1, querying = 2, downloading = 4, applying = 5
    }

    var updateState = UpdateState.idle
    /// Percent while downloading; null otherwise.
    var progress: UInt8?

    /// DefaultOTAProviders: where each fabric's administrator says to ask for updates (at most
    /// one per fabric, Matter Core 11.20.7.5.1).
    struct ProviderLocation: Sendable, Hashable {
        var fabricIndex: UInt8
        var providerNodeID: UInt64
        var endpoint: EndpointID
    }
    var defaultProviders: [ProviderLocation] = []

    /// The list written by fabric `fabricIndex` replaces its entry (or is appended to it).
    mutating func writeDefaultProviders(_ value: TLVElement, appending: Bool, fabricIndex: UInt8) throws(IMStatus) {
        typealias T = Clusters.OtaSoftwareUpdateRequestor.ProviderLocationTag
        func decode(_ e: TLVElement) throws(IMStatus) -> ProviderLocation {
            guard let node = try? e.required(T.providerNodeID).unsigned(as: UInt64.self),
                  let endpoint = try? e.required(T.endpoint).unsigned(as: UInt16.self) else { throw .invalidDataType }
            return ProviderLocation(fabricIndex: fabricIndex, providerNodeID: node, endpoint: EndpointID(endpoint))
        }
        var mine: [ProviderLocation] = []
        if appending {
            mine = defaultProviders.filter { $0.fabricIndex == fabricIndex } + [try decode(value)]
        } else {
            guard case .container(.array, let items) = value.value else { throw .invalidDataType }
            for item in items { mine.append(try decode(item)) }
        }
        guard mine.count <= 1 else { throw .constraintError }
        defaultProviders = defaultProviders.filter { $0.fabricIndex != fabricIndex } + mine
    }

    func attribute(_ id: AttributeID, fabricIndex: UInt8?) -> TLVElement? {
        typealias T = Clusters.OtaSoftwareUpdateRequestor.ProviderLocationTag
        switch id {
        case A.defaultOTAProviders:
            return .array(defaultProviders.filter { fabricIndex == nil || $0.fabricIndex == fabricIndex }.map {
                .structure([.unsigned(.context(T.providerNodeID), $0.providerNodeID), .unsigned(.context(T.endpoint), $0.endpoint.rawValue),
                            .unsigned(.context(T.fabricIndex), $0.fabricIndex)])
            })
        case A.updatePossible: return .bool(true)
        case A.updateState: return .unsigned(updateState.rawValue)
        case A.updateStateProgress: return progress.map { .unsigned($0) } ?? .null(.anonymous)
        default: return nil
        }
    }
}

/// What the device does once told of a provider (AnnounceOTAProvider): the requestor's whole
/// update (Matter Core 11.20.3), on the session the announcement came on: QueryImage, the
/// download over BDX (``BDXReceiver``), the image's checks, ApplyUpdateRequest, a "reboot" into
/// the new version (sessions closed), then NotifyUpdateApplied over a new CASE session.
struct OTAUpdate: Sendable {
    typealias P = Clusters.OtaSoftwareUpdateProvider
    let manager: ExchangeManager
    let core: DeviceCore
    let session: SessionHandle
    let provider: UInt64
    let endpoint: EndpointID
    let fabricIndex: UInt8
    /// `--ota-download-ms`: the download takes at least this long.
    var minimumDownload: Duration = .zero
    let log: @Sendable (String) -> Void

    func run() async {
        do {
            try await update()
        } catch {
            log("OTA update failed: \(error)")
            await core.setUpdateState(.idle, progress: nil)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private func invoke(_ client: InteractionClient, _ command: CommandID, _ fields: [TLVElement]) async throws -> TLVElement {
        let result = try await client.invoke(commandPath: CommandPathIB(endpoint, .otaSoftwareUpdateProvider, command),
                                             fields: .structure(fields))
        guard case .response(let data) = result, let response = data.fields else {
            throw Failure(description: "the provider answered command \(command) with \(result)")
        }
        return response
    }

    private func update() async throws {
        let (vendor, product, version) = await core.identity
        await core.setUpdateState(.querying, progress: nil)
        let client = InteractionClient.over(manager, session: session, timeout: .seconds(10))
        let answer = try await invoke(client, P.Command.queryImage, [
            .unsigned(.context(P.QueryImageTag.vendorID), vendor), .unsigned(.context(P.QueryImageTag.productID), product),
            .unsigned(.context(P.QueryImageTag.softwareVersion), version),
            .array(.context(P.QueryImageTag.protocolsSupported), [.unsigned(P.DownloadProtocolEnum.bdxSynchronous.rawValue)]),
        ])
        let status = try answer.required(P.QueryImageResponseTag.status).unsigned(as: UInt8.self)
        guard status == P.StatusEnum.updateAvailable.rawValue else {
            log("OTA: the provider has no update (status \(status))")
            await core.setUpdateState(.idle, progress: nil)
            return
        }
        let uri = try answer.required(P.QueryImageResponseTag.imageURI).utf8()
        let token = try answer.required(P.QueryImageResponseTag.updateToken).bytes()
        // bdx://<16 hex digits: the provider's node ID>/<file designator>
        guard uri.hasPrefix("bdx://"), case let rest = uri.dropFirst(6), let slash = rest.firstIndex(of: "/"),
              UInt64(rest[..<slash], radix: 16) == provider else {
            throw Failure(description: "the ImageURI \(uri) is not bdx://<provider node ID>/<file>")
        }
        let designator = String(rest[rest.index(after: slash)...])

        let fault = await core.takeOTAFault()
        if let fault { log("OTA: this update shows the fault \(fault.rawValue)") }
        await core.setUpdateState(.downloading, progress: 0)
        // UpdateStateProgress in steps of 10% of the length the provider accepted with.
        var image: [UInt8] = []
        var length: UInt64 = 0
        var reported = 0
        let core = self.core, minimum = minimumDownload, started = ContinuousClock.now
        _ = try await BDXReceiver.receive(manager: manager, session: session, fileDesignator: Array(designator.utf8),
                                          accepted: { length = $0.length }) { block in
            image += block
            if fault == .otaAbandonTransfer, UInt64(image.count) * 2 >= length {
                // Silent from here: no BlockQuery, no StatusReport, until the device gives up.
                try await Task.sleep(for: .seconds(5))
                throw Failure(description: "the download was abandoned half-way (fault ota-abandon-transfer)")
            }
            guard length > 0 else { return }
            let percent = Int(min(UInt64(image.count) * 100 / length, 100))
            if percent >= reported + 10 {
                reported = percent
                await core.setUpdateState(.downloading, progress: UInt8(percent))
                // A slow radio: this much of the image not before this much of the minimum time.
                try await Task.sleep(until: started + minimum * (Double(percent) / 100))
            }
        }
        // The image's own checks before anything is applied: whom it is for, size, digest.
        let header = try OTAImageHeader(parsing: image, fileSize: UInt64(image.count))
        guard SHA256.hash(image[header.payloadOffset...]) == header.digest else {
            throw Failure(description: "the downloaded image's payload does not match its sha-256 digest")
        }
        if let refusal = header.refusal(vendorID: vendor, productID: product, currentVersion: version) {
            throw Failure(description: "the downloaded image does not apply: \(refusal)")
        }
        if fault == .otaRefuseImage { throw Failure(description: "the downloaded image is refused (fault ota-refuse-image)") }
        await core.setUpdateState(.downloading, progress: 100)

        await core.setUpdateState(.applying, progress: nil)
        let apply = try await invoke(client, P.Command.applyUpdateRequest, [
            .bytes(.context(P.ApplyUpdateRequestTag.updateToken), token),
            .unsigned(.context(P.ApplyUpdateRequestTag.newVersion), header.softwareVersion),
        ])
        guard try apply.required(P.ApplyUpdateResponseTag.action).unsigned(as: UInt8.self) == P.ApplyUpdateActionEnum.proceed.rawValue else {
            throw Failure(description: "the provider did not say Proceed")
        }
        if fault == .otaNeverApply {
            log("OTA: told to proceed, but never applying version \(header.softwareVersion) (fault ota-never-apply)")
            await core.setUpdateState(.idle, progress: nil)
            return
        }
        let peer = manager.peerAddress(of: session)
        // The "reboot": the new version from now on, every session gone (as after a restart).
        await core.install(version: header.softwareVersion, string: header.softwareVersionString)
        for s in await manager.secureSessions() {
            if case .operational = s.peer { await manager.closeSession(.secure(localSessionID: s.localSessionID)) }
        }
        log("OTA: now running \(header.softwareVersion) (\(header.softwareVersionString))")
        guard let peer, let credentials = await core.fabricCredentials(fabricIndex) else { return }
        // NotifyUpdateApplied over a new session to the provider, with a few tries (the hub may
        // be busy reconnecting to us).
        for attempt in 1...5 {
            do {
                let fresh = try await CASEInitiator.establish(manager: manager, peer: peer, fabric: credentials, peerNodeID: provider,
                                                              timeout: .seconds(5)).session
                let notify = InteractionClient.over(manager, session: fresh, timeout: .seconds(10))
                _ = try await notify.invoke(commandPath: CommandPathIB(endpoint, .otaSoftwareUpdateProvider, P.Command.notifyUpdateApplied),
                                            fields: .structure([.bytes(.context(P.NotifyUpdateAppliedTag.updateToken), token),
                                                                .unsigned(.context(P.NotifyUpdateAppliedTag.softwareVersion),
                                                                          header.softwareVersion)]))
                return
            } catch {
                log("OTA: NotifyUpdateApplied attempt \(attempt) failed: \(error)")
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
