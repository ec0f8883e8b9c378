import MatterCommissioning
import MatterTLV

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
        try await commissionMatterDevices(.payload(onboardingPayload), name: name, room: room, options: options, onStep: onStep)
    }

    /// As ``commissionMatterDevices(onboardingPayload:name:room:options:onStep:)``, for a setup code
    /// or a setup PIN alone (the device that accepts it).
    public func commissionMatterDevices(_ onboarding: MatterCommissioningRequest.Onboarding, name: String? = nil, room: Room? = nil,
                                        options: CommissioningOptions? = nil,
                                        onStep: @escaping @Sendable (Int, StepTiming) -> Void = { _, _ in })
        async throws(HomeError) -> [Result<CommissioningOutcome, CommissioningError>] {
        let request = MatterCommissioningRequest(structure: self, topology: commissioningTopology, onboarding: onboarding,
                                                 options: options)
        let results: [Result<CommissionedDevice, CommissioningError>]
        do {
            results = try await request.perform(name: name, room: room, onStep: onStep)
        } catch {
            try? await cancelMatterCommissioning()
            throw error
        }
        let commissioned = results.compactMap { try? $0.get() }
        let labelErrors = await writeNodeLabels(of: commissioned)
        return results.map { result in
            result.map { CommissioningOutcome(device: $0, nodeLabelError: labelErrors[$0.nodeID]) }
        }
    }

    /// Writes the stored names of just-commissioned devices on them as NodeLabel, all at once:
    /// one after another, with the store read for each, fifty devices took 0.3 s after the last
    /// one was commissioned. The errors of the writes that failed, by node.
    private func writeNodeLabels(of commissioned: [CommissionedDevice]) async -> [NodeID: HomeError] {
        guard !commissioned.isEmpty, let known = try? await backend.devices() else { return [:] }
        let wanted = Set(commissioned.map(\.nodeID))
        let devices = known.filter { wanted.contains($0.0.nodeID) }.map { Device(backend: backend, record: $0.0, room: $0.1) }
        typealias Written = (node: NodeID, error: HomeError?)
        return await withTaskGroup(of: Written.self) { group in
            for device in devices {
                group.addTask { () -> Written in
                    do throws(HomeError) { try await device.writeNodeLabel(device.name) } catch { return (device.id, error) }
                    return (device.id, nil)
                }
            }
            var errors: [NodeID: HomeError] = [:]
            for await (node, error) in group { if let error { errors[node] = error } }
            return errors
        }
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
