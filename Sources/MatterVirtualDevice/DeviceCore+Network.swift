import MatterClusters
import MatterInteraction
import MatterTLV

typealias NC = Clusters.NetworkCommissioning

extension DeviceCore {
    // MARK: Network Commissioning (Matter Core 11.9)

    /// The NetworkCommissioning commands of the simulated radio. Each needs the fail-safe
    /// (FAILSAFE_REQUIRED otherwise); the first change under a fail-safe saves the networks as
    /// they were, which its expiry or ArmFailSafe(0) restores (11.9.7.5, 11.10.7.2.2).
    func networkCommissioning(_ command: CommandID, _ fields: TLVElement?) async -> CommandOutcome {
        guard radio != nil else { return .status(StatusIB(.unsupportedCommand)) }
        guard failSafe != nil else { return .status(StatusIB(.failsafeRequired)) }
        func decode<T: CommandFields>(_ type: T.Type) -> T? { fields.flatMap { try? T(element: $0) } }
        let invalid = CommandOutcome.status(StatusIB(.invalidCommand))
        switch command {
        case NC.Command.scanNetworks:
            guard let req = decode(NC.ScanNetworks.self) else { return invalid }
            let response = radio!.scan(ssid: req.ssid)
            finish(req.breadcrumb)
            return .response(NC.Command.scanNetworksResponse, response.fields)

        case NC.Command.addOrUpdateWiFiNetwork:
            guard let req = decode(NC.AddOrUpdateWiFiNetwork.self) else { return invalid }
            saveNetworksForRollback()
            let response = radio!.addOrUpdateWiFi(ssid: req.ssid, credentials: req.credentials)
            finish(response.networkingStatus == .success ? req.breadcrumb : nil)
            return .response(NC.Command.networkConfigResponse, response.fields)

        case NC.Command.addOrUpdateThreadNetwork:
            guard let req = decode(NC.AddOrUpdateThreadNetwork.self) else { return invalid }
            saveNetworksForRollback()
            let response = radio!.addOrUpdateThread(dataset: req.operationalDataset)
            finish(response.networkingStatus == .success ? req.breadcrumb : nil)
            return .response(NC.Command.networkConfigResponse, response.fields)

        case NC.Command.removeNetwork:
            guard let f = fields, let idField = f[context: 0], let id = try? idField.bytes() else { return invalid }
            saveNetworksForRollback()
            let response = radio!.remove(id: id)
            let breadcrumb = f[context: 1].flatMap { try? $0.unsigned(as: UInt64.self) }
            finish(response.networkingStatus == .success ? breadcrumb : nil)
            return .response(NC.Command.networkConfigResponse, response.fields)

        case NC.Command.connectNetwork:
            guard let req = decode(NC.ConnectNetwork.self) else { return invalid }
            saveNetworksForRollback()
            let wasOnline = isOnOperationalNetwork
            let response = radio!.connect(id: req.networkID)
            finish(response.networkingStatus == .success ? req.breadcrumb : nil)
            if wasOnline != isOnOperationalNetwork { await networkChangedHook() }
            return .response(NC.Command.connectNetworkResponse, response.fields)

        default:
            return .status(StatusIB(.unsupportedCommand))
        }
    }

    /// After a command: its breadcrumb (on success), and the cluster's new data version.
    private func finish(_ breadcrumb: UInt64?) {
        if let breadcrumb { setBreadcrumb(breadcrumb) }
        bump(0, .networkCommissioning)
    }
}
