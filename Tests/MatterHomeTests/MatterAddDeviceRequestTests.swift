import Foundation
import MatterCommissioning
import MatterHome
import Synchronization
import Testing

/// A UI that answers from a script and records what it was shown.
final class ScriptedAddDeviceUI: MatterAddDeviceUI {
    let codes: Mutex<[String]>
    let room: MatterAddDeviceRequest.Room?
    let name: String?
    let shown = Mutex<[String]>([])

    init(codes: [String], room: MatterAddDeviceRequest.Room?, name: String?) {
        self.codes = Mutex(codes)
        self.room = room
        self.name = name
    }

    func record(_ s: String) { shown.withLock { $0.append(s) } }
    var transcript: [String] { shown.withLock { $0 } }

    func begin(topology: MatterAddDeviceRequest.Topology) { record("begin \(topology.homes.map(\.displayName))") }
    func askForCode(problem: String?) async -> String? {
        if let problem { record("problem: \(problem)") }
        return codes.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
    func pickRoom(from rooms: [MatterAddDeviceRequest.Room]) async -> MatterAddDeviceRequest.Room? {
        record("rooms \(rooms.map(\.displayName))")
        return room
    }
    func askForName(suggested: String) async -> String? { name }
    func show(step: StepTiming, device: Int) { record("step \(step.step.rawValue)") }
    func failed(_ error: any Error) { record("failed \(error)") }
    func finished(_ outcome: MatterAddDeviceRequest.Outcome) { record("finished \(outcome)") }
}

/// The add-device flow with the default handler (HomeMatterCommissioner), embedded and through a hub.
@Suite(.serialized) struct MatterAddDeviceRequestTests {
    static let topology = MatterAddDeviceRequest.Topology(ecosystemName: "MatterHub tests", homes: [.init(displayName: "Home")])

    @Test(arguments: HomeMode.allCases, HomeNetwork.available)
    func addsIntoAChosenRoomWithATypedNameAfterRefusingBadCodes(_ mode: HomeMode, _ network: HomeNetwork) async throws {
        try await HomeAPITests.withHome(mode, network, discriminator: 110) { fixture, device in
            let device = try #require(device)
            let commissioner = await HomeMatterCommissioner(home: fixture.home, options: fixture.callerOptions)
            // A code with a bad check digit, then the right code with a wrong passcode, then the right one.
            var bad = Array(device.manualCode)
            bad[bad.count - 1] = bad.last == "0" ? "1" : "0"
            let wrongPasscode = try QRCodeHelper.code(discriminator: HomeAPITests.discriminator(110, mode, network), passcode: 20_202_022)
            let ui = ScriptedAddDeviceUI(codes: [String(bad), wrongPasscode, device.qrCode],
                                         room: .init(displayName: "Office"), name: "Desk lamp")
            let outcome = try await MatterAddDeviceRequest(topology: Self.topology).perform(ui: ui, handler: commissioner)
            #expect(outcome == .added(name: "Desk lamp", room: .init(displayName: "Office")))
            let t = ui.transcript
            #expect(t.first == "begin [\"Home\"]")
            #expect(t.contains { $0.hasPrefix("problem: that is not a valid setup code") }, "\(t)")
            #expect(t.contains { $0.hasPrefix("problem: the device refused that code") && $0.contains("passcode") }, "\(t)")
            #expect(t.contains("step commissioning-complete"), "\(t)")
            let devices = try await fixture.home.devices()
            #expect(devices.count == 1 && devices.first?.name == "Desk lamp" && devices.first?.room?.name == "Office")
            #expect(try await devices[0].read(endpoint: 0, cluster: 0x28, attribute: 5).utf8() == "Desk lamp")
            // The room now exists and is offered next time.
            #expect(try await commissioner.rooms(in: nil).contains(.init(displayName: "Office")))
        }
    }

    @Test func givingUpIsCancelledAndCommissionsNothing() async throws {
        try await HomeAPITests.withHome(.embedded, discriminator: nil) { fixture, _ in
            let commissioner = await HomeMatterCommissioner(home: fixture.home, options: fixture.callerOptions)
            let ui = ScriptedAddDeviceUI(codes: [], room: nil, name: nil)
            let outcome = try await MatterAddDeviceRequest(topology: Self.topology).perform(ui: ui, handler: commissioner)
            #expect(outcome == .cancelled)
            #expect(ui.transcript.last == "finished cancelled")
            let devices = try await fixture.home.devices()
            #expect(devices.isEmpty)
        }
    }
}
