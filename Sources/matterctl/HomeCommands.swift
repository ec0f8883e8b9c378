import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MatterCertificates
import MatterCommissioning
import MatterHome
import MatterTLV
import MatterTrustStore
import MatterPlatform

/// The hub commands: commission, devices, rooms, read, invoke, unpair.
enum HomeCommands {
    /// Crash testing: MATTERHUB_KILL_AFTER_STEP=<step> makes this process SIGKILL itself right
    /// after that commissioning step, as a power cut would (the tests check that the store and
    /// the device still agree). Without it, nothing.
    static func killAfterStep() -> @Sendable (StepTiming) -> Void {
        guard let step = ProcessInfo.processInfo.environment["MATTERHUB_KILL_AFTER_STEP"] else { return { _ in } }
        return { timing in if timing.step.rawValue == step { kill(getpid(), SIGKILL) } }
    }

    static func open(_ state: String) async throws -> Home {
        do { return try await Home.open(stateDirectory: state) } catch { throw CommandFailure(error.description) }
    }

    /// The PAAs and CRLs to attest with: `--paa-store DIR` alone when given, else the default
    /// store (the bundled production roots plus the state directory's trust-store/).
    static func trustStore(_ dir: String?, state: String) throws -> TrustStore {
        do throws(TrustStoreError) {
            let store: TrustStore
            if let dir { store = try TrustStore.folderOnly(dir) } else { store = try TrustStore.load(stateDirectory: state) }
            for w in store.warnings { Output.err("warning: \(w)") }
            return store
        } catch {
            throw CommandFailure(error.message)
        }
    }

    static func commission(codes: [MatterCommissioningRequest.Onboarding], state: String, name: String?, room: String?, paaStore: String?,
                           allowTestDevices: Bool, timeout: Int, json: Bool,
                           network: CommissionNetworkOptions.Choice = .init()) async throws -> Int32 {
        let home = try await open(state)
        defer { Task { await home.close() } }
        let trust = try trustStore(paaStore, state: state)
        var options = CommissioningOptions(trustStore: trust.paaTrustStore, allowTestDevices: allowTestDevices,
                                           discoveryTimeout: .seconds(timeout))
        options.crls = trust.crls
        network.apply(to: &options)
        if case .remote(let url) = home.mode {
            if paaStore != nil || allowTestDevices {
                Output.err("note: the hub at \(url) commissions with its own attestation policy (set by 'matterctl hub serve'); --paa-store and --allow-test-devices are not used")
            }
            if network.wifi != nil || network.thread != nil {
                Output.err("note: the hub at \(url) hands devices the network credentials it stores ('matterctl wifi set', 'matterctl thread datasets add'); --wifi and --thread-dataset are not sent to it")
            }
        } else if allowTestDevices && !json {
            Output.err("warning: devices with test attestation credentials will be accepted (--allow-test-devices)")
        }
        let structure: Structure
        do {
            guard let s = try await home.structures().first else { throw CommandFailure("the home has no structure") }
            structure = s
            try await structure.prepareForMatterCommissioning()
        } catch let e as HomeError {
            throw CommandFailure("cannot start commissioning: \(e.description)")
        }
        var roomValue: Room?
        if let room {
            do { roomValue = try await structure.room(named: room) } catch {
                try? await structure.cancelMatterCommissioning()
                throw CommandFailure("\(error)")
            }
        }
        let killAfter = Self.killAfterStep()
        var outcomes: [JSON] = []
        var failed = false
        for code in codes {
            let results: [Result<CommissioningOutcome, CommissioningError>]
            do {
                results = try await structure.commissionMatterDevices(code, name: name, room: roomValue,
                                                                      options: options) { device, timing in
                    killAfter(timing)
                    if !json {
                        Output.out("  [\(device + 1)] \(timing.step.title.padding(to: 36)) \(CommissionCommand.format(timing.milliseconds))")
                    }
                }
            } catch {
                throw CommandFailure(error.description)
            }
            for r in results {
                switch r {
                case .success(let outcome):
                    let c = outcome.device
                    let total = c.timings.reduce(0) { $0 + $1.milliseconds }
                    if let error = outcome.nodeLabelError {
                        Output.err("warning: the device kept its own name: \(error.description)")
                    }
                    if !json {
                        for w in c.warnings { Output.err("warning: \(w)") }
                        Output.out(String(printf: "Commissioned node 0x%016llX (vendor 0x%04X, product 0x%04X) in %.0f ms",
                                          c.nodeID.rawValue, c.vendorID, c.productID, total))
                    }
                    outcomes.append(.object([
                        ("result", .string("commissioned")), ("nodeId", .uint(c.nodeID.rawValue)),
                        ("vendorId", .from(c.vendorID)), ("productId", .from(c.productID)),
                        ("address", .string(c.address)),
                        ("totalMs", .double((total * 10).rounded() / 10)),
                        ("steps", CommissionCommand.stepsJSON(c.timings)),
                        ("warnings", .array(c.warnings.map(JSON.string))),
                    ]))
                case .failure(let e):
                    failed = true
                    Output.err("error: \(e.description)")
                    outcomes.append(.object([
                        ("result", .string("failed")), ("step", .string(e.step.rawValue)), ("code", .string(e.code.rawValue)),
                        ("wrongPasscode", .bool(e.isWrongPasscode)),
                        ("networkStatus", e.networkStatus.map { .string($0.name) } ?? .null), ("error", .string(e.description)),
                    ]))
                }
            }
        }
        do { _ = try await structure.completeMatterCommissioning() } catch {
            throw CommandFailure("\(error)")
        }
        if json { Output.out(JSON.object([("devices", .array(outcomes))]).text) }
        return failed ? 1 : 0
    }
}

