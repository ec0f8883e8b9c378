import MatterHome
import MatterSetupPayload

/// `matterctl unpair <node>`: removes the hub's fabric from the device and forgets it.
struct UnpairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "unpair",
        abstract: "Remove the hub's fabric from a device and forget it",
        usesHubState: true,
        arguments: [.nodeID])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let state = args.stateDirectory
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
struct ShareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "share",
        abstract: "Open a commissioning window so another ecosystem can add a device",
        discussion: """
            Opens an enhanced commissioning window on the device with a fresh random passcode and prints \
            the new QR and manual codes (multi-admin). The window closes after --timeout seconds or when \
            the other ecosystem has commissioned the device.
            """,
        usesHubState: true,
        arguments: [.nodeID],
        options: [
            .value("--timeout", "S", help: "how long the window stays open (default 300 s)"),
            .flag("--json", help: "one JSON object on stdout"),
        ])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let json = args.flag("--json")
        let state = args.stateDirectory
        let timeout = try args.integer("--timeout", as: UInt16.self) ?? 300
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
