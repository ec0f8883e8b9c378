import MatterCertificates
import MatterClusters
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
    /// `wifiEntry` / `threadEntry`: the stored credential entries to give the device (nil: the defaults).
    /// `discoveryTimeout`: seconds to look for the device (schema 14), instead of the hub's default.
    func commission(code: String, networkOnly: Bool, wifiEntry: String? = nil, threadEntry: String? = nil,
                    discoveryTimeout: Double? = nil) async throws(APIError) -> JSONValue {
        guard networkOnly || Self.isOnNetworkCode(code) else {
            throw APIError(.nodeCommissionFailed, "Bluetooth commissioning is not available: this hub commissions devices on the IP network only")
        }
        var chosen = try await options(wifiEntry: wifiEntry, threadEntry: threadEntry)
        if let discoveryTimeout { chosen = Self.with(discoveryTimeout, chosen ?? options) }
        return try await commission(payload: code, options: chosen)
    }

    /// `options` looking for the device for `seconds`.
    static func with(_ seconds: Double, _ options: CommissioningOptions) -> CommissioningOptions {
        var o = options
        o.discoveryTimeout = .milliseconds(Int64(seconds * 1000))
        return o
    }

    /// `commission_on_network`: the pin code and, for filter types 1 and 2, the short or long
    /// discriminator (python-matter-server's DiscoveryFilterType), 3 a vendor ID, 4 a device type
    /// (schema 14), or an IP address. `discoveryTimeout` (schema 14): seconds to look.
    func commissionOnNetwork(pin: UInt32, filterType: Int, filter: JSONValue, ipAddress: String?,
                             discoveryTimeout: Double? = nil) async throws(APIError) -> JSONValue {
        let options = discoveryTimeout.map { Self.with($0, self.options) } ?? self.options
        let discriminator: Discriminator
        switch (filterType, filter.uint64) {
        case (1, let short?) where short < 16: discriminator = .short(UInt8(short))
        case (2, let long?) where long < 4096: discriminator = .long(UInt16(long))
        case (1, _), (2, _):
            throw APIError(.invalidArguments, "commission_on_network: filter must be a short (0-15, filter_type 1) or long (0-4095, filter_type 2) discriminator")
        case (3, let vendor?) where vendor <= UInt64(UInt16.max):
            return try await commissionInCommissioningMode(pin: pin, ipAddress: ipAddress, filter: .vendorID(UInt16(vendor)), options: options)
        case (4, let type?) where type <= UInt64(UInt32.max):
            return try await commissionInCommissioningMode(pin: pin, ipAddress: ipAddress, filter: .deviceType(UInt32(type)), options: options)
        case (3, _), (4, _):
            throw APIError(.invalidArguments, "commission_on_network: filter must be a vendor ID (0-65535, filter_type 3) or a device type (filter_type 4)")
        default:
            return try await commissionInCommissioningMode(pin: pin, ipAddress: ipAddress, options: options)
        }
        // As a manual code (which carries the short discriminator): the finder matches the long
        // one in the TXT records when it is given.
        let payload = SetupPayload(kind: .manualCode, vendorID: nil, productID: nil, commissioningFlow: .standard,
                                   discoveryCapabilities: nil, discriminator: .short(discriminator.shortValue), passcode: pin)
        guard let code = try? ManualPairingCode.encode(payload) else {
            throw APIError(.invalidArguments, "commission_on_network: \(pin) is not a valid setup pin code")
        }
        return try await commission(payload: code, options: options)
    }

    /// Only the PIN (Home Assistant's "shared device" screen and its Android app, for a device
    /// shared from Google Home or Apple Home): ``PINOnlySearch`` tries every device in
    /// commissioning mode, the one at `ipAddress` only when given.
    func commissionInCommissioningMode(pin: UInt32, ipAddress: String?, filter: PINOnlySearch.Filter? = nil,
                                       options: CommissioningOptions) async throws(APIError) -> JSONValue {
        let search: PINOnlySearch
        do { search = try PINOnlySearch(pin: pin, address: ipAddress, filter: filter) } catch {
            throw APIError(.invalidArguments, "commission_on_network: \(error.reason). \(error.hint)")
        }
        let result = try await search.run(finder: DeviceFinder(discovery: hub.discovery), timeout: options.discoveryTimeout) {
            code, _ throws(APIError) in try await self.commissionDevice(code, options: PINOnlySearch.attemptOptions(options))
        }
        switch result {
        case .success(let device): return try await announce(device)
        case .failure(let e): throw APIError(.nodeCommissionFailed, "commission_on_network: \(e.description)")
        }
    }

    static func isOnNetworkCode(_ code: String) -> Bool {
        guard let payloads = try? SetupPayload.parse(code) else { return true }  // the commissioner names the defect
        return payloads.allSatisfy { $0.discoveryCapabilities.map { $0.contains(.onNetwork) || $0.isEmpty } ?? true }
    }

    func commission(payload code: String, options: CommissioningOptions? = nil) async throws(APIError) -> JSONValue {
        switch try await commissionDevice(code, options: options) {
        case .success(let device): return try await announce(device)
        case .failure(let e): throw APIError(.nodeCommissionFailed, e.description)
        }
    }

    /// Commissions the (first) device of `code` in a session of its own; throws when the
    /// session cannot start.
    func commissionDevice(_ code: String, options: CommissioningOptions? = nil) async throws(APIError)
        -> Result<CommissionedDevice, CommissioningError> {
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
            onboardingPayload: code, options: options ?? self.options)
        let results: [Result<CommissionedDevice, CommissioningError>]
        do { results = try await commissionReporting(request, name: nil, room: nil, source: .ohf).1 } catch {
            try? await structure.cancelMatterCommissioning()
            throw APIError(.nodeCommissionFailed, error.description)
        }
        _ = try? await structure.completeMatterCommissioning()
        guard let outcome = results.first else { throw APIError(.nodeCommissionFailed, "the setup code names no device") }
        return outcome
    }

    /// Brings a just-commissioned node up and answers with its data (the interview's failure
    /// keeps the node and says so).
    func announce(_ device: CommissionedDevice) async throws(APIError) -> JSONValue {
        let node = device.nodeID
        let live = await bringUp(node)
        let data = try await nodeData(node)
        guard live else {
            throw APIError(.nodeInterviewFailed, "node \(node.rawValue) was commissioned but its interview did not finish; it is kept and retried")
        }
        return data.json
    }

    /// A node just commissioned: the fabric label, then the interview (the subscription's priming
    /// report reads every attribute), then `node_added` and `node_updated` for OHF listeners
    /// (when it came up within 30 s), the Check-In registration of a LIT-capable node, and
    /// `matterhub/device_updated`. Whether it is live.
    func bringUp(_ node: NodeID) async -> Bool {
        if let label = fabricLabel, let client = try? await client(node) {
            _ = try? await client.invoke(Clusters.OperationalCredentials.UpdateFabricLabel(label: label), endpoint: 0)
        }
        announcing(node, true)
        await runtime.add(node)
        var live = await runtime.waitUntilAvailable(node, timeout: .seconds(30))
        if live, await !runtime.autoSubscription(of: node) {
            // No subscription, so no priming report: the interview is a read of everything.
            do {
                let values = try await Interview.readAll(try await client(node, timeout: .seconds(30)))
                await runtime.merge(values, into: node)
            } catch {
                logger("hub: node \(node.rawValue)'s interview failed: \(error)")
                live = false
            }
        }
        announcing(node, false)
        interviewed(node)
        if live, let data = try? await nodeData(node) {
            publish(.nodeAdded(data))
            publish(.nodeUpdated(data))
        }
        if live {
            await registerIfLongIdle(node)
            await writeDefaultOTAProvider(node)
        }
        await announceDevice(node.rawValue)
        return live
    }
}