/// `matterctl devices`: the home's commissioned devices.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "devices",
        abstract: "List the devices commissioned into the hub",
        discussion: """
            --history adds each device's connectivity history, newest first: when 'hub serve' saw it \
            become available or unavailable, and why (subscribed, lapsed: no report within its \
            subscription's max interval, session-lost, device-restarted: it announced itself again, \
            connect-failed, subscribe-failed).
            """,
        usesHubState: true,
        options: [.flag("--json", help: "one JSON object on stdout"),
                  .flag("--history", help: "each device's connectivity history, newest first"),
                  .value("--limit", "N", help: "history events per device (default 10)")])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let json = args.flag("--json")
        let state = args.stateDirectory
        let limit = try args.integer("--limit", as: Int.self) ?? 10
        let home = try await HomeCommands.open(state)
        defer { Task { await home.close() } }
        let devices: [Device]
        do { devices = try await home.devices() } catch { throw CommandFailure(error.description) }
        // The history is in the store (the hub writes it; reading it beside a running hub is safe).
        var history: [NodeID: [ConnectivityEvent]] = [:]
        if args.flag("--history") {
            do {
                let store = try HubStore(directory: state)
                for d in devices { history[d.id] = try store.connectivityHistory(of: d.id, limit: limit) }
            } catch { throw CommandFailure("cannot read the connectivity history in \(state): \(error)") }
        }
        let iso = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        if json {
            Output.out(JSON.object([("devices", .array(devices.map { d in
                var fields: [(String, JSON)] = [
                    ("nodeId", .uint(d.id.rawValue)), ("name", .string(d.name)), ("room", .from(d.room?.name)),
                    ("vendorId", .from(d.record.vendorID)), ("productId", .from(d.record.productID)),
                    ("addresses", .array(d.record.addresses.map { .string("\($0.host):\($0.port)") })),
                    ("commissionedAt", .string(Date.ISO8601FormatStyle().format(d.record.commissionedAt)))]
                if let events = history[d.id] {
                    fields.append(("history", .array(events.map { e in
                        .object([("at", .string(iso.format(e.at))), ("available", .bool(e.available)), ("reason", .string(e.reason))])
                    })))
                }
                return .object(fields)
            }))]).text)
        } else if devices.isEmpty {
            Output.out("No devices yet: commission one with 'matterctl commission <setup code>'.")
        } else {
            Output.out("NODE ID             NAME                          ROOM            VENDOR  PRODUCT")
            for d in devices {
                Output.out(String(printf: "0x%016llX  ", d.id.rawValue) + d.name.padding(to: 30) + (d.room?.name ?? "-").padding(to: 16)
                           + String(printf: "0x%04X  0x%04X", d.record.vendorID, d.record.productID))
                guard let events = history[d.id] else { continue }
                if events.isEmpty { Output.out("    (no connectivity changes recorded yet)") }
                for e in events { Output.out("    \(iso.format(e.at))  \(e.available ? "available  " : "unavailable")  \(e.reason)") }
            }
        }
        return 0
    }
}

/// `matterctl rooms [list|add NAME]`.
struct RoomsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "rooms",
        abstract: "List or add rooms",
        subcommands: [List.self, Add.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "list",
            abstract: "List the home's rooms",
            usesHubState: true,
            options: [.flag("--json", help: "one JSON object on stdout")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            try await RoomsCommand.withStructure(args) { structure in
                let rooms = try await structure.rooms()
                if args.flag("--json") {
                    Output.out(JSON.object([("rooms", .array(rooms.map(RoomsCommand.json)))]).text)
                } else {
                    for room in rooms { Output.out(room.name) }
                }
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "add",
            abstract: "Add a room",
            usesHubState: true,
            arguments: [.init("name", help: "the room's name (unique in the home, any case)")],
            options: [.flag("--json", help: "one JSON object on stdout")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            try await RoomsCommand.withStructure(args) { structure in
                let room = try await structure.addRoom(name: args.positional[0])
                Output.out(args.flag("--json") ? RoomsCommand.json(room).text : "Added room \(room.name)")
            }
        }
    }

    static func json(_ room: Room) -> JSON {
        .object([("id", .int(room.id.rawValue)), ("name", .string(room.name))])
    }

    /// Opens the home, runs `body` on its structure and closes the home again.
    static func withStructure(_ args: ParsedArguments, _ body: (Structure) async throws -> Void) async throws -> Int32 {
        let home = try await HomeCommands.open(args.stateDirectory)
        do {
            guard let structure = try await home.structures().first else { throw CommandFailure("the home has no structure") }
            try await body(structure)
            await home.close()
        } catch let error as HomeError {
            await home.close()
            throw CommandFailure(error.description)
        } catch {
            await home.close()
            throw error
        }
        return 0
    }
}

extension ArgumentDeclaration {
    /// A node ID argument.
    static let nodeID = ArgumentDeclaration("node", help: "the device's node ID (decimal or 0x hex, see 'matterctl devices')")
}

/// Node IDs on the command line: decimal or 0x hex.
func parseNodeID(_ text: String) throws -> NodeID {
    guard let v = parseInteger(text, as: UInt64.self) else { throw UsageError("'\(text)' is not a node ID (decimal or 0x hex)") }
    return NodeID(v)
}

