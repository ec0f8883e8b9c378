import MatterCertificates
import MatterCommissioning

/// The one-call commissioning entry point of the Home APIs, moved to Linux:
/// `commissionMatterDevice(onboardingPayload:)`, then `configureMatterDevice(deviceName:roomName:)`
/// for what it added.
public final class HomeMatterCommissioner: Sendable {
    public let home: Home
    public let options: CommissioningOptions
    private let lastCommissioned = LockedValue<[UInt64]>([])

    /// Without `options`, attestation uses the state directory's default trust store.
    public init(stateDirectory: String, options: CommissioningOptions? = nil) async throws(HomeError) {
        home = try await Home.open(stateDirectory: stateDirectory)
        if let options { self.options = options } else {
            self.options = try CommissioningOptions.defaultTrustStore(stateDirectory: stateDirectory)
        }
    }

    /// A commissioner over an existing hub (e.g. one with injected DNS-SD).
    public init(hub: Hub, options: CommissioningOptions) async throws(HomeError) {
        home = Home(hub: hub)
        self.options = options
    }

    /// Prepares, performs and completes a commissioning in the default structure; returns the
    /// node IDs added. A device that fails makes it throw (after the others finished).
    public func commissionMatterDevice(onboardingPayload: String,
                                       onStep: @escaping @Sendable (Int, StepTiming) -> Void = { _, _ in }) async throws(HomeError) -> [UInt64] {
        guard let structure = try await home.structures().first else {
            throw HomeError(.storeNotWritable, "the home has no structure")
        }
        try await structure.prepareForMatterCommissioning()
        let request = structure.matterCommissioningRequest(
            topology: CommissioningTopology(ecosystemName: "MatterHub", homes: [.init(id: structure.id, name: structure.name)]),
            onboardingPayload: onboardingPayload, options: options)
        let results: [Result<CommissioningResult, CommissioningError>]
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
        guard let structure = try await home.structures().first else { throw HomeError(.storeNotWritable, "no structure") }
        let rooms = try await structure.rooms()
        let room = try await rooms.first(where: { $0.name.lowercased() == roomName.lowercased() }).asyncOr { () async throws(HomeError) in
            try await structure.addRoom(name: roomName)
        }
        for (i, nodeID) in nodes.enumerated() {
            let name = nodes.count > 1 ? "\(deviceName) \(i + 1)" : deviceName
            let device = try await home.device(nodeID)
            try await device.writeNodeLabel(name)
            do {
                try home.hub.store.renameNode(NodeID(nodeID), to: name)
                try home.hub.store.assignNode(NodeID(nodeID), to: room.id)
            } catch {
                throw HomeError(.storeNotWritable, "cannot record the name and room: \(error)")
            }
        }
    }
}

extension Optional {
    func asyncOr(_ make: () async throws(HomeError) -> Wrapped) async throws(HomeError) -> Wrapped {
        if let v = self { return v }
        return try await make()
    }
}
