import MatterCommissioning
import MatterMessaging
import MatterSetupPayload

/// `matterctl commission`: commission devices from their setup codes.
struct CommissionCommand: Command {
    static let name = "commission"
    static let summary = "Commission a Matter device from its setup code"
    static let help = """
        usage: matterctl [--state DIR] commission <code>... [--name N] [--room R] [--paa-store DIR]
                   [--allow-test-devices] [--timeout S] [--json]
               matterctl commission --pase-only <code> [--timeout S] [--json]

        Commissions every device of each code onto the hub's fabric (several at once, each
        with its own node ID), printing each step with its time, and records it in the home
        (name, room). Attestation is strict: the device's DAC must chain to a PAA in
        --paa-store (a folder of DER/PEM PAA certificates, as chip-tool's
        --paa-trust-store-path); devices with test credentials are refused unless
        --allow-test-devices is given. Exit 1 naming the failed step, the device and what to
        try; the device's fail-safe is disarmed and nothing is recorded.

        --pase-only   Like chip-tool's code-paseonly: find the device by the code's
                      discriminator (DNS-SD through avahi-daemon), establish a PASE session
                      with the code's passcode, print the time each step took, and close.
                      Exit 1 naming the step that failed (discovery; PASE: wrong passcode,
                      no response ...).
        --timeout S   how long discovery may take (default 15 s)
        --json        one JSON object on stdout
        """

    static func run(_ argv: [String]) async throws -> Int32 {
        var args = try Arguments(argv, valueOptions: ["--timeout", "--state", "--name", "--room", "--paa-store"])
        let json = args.flag("--json")
        let paseOnly = args.flag("--pase-only")
        let timeout = try args.integer("--timeout", as: Int.self) ?? 15
        if paseOnly {
            try args.rejectUnknown()
            guard args.positional.count == 1, let code = args.positional.first else {
                throw UsageError("commission --pase-only takes exactly one setup code")
            }
            return try await runPASEOnly(code: code, timeout: timeout, json: json)
        }
        let state = StateDirectory.resolve(args.value("--state"))
        let name = args.value("--name"), room = args.value("--room"), paaStore = args.value("--paa-store")
        let allowTest = args.flag("--allow-test-devices")
        try args.rejectUnknown()
        guard !args.positional.isEmpty else { throw UsageError("commission needs at least one setup code") }
        return try await HomeCommands.commission(codes: args.positional, state: state, name: name, room: room,
                                                 paaStore: paaStore, allowTestDevices: allowTest, timeout: timeout, json: json)
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
