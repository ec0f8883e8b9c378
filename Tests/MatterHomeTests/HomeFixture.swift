import Foundation
import MatterCertificates
import MatterCommissioning
import MatterDiscovery
import MatterHome
import MatterHubService
import MatterVirtualDevice
import Testing
import TestSupport

/// Where a Home API test runs: in this process (embedded), or through a running hub (`hub serve`
/// in this process) reached over its Unix socket by `Home.open(stateDirectory:)`, as another
/// process on the machine would, or over TCP by `Home.connect(url:token:)` with the API token, as
/// an app elsewhere would.
enum HomeMode: String, CaseIterable, Sendable, CustomStringConvertible {
    case embedded, remote, url
    var description: String { rawValue }
    /// Keeps the discriminators of the runs apart.
    var offset: UInt16 {
        switch self {
        case .embedded: 0
        case .remote: 500
        case .url: 2000
        }
    }
    /// Whether a hub serves the home.
    var throughHub: Bool { self != .embedded }
}

/// Where the Matter traffic goes: UDP loopback in this process's namespace, or across the
/// network-namespace lab: the hub's UDP socket (embedded, or the in-process `hub serve`) on h24
/// and the virtual devices' on h25, two hosts on the lab's link (hosts 0-23 are other suites').
/// The Home API's own connection to a running hub is its Unix socket either way.
enum HomeNetwork: String, CaseIterable, Sendable, CustomStringConvertible {
    case loopback, lab
    var description: String { rawValue }
    static let hubHost = 24
    static let deviceHost = 25
    /// The lab runs only where it can (as root; under CI=true it must).
    static var available: [HomeNetwork] { Lab.isAvailable ? allCases : [.loopback] }
    /// Keeps the discriminators of the two networks apart.
    var offset: UInt16 { self == .loopback ? 0 : 1000 }

    /// The namespace a socket of `host` opens in (nil: this process's).
    func netnsPath(_ host: Int) throws -> String? {
        self == .lab ? "/run/netns/\(try Lab.shared().hosts[host].namespace)" : nil
    }

    /// Where the hub reaches a device listening on `port`: [::1], or h25's link-local address
    /// through h24's interface.
    func deviceAddress(port: UInt16) throws -> (service: ServiceAddress, address: String, record: NodeAddress) {
        guard self == .lab else {
            return (ServiceAddress(ip: "::1", family: .ipv6, interfaceIndex: 0, interfaceName: "lo"), "[::1]:\(port)",
                    NodeAddress(host: "::1", port: port, interfaceIndex: if_nametoindex("lo")))
        }
        let lab = try Lab.shared()
        let hub = lab.hosts[Self.hubHost], device = lab.hosts[Self.deviceHost]
        return (ServiceAddress(ip: device.ipv6, family: .ipv6, interfaceIndex: Int32(hub.interfaceIndex), interfaceName: hub.interface),
                "[\(device.ipv6)%\(hub.interfaceIndex)]:\(port)",
                NodeAddress(host: device.ipv6, port: port, interfaceIndex: UInt32(hub.interfaceIndex)))
    }
}

/// A home over virtual devices, found through fixed DNS-SD answers: on UDP loopback, or in the lab.
struct HomeFixture {
    let mode: HomeMode
    let network: HomeNetwork
    let home: Home
    let state: String
    let server: HubServer?
    let options: CommissioningOptions

    static func make(_ mode: HomeMode, _ network: HomeNetwork = .loopback,
                     devices: [(discriminator: UInt16, port: UInt16)]) async throws -> HomeFixture {
        let state = HomeAPITests.tempDir()
        // Discovery answers at once from fixed DNS-SD records; a search that finds no device
        // (a PIN no device accepts) lasts the whole timeout.
        let options = CommissioningOptions(trustStore: try HomeAPITests.paaStore(), allowTestDevices: true,
                                           discoveryTimeout: .seconds(4))
        let addresses = try devices.map { try network.deviceAddress(port: $0.port).service }
        let discovery = MatterDiscovery(browser: LoopbackBrowser(devices: devices, addresses: addresses))
        let netns = try network.netnsPath(HomeNetwork.hubHost)
        switch mode {
        case .embedded:
            let hub = try Hub(stateDirectory: state, discovery: discovery, netnsPath: netns)
            return HomeFixture(mode: mode, network: network, home: Home(hub: hub), state: state, server: nil, options: options)
        case .remote, .url:
            var configuration = HubServer.Configuration(stateDirectory: state, options: options)
            configuration.listen = ["127.0.0.1"]
            configuration.port = 0
            configuration.discovery = discovery
            configuration.netnsPath = netns
            configuration.requireToken = mode == .url
            let server = try await HubServer(configuration, log: { _ in })
            try await server.start(log: { _ in })
            let fixture = HomeFixture(mode: mode, network: network, home: try await Self.client(mode, state, server),
                                      state: state, server: server, options: options)
            return fixture
        }
    }

    /// A client of the hub `server` serving `state`.
    static func client(_ mode: HomeMode, _ state: String, _ server: HubServer) async throws -> Home {
        guard mode == .url else { return try await Home.open(stateDirectory: state) }
        let url = try #require(server.urls.first { $0.hasPrefix("ws://") })
        return try await Home.connect(url: url, token: try APIToken.load(stateDirectory: state))
    }

    /// What `home.mode` says.
    var expectedMode: Home.Mode {
        switch mode {
        case .embedded: .embedded
        case .remote: .remote("unix:\(state)/hub.sock")
        case .url: .remote(server?.urls.first { $0.hasPrefix("ws://") } ?? "")
        }
    }

    /// Another client of the same home (a second connection to the hub; embedded: a second
    /// process's view of the same state directory).
    func secondClient() async throws -> Home {
        switch mode {
        case .embedded: Home(hub: try Hub(stateDirectory: state, discovery: MatterDiscovery(browser: LoopbackBrowser(devices: [])),
                                          netnsPath: try network.netnsPath(HomeNetwork.hubHost)))
        case .remote, .url: try await Self.client(mode, state, try #require(server))
        }
    }

    /// The attestation policy a caller passes: embedded needs it, through a hub the hub's applies.
    var callerOptions: CommissioningOptions? { mode == .embedded ? options : nil }

    func close() async {
        await home.close()
        await server?.stop()
        try? FileManager.default.removeItem(atPath: state)
    }
}
