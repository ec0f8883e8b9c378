import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MatterCommissioning
import MatterHome
import MatterHubService
import MatterPlatform
import MatterTrustStore

/// `matterctl hub serve|token|status`: the long-running hub and its credentials.
struct HubCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "hub",
        abstract: "Run the hub as a service (Matter Server WebSocket API), or show its token and status",
        subcommands: [Serve.self, Token.self, Status.self])

    /// `matterctl hub serve`
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "serve",
            abstract: "Run the hub in the foreground until SIGTERM or SIGINT",
            discussion: """
                Owns the devices of the state directory: keeps a CASE session and a subscription to every \\
                commissioned node, caches their attributes and availability, and speaks the Matter Server \\
                WebSocket API (the one Home Assistant's Matter integration uses) at ws://ADDR:PORT/ws, and \\
                on the owner-only Unix socket <state>/hub.sock. Prints 'hub: ready ws://...' once it \\
                listens. Only loopback is served unless --listen names other addresses; then, or with \\
                --require-token, clients must present the token ('matterctl hub token') as ?token=. Web \\
                pages on other sites cannot reach it: a WebSocket upgrade whose Origin is not the hub's own \\
                (or one given with --allow-origin) is refused, and on loopback so is every request whose \\
                Host is not a loopback address, localhost or a name given with --allow-host (DNS \\
                rebinding). Native clients such as Home Assistant's send no Origin and are not affected. \\
                While it runs it is the only writer of the state directory.
                """,
            usesHubState: true,
            options: [
                .value("--listen", "ADDR", help: "an address to listen on (repeatable; default 127.0.0.1 and ::1)",
                       repeatable: true),
                .value("--port", "N", help: "TCP port (default 5580)"),
                .value("--paa-store", "DIR", help: "PAA trust-store folder (DER/PEM files), instead of the default store"),
                .flag("--allow-test-devices", help: "accept devices with test attestation credentials"),
                .flag("--require-token", help: "require the API token on loopback too"),
                .value("--allow-origin", "ORIGIN", help: "a web origin that may open the WebSocket, e.g. https://ha.example:8123 (repeatable)",
                       repeatable: true),
                .value("--allow-host", "NAME", help: "a host name loopback listeners answer to, e.g. a Docker service name (repeatable)",
                       repeatable: true),
                .value("--ota-dcl", "URL", help: "where firmware updates are looked up besides the hub's images: main-net (the default), "
                       + "test-net, off, or a DCL REST URL; MATTERHUB_OTA_DCL sets the default"),
                .value("--ota-dcl-ca", "FILE", help: "also trust the CA certificates in FILE (PEM) for the DCL and its image hosts"),
                .flag("--no-auto-subscription", help: "keep CASE sessions but no subscription of the hub's own; clients subscribe (schema 14's subscribe) or enable_auto_subscription per node"),
            ],
            examples: ["matterctl hub serve", "matterctl hub serve --listen 192.168.1.10 --port 5580"])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let trust = try HomeCommands.trustStore(args.value("--paa-store"), state: args.stateDirectory)
            var options = CommissioningOptions(trustStore: trust.paaTrustStore, allowTestDevices: args.flag("--allow-test-devices"))
            options.crls = trust.crls
            var configuration = HubServer.Configuration(stateDirectory: args.stateDirectory, options: options)
            configuration.advertisesNode = true
            configuration.listen = args.values("--listen")
            configuration.port = try args.integer("--port", as: UInt16.self) ?? 5580
            configuration.requireToken = args.flag("--require-token")
            configuration.allowedOrigins = args.values("--allow-origin")
            configuration.allowedHosts = args.values("--allow-host")
            configuration.autoSubscription = !args.flag("--no-auto-subscription")
            configuration.firmwareDCL = try firmwareDCL(args.value("--ota-dcl") ?? ProcessInfo.processInfo.environment["MATTERHUB_OTA_DCL"],
                                                        trustedCAFile: args.value("--ota-dcl-ca"))
            for origin in HubServer.Configuration.invalidOrigins(configuration.allowedOrigins) {
                throw UsageError("--allow-origin \(origin): an origin is http:// or https:// with a host and an optional port, no path")
            }
            raiseDescriptorLimit()
            // Two malloc arenas, not glibc's eight per core: each arena keeps its own free memory,
            // and a hub's threads mostly wait (the soak's resident set grew with the arenas' free).
            ProcessMemory.limitArenas(2)
            configuration.onCommissioningStep = HomeCommands.killAfterStep()
            let log: @Sendable (String) -> Void = { Output.err($0) }
            let server: HubServer
            do { server = try await HubServer(configuration, log: log) } catch let e as HubLock.HeldElsewhere {
                throw CommandFailure(e.description)
            } catch {
                throw CommandFailure("the hub cannot start: \(errorText(error))")
            }
            do { try await server.start(log: log) } catch {
                throw CommandFailure("the hub cannot start: \(errorText(error))")
            }
            for url in server.urls { Output.out("hub: ready \(url)") }
            for url in server.urls where url.hasPrefix("ws://") {
                Output.out("hub: dashboard \(url.replacing("ws://", with: "http://").dropLast(2))")
            }
            if !server.dashboard.isInstalled { log("hub: the dashboard is not served: \(server.dashboard.origin)") }
            if configuration.tokenRequired { Output.out("hub: clients need the token ('matterctl hub token')") }
            fflush(nil)
            let signal = await VirtualDeviceCommand.waitForTermination()
            log("hub: \(signal), shutting down")
            await server.stop()
            return 0
        }
    }

    /// `--ota-dcl`: main-net (also when not given), test-net, off, or an http(s) URL.
    static func firmwareDCL(_ text: String?, trustedCAFile: String?) throws -> FirmwareDCL? {
        let base: URL
        switch text ?? "main-net" {
        case "off": return nil
        case "main-net": base = DCLClient.production
        case "test-net": base = DCLClient.testNet
        case let other:
            guard let url = URL(string: other), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
                  url.host != nil else { throw UsageError("--ota-dcl expects main-net, test-net, off or an http(s) URL, got '\(other)'") }
            base = url
        }
        if let file = trustedCAFile, !FileManager.default.isReadableFile(atPath: file) {
            throw UsageError("--ota-dcl-ca \(file): no such readable file")
        }
        return FirmwareDCL(client: DCLClient(base: base, http: HTTPClientFetcher(timeout: 10, trustedCAFile: trustedCAFile)))
    }

    /// Lifts the soft limit on open descriptors to the hard one: 1,024 WebSocket clients and the
    /// devices' sockets do not fit in the usual soft 1,024.
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// `matterctl hub token [--rotate]`
    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "token",
            abstract: "Print the API token clients present (?token=), created on first use",
            usesHubState: true,
            options: [.flag("--rotate", help: "replace the token (clients with the old one are refused from now on)")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let state = args.stateDirectory
            do {
                try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
                Output.out(args.flag("--rotate") ? try APIToken.rotate(stateDirectory: state) : try APIToken.load(stateDirectory: state))
            } catch {
                throw CommandFailure("cannot read or write the token in \(state): \(errorText(error))")
            }
            return 0
        }
    }

    /// `matterctl hub status`
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "status",
            abstract: "Say whether a hub serves the state directory (exit 0) or not (exit 1), and how it does",
            discussion: """
                When a hub runs, asks it over its Unix socket for its PID, addresses, nodes (how many \
                are available: a live subscription), uptime and client connections.
                """,
            usesHubState: true,
            options: [.flag("--json", help: "one JSON object on stdout")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let state = args.stateDirectory
            guard let pid = LocalHub.holder(of: state) else {
                Output.out(args.flag("--json") ? JSON.object([("running", .bool(false)), ("pid", .null)]).text
                                               : "hub: not running on \(state)")
                return 1
            }
            let home = try await HomeCommands.open(state)
            defer { Task { await home.close() } }
            let report: HubStatusReport?
            do { report = try await home.hubStatus() } catch { throw CommandFailure(error.description) }
            guard let report else { throw CommandFailure("a hub (PID \(pid)) holds \(state) but could not be asked") }
            if args.flag("--json") {
                Output.out(JSON.object([
                    ("running", .bool(true)), ("pid", .from(report.pid)), ("stateDirectory", .string(report.stateDirectory)),
                    ("addresses", .array(report.addresses.map(JSON.string))), ("nodes", .from(report.nodes)),
                    ("available", .from(report.available)), ("uptimeSeconds", .double((report.uptimeSeconds * 10).rounded() / 10)),
                    ("connections", .from(report.connections)),
                    ("messaging", report.messaging.map { m in JSON.object([
                        ("secureSessions", .from(m.secureSessions)), ("unsecuredSessions", .from(m.unsecuredSessions)),
                        ("exchanges", .from(m.exchanges)), ("reservedSessionIDs", .from(m.reservedSessionIDs)),
                        ("unacknowledged", .from(m.unacknowledged)), ("sent", .from(m.sent)), ("received", .from(m.received)),
                        ("retransmitted", .from(m.retransmitted)),
                    ]) } ?? .null),
                    ("memory", report.memory.map { m in JSON.object([
                        ("residentKB", .from(m.residentKB)), ("residentAnonymousKB", .from(m.residentAnonymousKB)),
                        ("heapInUseKB", .from(m.heapInUseKB)), ("heapFreeKB", .from(m.heapFreeKB)), ("sqliteKB", .from(m.sqliteKB)),
                    ]) } ?? .null),
                ]).text)
            } else {
                Output.out("hub: running (PID \(report.pid)) on \(state)")
                Output.out("  addresses: \(report.addresses.joined(separator: ", "))")
                Output.out("  nodes:     \(report.nodes) (\(report.available) available)")
                Output.out("  uptime:    \(Status.uptime(report.uptimeSeconds))")
                Output.out("  clients:   \(report.connections)")
                if let m = report.messaging {
                    Output.out("  messaging: \(m.secureSessions) secure sessions, \(m.unsecuredSessions) handshakes, \(m.exchanges) exchanges, "
                               + "\(m.unacknowledged) messages awaiting an ack; \(m.sent) sent, \(m.received) received, "
                               + "\(m.retransmitted) retransmitted")
                }
                if let m = report.memory {
                    Output.out("  memory:    \(m.residentKB / 1024) MB resident (\(m.residentAnonymousKB / 1024) MB anonymous); "
                               + "heap \(m.heapInUseKB / 1024) MB in use (SQLite's caches \((m.sqliteKB ?? 0) / 1024) MB), "
                               + "\(m.heapFreeKB / 1024) MB held free")
                }
            }
            return 0
        }

        static func uptime(_ seconds: Double) -> String {
            let s = Int(seconds)
            if s < 60 { return "\(s) s" }
            if s < 3600 { return "\(s / 60) min \(s % 60) s" }
            return "\(s / 3600) h \(s % 3600 / 60) min"
        }
    }
}
