import MatterCommissioning
import MatterHome
import MatterMessaging
import MatterSetupPayload

/// `matterctl commission`: commission devices from their setup codes.
struct CommissionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "commission",
        abstract: "Commission a Matter device from its setup code",
        discussion: """
            Commissions every device of each code onto the hub's fabric (several at once, each with its own \
            node ID), printing each step with its time, and records it in the home (name, room). \
            Attestation is strict: the device's DAC must chain to a trusted PAA: the production PAAs built \
            into matterctl plus the trust-store/ folder of the state directory ('matterctl attestation \
            trust-store' lists and updates them, with the DCL's CRLs), or only those in --paa-store (a folder \
            of DER/PEM PAA certificates, as chip-tool's --paa-trust-store-path); devices with test credentials \
            are refused unless --allow-test-devices is given. Exit 1 naming the failed step, the device and \
            what to try; the device's fail-safe is disarmed and nothing is recorded.

            With --pin instead of a code (a device shared from another ecosystem, whose app shows only \
            the PIN: 'Use a setup code' in Google Home, 'Turn On Pairing Mode' in Apple Home), every \
            device whose commissioning window is open is tried as it is found, by its own discriminator, \
            or only the one at --address; the first that accepts the PIN is commissioned, and when none \
            does the error names each device tried and why. Home Assistant's 'shared device' screen does \
            the same through the hub (commission_on_network).

            With --pase-only (like chip-tool's code-paseonly) it finds one device by the code's \
            discriminator, establishes a PASE session with the code's passcode, prints the time each step \
            took and closes, leaving the hub's state untouched. Exit 1 naming the step that failed \
            (discovery; PASE: wrong passcode, no response ...).

            A Wi-Fi or Thread device that is not on the operational network yet is given a network \
            (Matter Core 5.5 steps 16-17: AddOrUpdateWiFiNetwork or AddOrUpdateThreadNetwork, then \
            ConnectNetwork): the one of --wifi SSID (passphrase from --passphrase-file or stdin, never the \
            argument list) or --thread-dataset FILE|- (the active dataset in hex), else the hub's stored \
            Wi-Fi credentials ('matterctl wifi set') and preferred Thread dataset ('matterctl thread \
            datasets'). A refusal names the device's NetworkCommissioningStatus (AuthFailure: wrong \
            credentials; NetworkNotFound ...); the device forgets the network when its fail-safe is \
            disarmed. Devices on Ethernet skip these steps.
            """,
        usesHubState: true,
        arguments: [.init("code", help: "a QR code (MT:...) or manual pairing code", arity: .zeroOrMore)],
        options: [
            .value("--name", "N", help: "the device's name in the home (also written as its NodeLabel)"),
            .value("--room", "R", help: "the room to put it in (created when new)"),
            .value("--paa-store", "DIR", help: "PAA trust-store folder (DER/PEM files), instead of the default store"),
            .flag("--allow-test-devices", help: "accept devices with test attestation credentials"),
            .flag("--pase-only", help: "only discover the device and establish a PASE session"),
            .value("--pin", "P|-", help: "commission the device in commissioning mode that accepts this setup PIN, "
                   + "instead of a code (- reads it from stdin, out of the argument list)"),
            .value("--address", "A", help: "with --pin: only the device at this IPv4 or IPv6 address"),
            .value("--timeout", "S", help: "how long discovery may take (default 15 s)"),
            .flag("--json", help: "one JSON object on stdout"),
        ] + CommissionNetworkOptions.options,
        examples: ["matterctl commission MT:Y.K9042C00KA0648G00 --name Lamp --room Kitchen",
                   "matterctl commission --wifi HomeNet --passphrase-file ~/.wifi-pass MT:Y.K9042C00KA0648G00",
                   "ot-ctl dataset active -x | matterctl commission --thread-dataset - 34970112332",
                   "matterctl commission --pin 13572468 --name 'Hall lamp'",
                   "matterctl commission --pase-only 34970112332"])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let json = args.flag("--json")
        let timeout = try args.integer("--timeout", as: Int.self) ?? 15
        if args.flag("--pase-only") {
            for option in ["--name", "--room", "--paa-store", "--wifi", "--thread-dataset", "--passphrase-file", "--pin", "--address"]
            where args.value(option) != nil {
                throw UsageError("\(option) does not go with --pase-only (nothing is recorded)")
            }
            guard args.positional.count == 1, let code = args.positional.first else {
                throw UsageError("commission --pase-only takes exactly one setup code")
            }
            if args.global.verbose && args.global.state != nil {
                Output.err("note: --pase-only does not use the hub's state; the global --state is ignored")
            }
            return try await runPASEOnly(code: code, timeout: timeout, json: json)
        }
        let network = try CommissionNetworkOptions.parse(args)
        let targets = try onboardingTargets(args)
        return try await HomeCommands.commission(codes: targets, state: args.stateDirectory,
                                                 name: args.value("--name"), room: args.value("--room"),
                                                 paaStore: args.value("--paa-store"),
                                                 allowTestDevices: args.flag("--allow-test-devices"),
                                                 timeout: timeout, json: json, network: network)
    }

    /// The codes, or the PIN alone (from the argument or stdin) with its address.
    static func onboardingTargets(_ args: ParsedArguments) throws -> [MatterCommissioningRequest.Onboarding] {
        guard let pinText = args.value("--pin") else {
            guard !args.positional.isEmpty else { throw UsageError("commission needs a setup code, or --pin P") }
            if args.value("--address") != nil { throw UsageError("--address goes with --pin") }
            return args.positional.map { .payload($0) }
        }
        guard args.positional.isEmpty else { throw UsageError("give a setup code or --pin, not both") }
        let text: String
        if pinText == "-" {
            guard let line = readLine(strippingNewline: true) else { throw UsageError("--pin -: no PIN on stdin") }
            text = line
        } else {
            text = pinText
        }
        let digits = text.filter { $0 != "-" && $0 != " " }
        guard digits.count == 8, let pin = UInt32(digits) else {
            throw UsageError("--pin takes the 8-digit setup PIN the sharing app shows")
        }
        do { try Passcode.validate(pin) } catch {
            throw CommandFailure("--pin: not a valid setup passcode: \(error.description)")
        }
        return [.setupPIN(pin, address: args.value("--address"))]
    }

    static func runPASEOnly(code: String, timeout: Int, json: Bool) async throws -> Int32 {
        let payloads: [SetupPayload]
        do { payloads = try SetupPayload.parse(code) } catch {
            throw CommandFailure("invalid setup code: \(error.description)")
        }
        guard payloads.count == 1, let payload = payloads.first else {
            throw UsageError("--pase-only takes a code for one device (this one has \(payloads.count))")
        }

        let transport = try UDPTransport(port: 0)
        let manager = ExchangeManager(transport: transport)
        await manager.start()
        defer { Task { await manager.shutdown() } }
        let flow = PASEOnlyCommissioning(discoveryTimeout: .seconds(timeout)) { timing in
            if !json { Output.out("  \(timing.step.title.padding(to: 12)) \(format(timing.milliseconds))") }
        }
        do {
            let report = try await flow.run(payload: payload, manager: manager)
            if json {
                Output.out(JSON.object([
                    ("result", .string("pase-established")),
                    ("device", deviceJSON(report.device)),
                    ("address", .string(report.address.description)),
                    ("steps", stepsJSON(report.timings)),
                ]).text)
            } else {
                Output.out("PASE session established with \(report.device) at \(report.address)")
            }
            await manager.removeSession(report.session)
            return 0
        } catch {
            if json {
                Output.out(JSON.object([
                    ("result", .string("failed")),
                    ("step", .string(error.step.rawValue)),
                    ("wrongPasscode", .bool(error.isWrongPasscode)),
                    ("error", .string(error.description)),
                ]).text)
            }
            throw CommandFailure(error.description)
        }
    }

    static func format(_ ms: Double) -> String {
        ms < 10 ? String(Int(ms * 10) / 10) + "." + String(Int(ms * 10) % 10) + " ms" : "\(Int(ms.rounded())) ms"
    }

    static func stepsJSON(_ timings: [StepTiming]) -> JSON {
        .array(timings.map { .object([("step", .string($0.step.rawValue)), ("ms", .double(($0.milliseconds * 10).rounded() / 10))]) })
    }

    static func deviceJSON(_ d: DeviceCandidate) -> JSON {
        .object([
            ("instance", .string(d.instanceName)),
            ("host", .string(d.host)),
            ("discriminator", .from(d.discriminator)),
            ("vendorId", .from(d.vendorID)),
            ("productId", .from(d.productID)),
        ])
    }
}
