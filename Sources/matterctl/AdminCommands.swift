import MatterHome
import MatterSetupPayload

/// `matterctl unpair <node>`: removes the hub's fabric from the device and forgets it.
struct UnpairCommand: Command {
    static let name = "unpair"
    static let summary = "Remove the hub's fabric from a device and forget it"
    static let help = "usage: matterctl [--state DIR] unpair <node>"

    static func run(_ argv: [String]) async throws -> Int32 {
        var args = try Arguments(argv, valueOptions: ["--state"])
        let state = StateDirectory.resolve(args.value("--state"))
        try args.rejectUnknown()
        guard args.positional.count == 1 else { throw UsageError("unpair takes one node ID") }
        let node = try parseNodeID(args.positional[0])
        let home = try await HomeCommands.open(state)
        defer { Task { await home.close() } }
        do {
            let device = try await home.device(node)
            try await device.unpair()
            Output.out("Removed \(device.name) from this home")
        } catch {
            throw CommandFailure(error.description)
        }
        return 0
    }
}

/// `matterctl share <node>`: opens an enhanced commissioning window for another ecosystem.
struct ShareCommand: Command {
    static let name = "share"
    static let summary = "Open a commissioning window so another ecosystem can add a device"
    static let help = """
        usage: matterctl [--state DIR] share <node> [--timeout S] [--json]

        Opens an enhanced commissioning window on the device with a fresh random passcode and
        prints the new QR and manual codes (multi-admin). The window closes after --timeout
        seconds (default 300) or when the other ecosystem has commissioned the device.
        """

    static func run(_ argv: [String]) async throws -> Int32 {
        var args = try Arguments(argv, valueOptions: ["--state", "--timeout"])
        let json = args.flag("--json")
        let state = StateDirectory.resolve(args.value("--state"))
        let timeout = try args.integer("--timeout", as: UInt16.self) ?? 300
        try args.rejectUnknown()
        guard args.positional.count == 1 else { throw UsageError("share takes one node ID") }
        let node = try parseNodeID(args.positional[0])
        let home = try await HomeCommands.open(state)
        defer { Task { await home.close() } }
        do {
            let codes = try await home.device(node).share(timeoutSeconds: timeout)
            if json {
                Output.out(JSON.object([("qr", .string(codes.qr)), ("manual", .string(codes.manual)), ("timeout", .from(timeout))]).text)
            } else {
                Output.out("QR code:      \(codes.qr)")
                Output.out("Manual code:  \(ManualPairingCode.formatted(codes.manual))")
                Output.out("The window closes in \(timeout) s.")
            }
        } catch {
            throw CommandFailure(error.description)
        }
        return 0
    }
}
