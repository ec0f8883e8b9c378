import MatterMessaging
import MatterSecureChannel

/// An OTA requestor that asks by itself (`--ota-query-interval S`): every S seconds it asks the
/// provider its administrator wrote in DefaultOTAProviders, over a CASE session it opens, as the
/// SDK's requestor does once a day; what follows is the same update as after an
/// AnnounceOTAProvider (``OTAUpdate``).
extension VirtualDevice {
    func startOTAQueries() {
        guard let seconds = otaQueryInterval, seconds > 0 else { return }
        otaQueries = Task { [weak self] in
            while !Task.isCancelled {
                do { try await Task.sleep(for: .seconds(Int(seconds))) } catch { return }
                await self?.queryDefaultProvider()
            }
        }
    }

    func queryDefaultProvider() async {
        guard let p = await core.defaultOTAProvider, let credentials = await core.fabricCredentials(p.fabricIndex) else { return }
        guard let address = await operationalAddress(ofNode: p.providerNodeID, fabricIndex: p.fabricIndex) else {
            log("OTA: the default provider cannot be found; asking again later")
            return
        }
        let session: SessionHandle
        do {
            session = try await CASEInitiator.establish(manager: manager, peer: address, fabric: credentials, peerNodeID: p.providerNodeID,
                                                        timeout: .seconds(5)).session
        } catch {
            log("OTA: cannot reach the default provider at \(address): \(error); asking again later")
            return
        }
        log("OTA: asking the default provider for an update")
        await OTAUpdate(manager: manager, core: core, session: session, provider: p.providerNodeID, endpoint: p.endpoint,
                        fabricIndex: p.fabricIndex, minimumDownload: otaMinimumDownload, log: { [weak self] in self?.log($0) }).run()
    }
}
