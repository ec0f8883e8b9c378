import MatterCommissioning

/// A device a commissioning added, and whether its name also reached the device.
public struct CommissioningOutcome: Sendable {
    public var device: CommissionedDevice
    /// Why NodeLabel could not be written on the device (it kept its own name); nil when it was.
    public var nodeLabelError: HomeError?
}

extension Structure {
    /// The topology the hub commissions with: the MatterHub ecosystem, this structure its home.
    public var commissioningTopology: CommissioningTopology {
        CommissioningTopology(ecosystemName: "MatterHub", homes: [.init(id: id, name: name)])
    }

    /// The room called `name` (compared case-insensitively), added to the structure if it has none.
    public func room(named name: String) async throws(HomeError) -> Room {
        try await backend.room(named: name, in: id)
    }

    /// Commissions every device of `onboardingPayload` in the session `prepareForMatterCommissioning()`
    /// took, names them `name` (numbered when there are several) and puts them in `room`; the name
    /// also goes on each device as its NodeLabel, as `configureMatterDevice` does. Devices that fail
    /// are reported in the results. When the request cannot start, the session is cancelled and
    /// the error thrown.
    public func commissionMatterDevices(onboardingPayload: String, name: String? = nil, room: Room? = nil,
                                        options: CommissioningOptions? = nil,
                                        onStep: @escaping @Sendable (Int, StepTiming) -> Void = { _, _ in })
        async throws(HomeError) -> [Result<CommissioningOutcome, CommissioningError>] {
        let request = matterCommissioningRequest(topology: commissioningTopology, onboardingPayload: onboardingPayload,
                                                 options: options)
        let results: [Result<CommissionedDevice, CommissioningError>]
        do {
            results = try await request.perform(name: name, room: room, onStep: onStep)
        } catch {
            try? await cancelMatterCommissioning()
            throw error
        }
        var outcomes: [Result<CommissioningOutcome, CommissioningError>] = []
        for result in results {
            switch result {
            case .success(let device): outcomes.append(.success(await writeNodeLabel(of: device)))
            case .failure(let error): outcomes.append(.failure(error))
            }
        }
        return outcomes
    }

    /// Writes the stored name of a just-commissioned device on it as NodeLabel.
    private func writeNodeLabel(of commissioned: CommissionedDevice) async -> CommissioningOutcome {
        var outcome = CommissioningOutcome(device: commissioned, nodeLabelError: nil)
        guard let (record, room) = try? await backend.devices().first(where: { $0.0.nodeID == commissioned.nodeID }) else {
            return outcome
        }
        let device = Device(backend: backend, record: record, room: room)
        do { try await device.writeNodeLabel(device.name) } catch { outcome.nodeLabelError = error }
        return outcome
    }
}

extension HomeBackend {
    /// The room called `name` in `structure` (compared case-insensitively), added if there is none.
    func room(named name: String, in structure: StructureID) async throws(HomeError) -> Room {
        if let existing = try await rooms(in: structure).first(where: { $0.name.lowercased() == name.lowercased() }) {
            return existing
        }
        return try await addRoom(name: name, in: structure)
    }
}
