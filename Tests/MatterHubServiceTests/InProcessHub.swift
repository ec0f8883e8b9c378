import Foundation
import MatterCommissioning
import MatterDiscovery
import MatterHubService

/// `hub serve` in process on loopback, on a fresh state directory, finding its devices (virtual
/// devices on UDP loopback) through fixed DNS-SD answers: the setup the hub's in-process tests share.
struct InProcessHub {
    let server: HubServer
    let state: String
    var service: HubService { server.service }

    /// `devices`: each commissionable device's discriminator and UDP port.
    /// `autoSubscription` false: `hub serve --no-auto-subscription`.
    static func start(devices: [(discriminator: UInt16, port: UInt16)], name: String, autoSubscription: Bool = true,
                      log: @escaping @Sendable (String) -> Void = { _ in }) async throws -> InProcessHub {
        let state = NSTemporaryDirectory() + "matterhub-\(name)-\(UUID().uuidString)"
        var configuration = HubServer.Configuration(
            stateDirectory: state, options: CommissioningOptions(trustStore: try HubServerTests.paaStore(), allowTestDevices: true))
        configuration.listen = ["127.0.0.1"]
        configuration.port = 0
        configuration.autoSubscription = autoSubscription
        configuration.discovery = MatterDiscovery(browser: FixedServiceBrowser(
            devices.map { FixedServiceBrowser.commissionable(discriminator: $0.discriminator, port: $0.port) }))
        let server = try await HubServer(configuration, log: log)
        try await server.start(log: log)
        return InProcessHub(server: server, state: state)
    }

    /// Stops the hub and removes its state.
    func stop() async {
        await server.stop()
        try? FileManager.default.removeItem(atPath: state)
    }
}
