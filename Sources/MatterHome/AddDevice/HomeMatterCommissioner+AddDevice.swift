import FoundationEssentials
import MatterCommissioning

/// The default handler of the add-device flow: the hub commissions (through `HomeMatterCommissioner`,
/// embedded or through a running hub), as the Home APIs' sample extension does.
extension HomeMatterCommissioner: MatterAddDeviceExtensionRequestHandler {
    public func commissionDevice(in home: MatterAddDeviceRequest.Home?, onboardingPayload: String, commissioningID: UUID) async throws {
        _ = try await commissionMatterDevice(onboardingPayload: onboardingPayload)
    }

    public func commissionDevice(in home: MatterAddDeviceRequest.Home?, onboardingPayload: String, commissioningID: UUID,
                                 progress: @escaping @Sendable (Int, StepTiming) -> Void) async throws {
        _ = try await commissionMatterDevice(onboardingPayload: onboardingPayload, onStep: progress)
    }

    public func rooms(in home: MatterAddDeviceRequest.Home?) async throws -> [MatterAddDeviceRequest.Room] {
        try await fetchRooms().map { MatterAddDeviceRequest.Room(displayName: $0.name) }
    }

    public func configureDevice(named name: String, in room: MatterAddDeviceRequest.Room?) async throws {
        guard let room else { throw HomeError(.roomNotFound, "the device needs a room") }
        try await configureMatterDevice(deviceName: name, roomName: room.displayName)
    }
}
