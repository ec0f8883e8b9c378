import Foundation
import MatterCertificates
import MatterCommissioning
import MatterDiscovery
import MatterHome
import MatterHubService

/// Where a Home API test runs: in this process (embedded), or through a running hub (`hub serve`
/// in this process, reached over its Unix socket by `Home.open(stateDirectory:)`, as another
/// process would).
enum HomeMode: String, CaseIterable, Sendable, CustomStringConvertible {
    case embedded, remote
    var description: String { rawValue }
    /// Keeps the discriminators of the two runs apart.
    var offset: UInt16 { self == .embedded ? 0 : 500 }
}

/// A home over virtual devices on UDP loopback, found through fixed DNS-SD answers.
struct HomeFixture {
    let mode: HomeMode
    let home: Home
    let state: String
    let server: HubServer?
    let options: CommissioningOptions

    static func make(_ mode: HomeMode, devices: [(discriminator: UInt16, port: UInt16)]) async throws -> HomeFixture {
        let state = HomeAPITests.tempDir()
        let options = CommissioningOptions(trustStore: try HomeAPITests.paaStore(), allowTestDevices: true)
        let discovery = MatterDiscovery(browser: LoopbackBrowser(devices: devices))
        switch mode {
        case .embedded:
            return HomeFixture(mode: mode, home: Home(hub: try Hub(stateDirectory: state, discovery: discovery)), state: state,
                               server: nil, options: options)
        case .remote:
            var configuration = HubServer.Configuration(stateDirectory: state, options: options)
            configuration.listen = ["127.0.0.1"]
            configuration.port = 0
            configuration.discovery = discovery
            let server = try await HubServer(configuration, log: { _ in })
            try await server.start(log: { _ in })
            let home = try await Home.open(stateDirectory: state)
            return HomeFixture(mode: mode, home: home, state: state, server: server, options: options)
        }
    }

    /// Another client of the same home (a second connection to the hub; embedded: a second
    /// process's view of the same state directory).
    func secondClient() async throws -> Home {
        switch mode {
        case .embedded: Home(hub: try Hub(stateDirectory: state, discovery: MatterDiscovery(browser: LoopbackBrowser(devices: []))))
        case .remote: try await Home.open(stateDirectory: state)
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
