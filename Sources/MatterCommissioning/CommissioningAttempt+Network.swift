import MatterClusters
import MatterInteraction
import MatterInteractionMessaging
import MatterMessaging

/// Steps 16 and 17 (Matter Core 5.5; 11.9.7): a Wi-Fi or Thread device that is not on the
/// operational network yet is given the network's credentials and joins it, over the PASE
/// session and inside the fail-safe (so a failure, or the fail-safe's expiry, makes the device
/// forget them again). Each NetworkCommissioningStatus other than Success ends the attempt with
/// its name, what it means and what to try; the credentials themselves never appear in a
/// message. Breadcrumbs are the step numbers, as for the other steps.
extension CommissioningAttempt {
    typealias NC = Clusters.NetworkCommissioning

    /// Which network to join, once the commissioning info is read. A device off the network
    /// without credentials for any of its interfaces fails here, before the fail-safe is armed:
    /// nothing has to be rolled back.
    func planNetwork() throws(CommissioningError) {
        guard let interfaces = networkInterfaces else { return }
        do throws(NetworkPlan.Unavailable) {
            networkPlan = try NetworkPlan.make(interfaces: interfaces, wifi: options.wifiCredentials, thread: options.threadDataset)
        } catch {
            throw fail(.addNetwork, .networkCredentialsMissing, error.reason, error.hint)
        }
    }

    /// A client on the commissioning channel whose requests wait `extra` longer than usual:
    /// a scan or a connection takes the device up to Scan/ConnectMaxTimeSeconds.
    func commissioningClient(waitingAlso extra: UInt8) -> InteractionClient {
        guard let pase else { preconditionFailure("no PASE session") }
        return InteractionClient.over(manager, session: pase.session, timeout: options.responseTimeout + .seconds(Int(extra)))
    }

    /// Step 16 (optional): ScanNetworks. For Wi-Fi a directed scan for the SSID, which must see
    /// it; for Thread a scan of the networks in range, where missing ours is only a warning (a
    /// Thread scan is one round of beacons that routers far away can miss; ConnectNetwork
    /// decides).
    func scanNetworks() async throws(CommissioningError) {
        guard let plan = networkPlan else { return }
        let client = commissioningClient(waitingAlso: plan.scanMaxTimeSeconds)
        let breadcrumb = UInt64(CommissioningStep.scanNetworks.specNumber)
        let ssid: [UInt8]? = if case .wifi(let c) = plan.credentials { c.ssid } else { nil }
        let response = try await im(.scanNetworks) {
            try await client.invoke(NC.ScanNetworks(ssid: ssid, breadcrumb: breadcrumb), endpoint: plan.endpoint)
        }
        guard response.networkingStatus == .success else {
            throw networkFailure(.scanNetworks, plan, "ScanNetworks", response.networkingStatus, response.debugText)
        }
        switch plan.credentials {
        case .wifi(let c):
            guard (response.wifiScanResults ?? []).contains(where: { $0.ssid == c.ssid }) else {
                throw CommissioningError(step: .scanNetworks, device: label, code: .networkNotFound,
                                         reason: "the device's scan for \(plan.label) did not see it (\(NC.Status.networkNotFound.name))",
                                         hint: NC.Status.networkNotFound.remedy(thread: false), networkStatus: .networkNotFound)
            }
        case .thread:
            let xpan = plan.networkID.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            if !(response.threadScanResults ?? []).contains(where: { $0.extendedPANID == xpan }) {
                warnings.append("\(label): the device's scan did not hear \(plan.label); trying to join it anyway")
            }
        }
    }

    /// Step 16: AddOrUpdateWiFiNetwork or AddOrUpdateThreadNetwork.
    func addNetwork() async throws(CommissioningError) {
        guard let plan = networkPlan else { return }
        let client = commissioningClient
        let breadcrumb = UInt64(CommissioningStep.addNetwork.specNumber)
        let response: NC.NetworkConfigResponse
        switch plan.credentials {
        case .wifi(let c):
            response = try await im(.addNetwork) {
                try await client.invoke(NC.AddOrUpdateWiFiNetwork(ssid: c.ssid, credentials: c.passphrase.bytes, breadcrumb: breadcrumb),
                                        endpoint: plan.endpoint)
            }
        case .thread(_, let tlvs):
            response = try await im(.addNetwork) {
                try await client.invoke(NC.AddOrUpdateThreadNetwork(operationalDataset: tlvs, breadcrumb: breadcrumb), endpoint: plan.endpoint)
            }
        }
        guard response.networkingStatus == .success else {
            let command = plan.isThread ? "AddOrUpdateThreadNetwork" : "AddOrUpdateWiFiNetwork"
            throw networkFailure(.addNetwork, plan, command, response.networkingStatus, response.debugText)
        }
    }

    /// Step 17: ConnectNetwork, with the fail-safe just re-armed (the step table asks for it)
    /// and a timeout of the device's ConnectMaxTimeSeconds on top of the usual one.
    func connectNetwork() async throws(CommissioningError) {
        guard let plan = networkPlan else { return }
        let client = commissioningClient(waitingAlso: plan.connectMaxTimeSeconds)
        let breadcrumb = UInt64(CommissioningStep.connectNetwork.specNumber)
        let response = try await im(.connectNetwork) {
            try await client.invoke(NC.ConnectNetwork(networkID: plan.networkID, breadcrumb: breadcrumb), endpoint: plan.endpoint)
        }
        guard response.networkingStatus == .success else {
            let detail = response.errorValue.map { ", error value \($0)" } ?? ""
            throw networkFailure(.connectNetwork, plan, "ConnectNetwork", response.networkingStatus, response.debugText, detail)
        }
    }

    /// The error of a network step that the device answered with `status`.
    func networkFailure(_ step: CommissioningStep, _ plan: NetworkPlan, _ command: String, _ status: NC.Status,
                        _ debugText: String?, _ detail: String = "") -> CommissioningError {
        CommissioningError(step: step, device: label, code: status.commissioningCode,
                           reason: "the device answered \(status.name) to \(command) for \(plan.label): \(status.meaning)\(detail)"
                               + plan.scrub(debugText),
                           hint: status.remedy(thread: plan.isThread), networkStatus: status)
    }
}
