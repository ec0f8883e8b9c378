import FoundationEssentials
import MatterCommissioning
import MatterSetupPayload
import MatterPlatform

/// The add-device flow of the Home APIs (MatterSupport's `MatterAddDeviceRequest`), on Linux:
/// `perform(ui:handler:)` asks the user for the setup code (a code that does not parse is refused
/// with the reason and asked again; so is one whose passcode the device rejects), offers the
/// rooms to pick or create one, asks for a name, then calls the handler to commission (showing
/// each step as it finishes) and to configure the device.
///
/// ```swift
/// let topology = MatterAddDeviceRequest.Topology(ecosystemName: "MatterHub",
///                                                homes: [MatterAddDeviceRequest.Home(displayName: structure.name)])
/// let outcome = try await MatterAddDeviceRequest(topology: topology).perform(ui: terminal, handler: commissioner)
/// ```
public struct MatterAddDeviceRequest: Sendable {
    public struct Home: Sendable, Hashable {
        public var displayName: String
        public init(displayName: String) { self.displayName = displayName }
    }

    /// A room by name (MatterSupport's `RoomName`); one the user typed may not exist yet.
    public struct Room: Sendable, Hashable {
        public var displayName: String
        public init(displayName: String) { self.displayName = displayName }
    }

    public struct Topology: Sendable, Hashable {
        public var ecosystemName: String
        public var homes: [Home]
        public init(ecosystemName: String, homes: [Home]) {
            self.ecosystemName = ecosystemName
            self.homes = homes
        }
    }

    /// How the flow ended.
    public enum Outcome: Sendable, Hashable {
        case added(name: String, room: Room)
        /// The user gave no code, room or name.
        case cancelled
    }

    public var topology: Topology
    /// How many codes the user may try before the flow gives up.
    public var maxAttempts = 3

    public init(topology: Topology) {
        self.topology = topology
    }

    /// Runs the flow. A commissioning that fails for another reason than the code ends it with
    /// that error (after the UI was told).
    @discardableResult
    public func perform(ui: some MatterAddDeviceUI, handler: some MatterAddDeviceExtensionRequestHandler) async throws -> Outcome {
        let home = topology.homes.first
        ui.begin(topology: topology)
        var problem: String?
        var attempts = 0
        while true {
            guard let code = await ui.askForCode(problem: problem)?.trimmingWhitespace() else { return cancelled(ui) }
            do {
                _ = try SetupPayload.parse(code)
            } catch {
                problem = "that is not a valid setup code: \(error.description)"
                continue
            }
            let rooms = try await handler.rooms(in: home)
            guard let room = await ui.pickRoom(from: rooms) else { return cancelled(ui) }
            guard let name = await ui.askForName(suggested: "Matter device")?.trimmingWhitespace(), !name.isEmpty else {
                return cancelled(ui)
            }
            attempts += 1
            do {
                try await handler.commissionDevice(in: home, onboardingPayload: code, commissioningID: UUID()) { device, step in
                    ui.show(step: step, device: device)
                }
            } catch let e as HomeError where e.commissioningError?.isWrongPasscode == true && attempts < maxAttempts {
                problem = "the device refused that code: \(e.message)"
                continue
            } catch {
                ui.failed(error)
                throw error
            }
            do { try await handler.configureDevice(named: name, in: room) } catch {
                ui.failed(error)
                throw error
            }
            let outcome = Outcome.added(name: name, room: room)
            ui.finished(outcome)
            return outcome
        }
    }

    private func cancelled(_ ui: some MatterAddDeviceUI) -> Outcome {
        ui.finished(.cancelled)
        return .cancelled
    }
}

/// What the add-device flow shows and asks (a terminal, a web dialog, a script in tests).
public protocol MatterAddDeviceUI: Sendable {
    /// The flow starts, for these homes.
    func begin(topology: MatterAddDeviceRequest.Topology)
    /// The setup code (QR or manual), or nil to give up. `problem` says why the last one was refused.
    func askForCode(problem: String?) async -> String?
    /// One of `rooms`, or a new one by name; nil to give up.
    func pickRoom(from rooms: [MatterAddDeviceRequest.Room]) async -> MatterAddDeviceRequest.Room?
    /// The device's name, or nil to give up.
    func askForName(suggested: String) async -> String?
    /// A commissioning step finished (device index in the code).
    func show(step: StepTiming, device: Int)
    func failed(_ error: any Error)
    func finished(_ outcome: MatterAddDeviceRequest.Outcome)
}

/// The app extension's side (MatterSupport's `MatterAddDeviceExtensionRequestHandler`): the
/// three calls a sample handler implements with `HomeMatterCommissioner`.
public protocol MatterAddDeviceExtensionRequestHandler: Sendable {
    func commissionDevice(in home: MatterAddDeviceRequest.Home?, onboardingPayload: String, commissioningID: UUID) async throws
    /// The same, reporting each step as it finishes; by default, the call above without steps.
    func commissionDevice(in home: MatterAddDeviceRequest.Home?, onboardingPayload: String, commissioningID: UUID,
                          progress: @escaping @Sendable (Int, StepTiming) -> Void) async throws
    func rooms(in home: MatterAddDeviceRequest.Home?) async throws -> [MatterAddDeviceRequest.Room]
    func configureDevice(named name: String, in room: MatterAddDeviceRequest.Room?) async throws
}

extension MatterAddDeviceExtensionRequestHandler {
    public func commissionDevice(in home: MatterAddDeviceRequest.Home?, onboardingPayload: String, commissioningID: UUID,
                                 progress: @escaping @Sendable (Int, StepTiming) -> Void) async throws {
        try await commissionDevice(in: home, onboardingPayload: onboardingPayload, commissioningID: commissioningID)
    }
}
