import MatterCertificates
import MatterTLV
import MatterCommissioning

/// The one-call commissioning entry point of the Home APIs, moved to Linux:
/// `commissionMatterDevice(onboardingPayload:)`, then `configureMatterDevice(deviceName:roomName:)`
/// for what it added. Through a running hub, the hub commissions (with its attestation policy).
public final class HomeMatterCommissioner: Sendable {
    public let home: Home
    /// The attestation policy; nil through a hub (the hub's own applies).
    public let options: CommissioningOptions?
    private let lastCommissioned = LockedValue<[NodeID]>([])

    /// Without `options`, attestation uses the state directory's default trust store (embedded)
    /// or the hub's policy (when a hub serves the directory).
    public init(stateDirectory: String, options: CommissioningOptions? = nil) async throws(HomeError) {
        home = try await Home.open(stateDirectory: stateDirectory)
        if let options { self.options = options } else { self.options = try home.backend.defaultOptions() }
    }

    /// A commissioner over an existing hub (e.g. one with injected DNS-SD).
    public convenience init(hub: Hub, options: CommissioningOptions) async throws(HomeError) {
        await self.init(home: Home(hub: hub), options: options)
    }

    /// A commissioner over a home opened either way (`Home.open`, `Home.connect`).
    public init(home: Home, options: CommissioningOptions? = nil) async {
        self.home = home
        self.options = options
    }

    /// Prepares, performs and completes a commissioning in the default structure; returns the
    /// node IDs added. A device that fails makes it throw (after the others finished).
    public func commissionMatterDevice(onboardingPayload: String,
                                       onStep: @escaping @Sendable (Int, StepTiming) -> Void = { _, _ in }) async throws(HomeError) -> [NodeID] {
        guard let structure = try await home.structures().first else {
            throw HomeError(.structureNotFound, "the home has no structure")
        }
        try await structure.prepareForMatterCommissioning()
        let request = structure.matterCommissioningRequest(topology: structure.commissioningTopology,
                                                           onboardingPayload: onboardingPayload, options: options)
        let results: [Result<CommissionedDevice, CommissioningError>]
        do {
            results = try await request.perform(onStep: onStep)
        } catch {
            try? await structure.cancelMatterCommissioning()
            throw error
        }
        let added = try await structure.completeMatterCommissioning()
        lastCommissioned.set(added)
        if let failure = results.compactMap({ if case .failure(let e) = $0 { return e } else { return nil } }).first {
            throw HomeError(.commissioningFailed, failure.description, commissioningError: failure)
        }
        return added
    }

    public func fetchRooms() async throws(HomeError) -> [Room] {
        guard let structure = try await home.structures().first else { return [] }
        return try await structure.rooms()
    }

    /// Names the devices of the last commissioning (NodeLabel written on the device over CASE)
    /// and puts them in a room (created if new).
    public func configureMatterDevice(deviceName: String, roomName: String) async throws(HomeError) {
        let nodes = lastCommissioned.get()
        guard !nodes.isEmpty else { throw HomeError(.noCommissioningSession, "no device was commissioned yet") }
        guard let structure = try await home.structures().first else { throw HomeError(.structureNotFound, "the home has no structure") }
        for (i, nodeID) in nodes.enumerated() {
            let name = nodes.count > 1 ? "\(deviceName) \(i + 1)" : deviceName
            try await home.backend.configure(nodeID, name: name, roomName: roomName, in: structure.id)
        }
    }
}
