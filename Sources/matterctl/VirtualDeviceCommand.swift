import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import MatterPlatform
import MatterBDX
import MatterCrypto
import MatterTLV
import MatterVirtualDevice

/// `matterctl virtual-device`: run a strict virtual Matter device until SIGTERM/SIGINT.
struct VirtualDeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "virtual-device",
        abstract: "Run a virtual Matter light or plug (a strict commissionee)",
        discussion: """
            Prints the QR code and manual pairing code, then 'virtual-device: ready', and answers PASE, CASE \
            and the Interaction Model on UDP until SIGTERM or SIGINT. Publishes _matterc._udp while \
            commissionable and _matter._tcp per fabric through avahi-daemon. Its --state is the device's \
            own state directory, never the hub's. With --count N, N devices run in this one process on \
            consecutive ports and discriminators from --port and --discriminator (state in DIR/1 ... DIR/N), \
            each one's codes printed before the one 'ready' line. A line 'press' on stdin presses every \
            device's button (the light toggles itself, as from its own switch); 'press N' presses device N's; \
            'churn R' presses the buttons in turn (a bridge's lights one after another), R a second, until 'churn 0'. \
            With --network wifi|thread its NetworkCommissioning cluster manages a simulated interface that \
            accepts any credentials (faults wrong-network-credentials and network-not-found refuse them) and \
            joins the operational network on ConnectNetwork; the fail-safe's expiry makes it forget them again.
            """,
        options: [
            .value("--passcode", "P", help: "setup passcode (default 20202021)"),
            .value("--discriminator", "D", help: "12-bit discriminator (default 3840)"),
            .value("--vendor-id", "V", help: "vendor ID (default 0xFFF1)"),
            .value("--product-id", "P", help: "product ID (default 0x8000)"),
            .value("--port", "N", help: "UDP port (default 5540)"),
            .value("--state", "DIR", help: "keep fabrics, ACL and NodeLabel in DIR/state.json (mode 0600)"),
            .value("--kind", "K", help: "light (default; dimmable: On/Off and Level Control), plug (On/Off), bridge (an "
                   + "Aggregator and --endpoints bridged On/Off lights with BridgedDeviceBasicInformation) or thermostat "
                   + "(Heating, Cooling and Presets, written atomically)"),
            .value("--endpoints", "N", help: "with --kind bridge: its bridged lights, endpoints 2 to N+1 (1 to 1000)"),
            .value("--max-paths-per-invoke", "N", help: "commands one InvokeRequest may carry (MaxPathsPerInvoke, default 1)"),
            .value("--network", "N", help: "simulate a wifi or thread interface: off the operational network (no CASE, no "
                   + "_matter._tcp) until the commissioner's ConnectNetwork; default: Ethernet"),
            .value("--thread-role", "R", help: "with --network thread: the RoutingRole it reports: "
                   + RadioDiagnostics.ThreadRole.allCases.map(\.rawValue).joined(separator: ", ") + " (default router); its "
                   + "extended address is 4D48564400000XXX, XXX the discriminator in hex"),
            .value("--thread-neighbor", "N", help: "with --network thread: a neighbour it reports, EXTADDR[:LQI[:RSSI[:RLOC16]]] "
                   + "(16 hex digits, LQI 0-3, default 3; RSSI dBm, default -60; RLOC16 hex)", repeatable: true),
            .value("--wifi-rssi", "DBM", help: "with --network wifi: the RSSI it reports (default -55)"),
            .value("--software-version", "N", help: "the SoftwareVersion it runs (default 1); given, it is an OTA Software Update "
                   + "Requestor: AnnounceOTAProvider makes it query the provider, download the image over BDX, check it and restart "
                   + "into the new version"),
            .value("--ota-query-interval", "S", help: "with --software-version: every S seconds, ask the provider an administrator "
                   + "wrote in DefaultOTAProviders for an update (as a requestor does by itself, the SDK's once a day)"),
            .value("--ota-download-ms", "MS", help: "with --software-version: a download takes at least MS milliseconds, as over a "
                   + "slow radio (a client then sees its progress even for a small image)"),
            .value("--icd", "MODE", help: "an intermittently connected device with the ICD Management cluster: sit (Check-In "
                   + "Protocol, always reachable) or lit (long idle time: once a client registers, it sleeps --icd-idle seconds "
                   + "between wakes, answering nothing, and sends each registered client without a subscription a Check-In when it wakes)"),
            .value("--icd-idle", "S", help: "with --icd: IdleModeDuration in seconds (default 30)"),
            .value("--icd-active", "MS", help: "with --icd: ActiveModeDuration in milliseconds (default 3000)"),
            .value("--fetch", "NAME", help: "once a controller has a CASE session, download NAME from it over BDX (receiver-driven, "
                   + "as an OTA requestor does) and print its size and sha256; retried for 90 s"),
            .value("--count", "N", help: "run N devices (default 1): ports P, P+1, ...; discriminators D, D+1, ..."),
            .value("--fault", "F", help: "misbehave on purpose (repeatable): "
                   + VirtualDeviceFault.allCases.map(\.rawValue).joined(separator: ", "), repeatable: true),
        ])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        var c = VirtualDeviceConfiguration()
        if let v = try args.integer("--passcode", as: UInt32.self) { c.passcode = v }
        if let v = try args.integer("--discriminator", as: UInt16.self) { c.discriminator = v }
        if let v = try args.integer("--vendor-id", as: UInt16.self) { c.vendorID = v }
        if let v = try args.integer("--product-id", as: UInt16.self) { c.productID = v }
        if let v = try args.integer("--port", as: UInt16.self) { c.port = v }
        c.stateDirectory = args.value("--state")
        if let k = args.value("--kind") {
            guard let kind = VirtualDeviceConfiguration.Kind(rawValue: k) else { throw UsageError("--kind is light, plug, bridge or thermostat") }
            c.kind = kind
        }
        if let n = try args.integer("--max-paths-per-invoke", as: UInt16.self) {
            guard n >= 1 else { throw UsageError("--max-paths-per-invoke is at least 1") }
            c.maxPathsPerInvoke = n
        }
        if let n = try args.integer("--endpoints", as: Int.self) {
            guard c.kind == .bridge else { throw UsageError("--endpoints is for --kind bridge") }
            guard (1...VirtualDeviceConfiguration.maxBridgedLights).contains(n) else {
                throw UsageError("--endpoints is 1 to \(VirtualDeviceConfiguration.maxBridgedLights)")
            }
            c.bridgedLights = n
        } else if c.kind == .bridge {
            throw UsageError("--kind bridge needs --endpoints N (its bridged lights)")
        }
        if let n = args.value("--network") {
            guard let network = VirtualDeviceConfiguration.Network(rawValue: n) else { throw UsageError("--network is wifi or thread") }
            c.network = network
        }
        var radio = RadioDiagnostics.defaults(discriminator: c.discriminator)
        if let r = args.value("--thread-role") {
            guard let role = RadioDiagnostics.ThreadRole(rawValue: r) else { throw UsageError("unknown --thread-role \(r)") }
            radio.threadRole = role
        }
        for n in args.values("--thread-neighbor") {
            guard let neighbor = RadioDiagnostics.ThreadNeighbor(n) else {
                throw UsageError("--thread-neighbor \(n): expected EXTADDR[:LQI[:RSSI[:RLOC16]]], e.g. 4D48564400000F01:3:-58")
            }
            radio.threadNeighbors.append(neighbor)
        }
        if let v = try args.integer("--wifi-rssi", as: Int8.self) { radio.wifiRSSI = v }
        c.radioDiagnostics = radio
        c.softwareVersion = try args.integer("--software-version", as: UInt32.self)
        if let s = try args.integer("--ota-query-interval", as: UInt32.self) {
            guard c.softwareVersion != nil else { throw UsageError("--ota-query-interval needs --software-version (an OTA requestor)") }
            guard s > 0 else { throw UsageError("--ota-query-interval is at least 1 second") }
            c.otaQueryInterval = s
        }
        if let ms = try args.integer("--ota-download-ms", as: UInt32.self) {
            guard c.softwareVersion != nil else { throw UsageError("--ota-download-ms needs --software-version (an OTA requestor)") }
            c.otaMinimumDownload = .milliseconds(ms)
        }
        if let m = args.value("--icd") {
            guard let mode = ICDConfiguration.Mode(rawValue: m) else { throw UsageError("--icd is sit or lit") }
            var icd = ICDConfiguration(mode: mode)
            if let v = try args.integer("--icd-idle", as: UInt32.self) {
                guard (1...86_400).contains(v) else { throw UsageError("--icd-idle is 1 to 86400 seconds") }
                icd.idleSeconds = v
            }
            if let v = try args.integer("--icd-active", as: UInt32.self) {
                guard (300...60_000).contains(v) else { throw UsageError("--icd-active is 300 to 60000 milliseconds") }
                icd.activeMilliseconds = v
            }
            c.icd = icd
        } else if args.value("--icd-idle") != nil || args.value("--icd-active") != nil {
            throw UsageError("--icd-idle and --icd-active need --icd sit|lit")
        }
        for f in args.values("--fault") {
            guard let fault = VirtualDeviceFault(rawValue: f) else { throw UsageError("unknown --fault \(f)") }
            c.faults.insert(fault)
        }

        let count = try args.integer("--count", as: Int.self) ?? 1
        let configurations = try Self.configurations(c, count: count)

        var devices: [VirtualDevice] = []
        for (i, configuration) in configurations.enumerated() {
            let device: VirtualDevice
            do { device = try await VirtualDevice(configuration: configuration) } catch {
                for d in devices { await d.shutdown() }
                throw CommandFailure(count == 1 ? error.description : "device \(i + 1) of \(count): \(error.description)")
            }
            devices.append(device)
        }
        for (i, device) in devices.enumerated() {
            if count > 1 { Output.out("virtual-device \(i + 1): discriminator \(configurations[i].discriminator)") }
            Output.out("QR code: \(device.qrCode)")
            Output.out("Manual code: \(device.manualCode)")
            await device.start()
            Output.out("virtual-device: listening on UDP port \(await device.port)")
        }
        Output.out("virtual-device: ready")
        fflush(nil)
        if let name = args.value("--fetch"), let device = devices.first { Self.fetch(name, from: device) }
        Self.readButtonPresses(devices)
        let signal = await Self.waitForTermination()
        Output.err("virtual-device: \(signal), shutting down")
        for device in devices { await device.shutdown() }
        return 0
    }

    /// `--fetch NAME`: tries until the controller is ready to send (it may not have asked yet).
    static func fetch(_ name: String, from device: VirtualDevice) {
        Task {
            let deadline = ContinuousClock.now + .seconds(90)
            var last = "no attempt"
            while ContinuousClock.now < deadline {
                do throws(BDXError) {
                    let data = try await device.fetch(name)
                    Output.out("virtual-device: fetched \(data.count) bytes of \(name) over BDX, sha256 \(Base16.encode(SHA256.hash(data)))")
                    fflush(nil)
                    return
                } catch {
                    last = error.message
                }
                try? await Task.sleep(for: .seconds(1))
            }
            Output.err("virtual-device: fetch of \(name) failed: \(last)")
        }
    }

    /// The configurations of `count` devices from the options' one: device i (from 0) on port
    /// `port + i` (0 stays 0: each picks a free port), with discriminator `discriminator + i` and
    /// state in `<state>/<i + 1>`; a range past the last port or discriminator is a usage error.
    static func configurations(_ base: VirtualDeviceConfiguration, count: Int) throws(UsageError) -> [VirtualDeviceConfiguration] {
        guard count >= 1 else { throw UsageError("--count must be at least 1") }
        if count == 1 { return [base] }
        guard Int(base.discriminator) + count - 1 <= 0xFFF else {
            throw UsageError("--count \(count) from discriminator \(base.discriminator) passes 4095; start lower")
        }
        guard base.port == 0 || Int(base.port) + count - 1 <= Int(UInt16.max) else {
            throw UsageError("--count \(count) from port \(base.port) passes 65535; start lower")
        }
        return (0..<count).map { i in
            var c = base
            c.discriminator = base.discriminator + UInt16(i)
            if base.port != 0 { c.port = base.port + UInt16(i) }
            c.stateDirectory = base.stateDirectory.map { "\($0)/\(i + 1)" }
            // Each its own radio identity; the neighbours and role are the options' for all.
            let own = RadioDiagnostics.defaults(discriminator: c.discriminator)
            c.radioDiagnostics?.threadExtendedAddress = own.threadExtendedAddress
            c.radioDiagnostics?.threadRLOC16 = own.threadRLOC16
            return c
        }
    }

    /// Reads 'press' / 'press N' lines from stdin on a thread of its own (a blocking read must not
    /// hold a thread of the cooperative pool), until end of input. With read(2), not readLine():
    /// readLine holds stdin's FILE lock while it blocks, and exit() (which flushes every stream)
    /// then waited for it forever, so a device whose stdin stayed open never exited on SIGTERM.
    static func readButtonPresses(_ devices: [VirtualDevice]) {
        DetachedThread.start(name: "matterctl.stdin") {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 512)
            func nextLine() -> String? {
                while true {
                    if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: pending[..<newline], as: UTF8.self)
                        pending.removeSubrange(...newline)
                        return line
                    }
                    let n = read(0, &buffer, buffer.count)
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else {
                        defer { pending = [] }
                        return pending.isEmpty ? nil : String(decoding: pending, as: UTF8.self)
                    }
                    pending.append(contentsOf: buffer[0..<n])
                }
            }
            // 'churn R': R device-side changes a second (a light toggled by its own button, the
            // next one each time: a bridge's bridged lights, or the devices in turn) until 'churn 0'.
            var churn: Task<Void, Never>?
            while let line = nextLine() {
                let words = line.split(separator: " ")
                if words.first == "churn", words.count == 2, let rate = Double(words[1]), rate >= 0, rate <= 1000 {
                    churn?.cancel()
                    churn = rate == 0 ? nil : Task { await churnButtons(devices, perSecond: rate) }
                    Output.err("virtual-device: churn \(rate) changes a second")
                    continue
                }
                if words.first == "lights", words.count == 2, let n = Int(words[1]) {
                    // A bridge's lights added or removed live (the first device's).
                    Task {
                        do { try await devices[0].setBridgedLights(n) } catch { Output.err("virtual-device: \(error)") }
                    }
                    continue
                }
                guard words.first == "press" else {
                    Output.err("virtual-device: unknown input '\(line)'; 'press' or 'press N' presses a device's button, "
                               + "'lights N' gives a bridge N bridged lights, 'churn R' makes R changes a second ('churn 0' stops)")
                    continue
                }
                let chosen: [VirtualDevice]
                if words.count == 1 {
                    chosen = devices
                } else if words.count == 2, let n = Int(words[1]), (1...devices.count).contains(n) {
                    chosen = [devices[n - 1]]
                } else {
                    Output.err("virtual-device: 'press N' needs N from 1 to \(devices.count)")
                    continue
                }
                Task { for device in chosen { await device.pressButton() } }
            }
        }
    }

    /// Presses the buttons in turn, `perSecond` times a second, on a fixed schedule (a late
    /// press does not shift the next), until cancelled.
    static func churnButtons(_ devices: [VirtualDevice], perSecond rate: Double) async {
        let clock = ContinuousClock()
        let period = Duration.nanoseconds(Int64(1e9 / rate))
        var next = clock.now
        var count = 0
        while !Task.isCancelled {
            let device = devices[count % devices.count]
            await device.pressButton(light: count / devices.count)
            count += 1
            next += period
            try? await clock.sleep(until: next)
        }
    }

    /// Waits for SIGTERM or SIGINT through dispatch sources (the signals are ignored so the
    /// default action does not kill the process before the adverts are withdrawn).
    static func waitForTermination() async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let queue = DispatchQueue(label: "matterctl.signals")
            let once = SignalOnce(continuation)
            for (sig, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
                source.setEventHandler { once.fire(name) }
                source.resume()
                once.keep(source)
            }
        }
    }
}

/// Resumes the continuation once, and keeps the signal sources alive until then.
private final class SignalOnce: @unchecked Sendable {
    // @unchecked: every access happens on the one serial signal queue, or before it starts.
    private var continuation: CheckedContinuation<String, Never>?
    private var sources: [any DispatchSourceSignal] = []
    init(_ c: CheckedContinuation<String, Never>) { continuation = c }
    func keep(_ s: any DispatchSourceSignal) { sources.append(s) }
    func fire(_ name: String) {
        continuation?.resume(returning: name)
        continuation = nil
    }
}
