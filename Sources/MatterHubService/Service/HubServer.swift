import FoundationEssentials
import MatterCommissioning
import MatterDiscovery
import MatterHome
import MatterServerAPI
import MatterWebSocket

/// `matterctl hub serve` as a library: the lock on the state directory, the hub service with its
/// node runtime, and the API on TCP and on the state directory's Unix socket.
public final class HubServer: Sendable {
    public struct Configuration: Sendable {
        public var stateDirectory: String
        /// TCP addresses to listen on; empty means 127.0.0.1 and ::1.
        public var listen: [String] = []
        public var port: UInt16 = 5580
        public var options: CommissioningOptions
        /// Require the token on loopback too (it is always required on other addresses).
        public var requireToken = false
        /// Web origins besides the hub's own that may open the WebSocket (`--allow-origin`).
        public var allowedOrigins: [String] = []
        /// Host names loopback listeners answer to besides localhost (`--allow-host`).
        public var allowedHosts: [String] = []
        /// How long a silent client goes before it is pinged (and as long again before it is
        /// closed); `MATTERHUB_WS_PING_INTERVAL` (seconds) sets it for tests.
        public var pingInterval: Duration = Self.pingIntervalFromEnvironment() ?? .seconds(30)
        public var discovery: MatterDiscovery = MatterDiscovery()
        /// The network namespace the hub's Matter UDP socket opens in (nil: this process's): the
        /// lab tests run a hub in-process whose devices are in other namespaces.
        package var netnsPath: String?
        /// Publish the hub's own node on `_matter._tcp` through avahi (`hub serve` does; in-process
        /// tests, with fixed DNS-SD answers, do not).
        public var advertisesNode = false
        /// Keep the hub's own subscription to every node (`--no-auto-subscription` turns it off:
        /// clients subscribe with schema 14's `subscribe`, or switch it on per node).
        public var autoSubscription = true
        /// The DCL asked for firmware besides the hub's images (`--ota-dcl`; nil: the hub's
        /// images only, as in-process tests want).
        public var firmwareDCL: FirmwareDCL?
        /// Called after each step of every commissioning through the API (progress logs, crash
        /// tests).
        public var onCommissioningStep: @Sendable (StepTiming) -> Void = { _ in }

        public init(stateDirectory: String, options: CommissioningOptions) {
            self.stateDirectory = stateDirectory
            self.options = options
        }

        /// The `--allow-origin` values that are not an origin (`http(s)://host[:port]`).
        public static func invalidOrigins(_ origins: [String]) -> [String] {
            origins.filter { RequestOriginPolicy.normalizedOrigin($0) == nil }
        }

        static func pingIntervalFromEnvironment() -> Duration? {
            guard let text = ProcessInfo.processInfo.environment["MATTERHUB_WS_PING_INTERVAL"], let seconds = Double(text),
                  seconds > 0 else { return nil }
            return .milliseconds(Int64(seconds * 1000))
        }

        /// Whether a client must present the token: any address beyond loopback, or when asked.
        public var tokenRequired: Bool {
            requireToken || listen.contains { !["127.0.0.1", "::1", "localhost"].contains($0) }
        }
    }

    public let service: HubService
    public let api: HubAPIServer
    /// The page served at `GET /`.
    public let dashboard: DashboardFiles
    private let lock: HubLock
    private let advertisesNode: Bool
    private let heapTrimmer = HeapTrimmer()

    /// Takes the state directory's lock, opens the hub and binds the API (nothing is served
    /// until `start`).
    public init(_ configuration: Configuration, log: @escaping @Sendable (String) -> Void) async throws {
        try FileManager.default.createDirectory(atPath: configuration.stateDirectory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        lock = try HubLock(stateDirectory: configuration.stateDirectory)
        advertisesNode = configuration.advertisesNode
        let hub = try Hub(stateDirectory: configuration.stateDirectory, discovery: configuration.discovery,
                      netnsPath: configuration.netnsPath)
        service = try await HubService(hub: hub, options: configuration.options,
                                       runtime: NodeRuntime(hub: hub, autoSubscribes: configuration.autoSubscription),
                                       onCommissioningStep: configuration.onCommissioningStep)
        service.setFirmwareDCL(configuration.firmwareDCL)
        let hosts = configuration.listen.isEmpty ? ["127.0.0.1", "::1"] : configuration.listen
        var addresses = hosts.map { ListenAddress.tcp(host: $0 == "localhost" ? "127.0.0.1" : $0, port: configuration.port) }
        addresses.append(.unix(path: configuration.stateDirectory + "/hub.sock"))
        let token = configuration.tokenRequired ? try APIToken.load(stateDirectory: configuration.stateDirectory) : nil
        let dashboard = DashboardFiles()
        self.dashboard = dashboard
        let policy = RequestOriginPolicy(allowedOrigins: configuration.allowedOrigins, allowedHosts: configuration.allowedHosts)
        api = try HubAPIServer(configuration: WebSocketServerConfiguration(addresses: addresses, token: token, originPolicy: policy,
                                                                           pingInterval: configuration.pingInterval),
                               backend: service, httpHandler: { dashboard.response(for: $0) }, log: log)
        let api = self.api
        service.setEventSink { api.publish($0) }
        service.setHubEventSink { api.publish($0) }
        service.setListenerRestart { api.restartListeners(except: $0, reason: "the hub's fabric changed (a home was moved in): reconnect") }
    }

    /// The TCP addresses the API listens on (with the port bound).
    public var addresses: [ListenAddress] { api.boundAddresses }

    /// Where clients connect: `ws://127.0.0.1:5580/ws`, `ws://[::1]:5580/ws`, `unix:<path>`.
    public var urls: [String] {
        addresses.map { address in
            switch address {
            case .tcp: "ws://\(address)/ws"
            case .unix(let path): "unix:\(path)"
            }
        }
    }

    public func start(log: @escaping @Sendable (String) -> Void) async throws {
        try await service.start(advertiseNode: advertisesNode, log: log)
        api.start()
        let api = self.api
        service.setServerDetails(addresses: urls, connections: { api.connectionCounts.open })
        heapTrimmer.start(log: log)
    }

    /// Ends subscriptions, closes sessions and connections (clients hear `server_shutdown`).
    public func stop() async {
        heapTrimmer.stop()
        await api.stop()
        await service.stop()
        lock.release()
    }
}
