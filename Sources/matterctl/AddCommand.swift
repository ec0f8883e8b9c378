#if canImport(Glibc)
import Glibc
#endif
import MatterCommissioning
import MatterHome

/// `matterctl add`: the add-device flow in the terminal.
struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "add",
        abstract: "Add a device interactively: paste or type its code, pick a room, name it",
        discussion: """
            Asks for the setup code (a code that is not valid, or whose passcode the device refuses, \\
            is refused with the reason and asked again), offers the home's rooms (or type a new one), \\
            asks for a name, then commissions the device, printing each step as it finishes, and \\
            writes the name on the device. Through the hub when one serves the state directory. Needs \\
            a terminal; in scripts use 'matterctl commission <code> --name N --room R'.
            """,
        usesHubState: true,
        options: [
            .value("--paa-store", "DIR", help: "PAA trust-store folder (DER/PEM files), instead of the default store"),
            .flag("--allow-test-devices", help: "accept devices with test attestation credentials"),
        ])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw CommandFailure("'matterctl add' asks questions and needs a terminal; "
                                 + "without one use 'matterctl commission <code> --name NAME --room ROOM'")
        }
        let state = args.stateDirectory
        let home = try await HomeCommands.open(state)
        defer { Task { await home.close() } }
        var options: CommissioningOptions?
        if case .embedded = home.mode {
            let trust = try HomeCommands.trustStore(args.value("--paa-store"), state: state)
            var o = CommissioningOptions(trustStore: trust.paaTrustStore, allowTestDevices: args.flag("--allow-test-devices"))
            o.crls = trust.crls
            options = o
        }
        let structure: Structure
        do {
            guard let s = try await home.structures().first else { throw CommandFailure("the home has no structure") }
            structure = s
        } catch let e as HomeError { throw CommandFailure(e.description) }
        let commissioner = await HomeMatterCommissioner(home: home, options: options)
        let ui = TerminalAddDeviceUI(via: home.mode == .embedded ? "in this process" : home.mode.description)
        let request = MatterAddDeviceRequest(topology: .init(ecosystemName: "MatterHub", homes: [.init(displayName: structure.name)]))
        do {
            return try await request.perform(ui: ui, handler: commissioner) == .cancelled ? 1 : 0
        } catch {
            return 1  // the UI printed the error
        }
    }
}
