import MatterCertificates
import MatterCommissioning
import MatterHome
import MatterInteraction
import MatterMessaging
import MatterServerAPI
import MatterSetupPayload
import MatterTLV

/// Commissioning through the API: the hub commissions the device onto its fabric (one
/// commissioning session at a time, shared with every other client of this hub), interviews it
/// (the priming report of its subscription reads every attribute), then announces it.
extension HubService {
    func commission(code: String, networkOnly: Bool) async throws(APIError) -> JSONValue {
        guard networkOnly || Self.isOnNetworkCode(code) else {
            throw APIError(.nodeCommissionFailed, "Bluetooth commissioning is not available: this hub commissions devices on the IP network only")
        }
        return try await commission(payload: code)
    }

    /// `commission_on_network`: the pin code and, for filter types 1 and 2, the short or long
    /// discriminator (python-matter-server's DiscoveryFilterType), or an IP address.
    func commissionOnNetwork(pin: UInt32, filterType: Int, filter: JSONValue, ipAddress: String?) async throws(APIError) -> JSONValue {
        let discriminator: Discriminator
        switch (filterType, filter.uint64) {
        case (1, let short?) where short < 16: discriminator = .short(UInt8(short))
        case (2, let long?) where long < 4096: discriminator = .long(UInt16(long))
        case (1, _), (2, _):
            throw APIError(.invalidArguments, "commission_on_network: filter must be a short (0-15, filter_type 1) or long (0-4095, filter_type 2) discriminator")
        default:
            return try await commissionInCommissioningMode(pin: pin, ipAddress: ipAddress)
        }
        // As a manual code (which carries the short discriminator): the finder matches the long
        // one in the TXT records when it is given.
        let payload = SetupPayload(kind: .manualCode, vendorID: nil, productID: nil, commissioningFlow: .standard,
                                   discoveryCapabilities: nil, discriminator: .short(discriminator.shortValue), passcode: pin)
        guard let code = try? ManualPairingCode.encode(payload) else {
            throw APIError(.invalidArguments, "commission_on_network: \(pin) is not a valid setup pin code")
        }
        return try await commission(payload: code)
    }

    /// Only the PIN (Home Assistant's "shared device" screen and its Android app, for a device
    /// shared from Google Home or Apple Home): every device in commissioning mode (`_CM`) is
    /// tried as it is found, the one at `ipAddress` only when given, each by its own long
    /// discriminator from its TXT record; the first that accepts the PIN is commissioned. One at
    /// a time, since the hub holds one commissioning session; a wrong PIN fails in a PASE
    /// round trip, so the others wait milliseconds.
    func commissionInCommissioningMode(pin: UInt32, ipAddress: String?) async throws(APIError) -> JSONValue {
        let finder = DeviceFinder(discovery: hub.discovery)
        let wanted = ipAddress.map { String($0.split(separator: "%").first ?? "") }
        var wantedIP: [UInt8]?
        if let wanted {
            guard let address = PeerAddress(wanted, port: 0) else {
                throw APIError(.invalidArguments, "commission_on_network: ip_addr '\(ipAddress ?? "")' is not an IPv4 or IPv6 address")
            }
            wantedIP = address.ip
        }
        var tried: [String] = []
        do {
            for try await candidate in finder.candidatesInCommissioningMode(timeout: options.discoveryTimeout) {
                if let wantedIP, !candidate.addresses.contains(where: { $0.ip == wantedIP }) { continue }
                guard let d = candidate.discriminator, d < 4096 else { continue }
                let payload = SetupPayload(kind: .qrCode, vendorID: candidate.vendorID ?? 0, productID: candidate.productID ?? 0,
                                           commissioningFlow: .standard, discoveryCapabilities: .onNetwork,
                                           discriminator: .long(d), passcode: pin)
                guard let code = try? QRCode.encode([payload]) else {
                    throw APIError(.invalidArguments, "commission_on_network: \(pin) is not a valid setup pin code")
                }
                do {
                    return try await commission(payload: code)
                } catch {
                    guard error.code == .nodeCommissionFailed else { throw error }  // commissioned, then the interview failed
                    tried.append("\(candidate): \(error.details)")
                }
            }
        } catch let e as APIError {
            throw e
        } catch {
            throw APIError(.nodeCommissionFailed, "commission_on_network: discovery failed: \(error)")
        }
        let scope = wanted.map { "at \($0) " } ?? ""
        guard !tried.isEmpty else {
            throw APIError(.nodeCommissionFailed, """
                commission_on_network: no device \(scope)in commissioning mode was found within \(options.discoveryTimeout); \
                open its commissioning window (share it from its app) and retry
                """)
        }
        throw APIError(.nodeCommissionFailed, "commission_on_network: no device \(scope)in commissioning mode accepted the PIN; tried \(tried.joined(separator: "; "))")
    }

    static func isOnNetworkCode(_ code: String) -> Bool {
        guard let payloads = try? SetupPayload.parse(code) else { return true }  // the commissioner names the defect
        return payloads.allSatisfy { $0.discoveryCapabilities.map { $0.contains(.onNetwork) || $0.isEmpty } ?? true }
    }

    func commission(payload code: String) async throws(APIError) -> JSONValue {
        let structure: Structure
        do {
            guard let first = try await home.structures().first else { throw HomeError(.structureNotFound, "the home has no structure") }
            structure = first
            try await structure.prepareForMatterCommissioning()
        } catch {
            throw APIError(.nodeCommissionFailed, "cannot start commissioning: \(error)")
        }
        let request = structure.matterCommissioningRequest(
            topology: CommissioningTopology(ecosystemName: "MatterHub", homes: [.init(id: structure.id, name: structure.name)]),
            onboardingPayload: code, options: options)
        let results: [Result<CommissionedDevice, CommissioningError>]
        do { results = try await commissionReporting(request, name: nil, room: nil, source: .ohf).1 } catch {
            try? await structure.cancelMatterCommissioning()
            throw APIError(.nodeCommissionFailed, error.description)
        }
        _ = try? await structure.completeMatterCommissioning()
        guard let outcome = results.first else { throw APIError(.nodeCommissionFailed, "the setup code names no device") }
        let result: CommissionedDevice
        switch outcome {
        case .success(let r): result = r
        case .failure(let e): throw APIError(.nodeCommissionFailed, e.description)
        }
        let node = result.nodeID
        let live = await bringUp(node)
        let data = try await nodeData(node)
        guard live else {
            throw APIError(.nodeInterviewFailed, "node \(result.nodeID.rawValue) was commissioned but its interview did not finish; it is kept and retried")
        }
        return data.json
    }

    /// A node just commissioned: the fabric label, then the interview (the subscription's priming
    /// report reads every attribute), then `node_added` and `node_updated` for OHF listeners
    /// (when it came up within 30 s) and `matterhub/device_updated`. Whether it is live.
    func bringUp(_ node: NodeID) async -> Bool {
        if let label = fabricLabel, let client = try? await client(node) {
            _ = try? await client.invoke(Clusters.OperationalCredentials.UpdateFabricLabel(label: label), endpoint: 0)
        }
        announcing(node, true)
        await runtime.add(node)
        let live = await runtime.waitUntilAvailable(node, timeout: .seconds(30))
        announcing(node, false)
        interviewed(node)
        if live, let data = try? await nodeData(node) {
            publish(.nodeAdded(data))
            publish(.nodeUpdated(data))
        }
        await announceDevice(node.rawValue)
        return live
    }
}
