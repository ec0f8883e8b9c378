import MatterCommissioning
import MatterMessaging
import MatterSetupPayload

/// `matterctl commission`: commission devices from their setup codes.
struct CommissionCommand: Command {
    static let name = "commission"
    static let summary = "Commission a Matter device from its setup code"
    static let help = """
        usage: matterctl commission --pase-only <code> [--timeout S] [--json]

        --pase-only   Like chip-tool's code-paseonly: find the device by the code's
                      discriminator (DNS-SD through avahi-daemon), establish a PASE session
                      with the code's passcode, print the time each step took, and close.
                      Exit 1 naming the step that failed (discovery; PASE: wrong passcode,
                      no response ...).
        --timeout S   how long discovery may take (default 15 s)
        --json        one JSON object on stdout
        """

    static func run(_ argv: [String]) async throws -> Int32 {
        var args = try Arguments(argv, valueOptions: ["--timeout"])
        let json = args.flag("--json")
        let paseOnly = args.flag("--pase-only")
        let timeout = try args.integer("--timeout", as: Int.self) ?? 15
        try args.rejectUnknown()
        guard args.positional.count == 1, let code = args.positional.first else {
            throw UsageError("commission --pase-only takes exactly one setup code")
        }
        guard paseOnly else {
            throw CommandFailure("full commissioning is not available in this build yet; use --pase-only")
        }
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
