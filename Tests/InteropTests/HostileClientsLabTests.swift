import Foundation
import Testing
import TestSupport

/// `matterctl hub serve` against hostile clients (`scripts/hostile-clients.py`): web pages of
/// other origins and rebound host names, sockets that lock others out, floods that exhaust
/// memory, malformed HTTP, credential-write loops. Each case checks the answer (status, close
/// code, error), that a fresh client is still served over TCP and the Unix socket, and the hub's
/// resident memory against a stated bound. Run by scripts/test on its own (the floods take both
/// cores for seconds, which would starve the timed tests of the other runs).
@Suite(.serialized, .enabled(if: Lab.isAvailable, "lab integration tests need root (network namespaces): run scripts/test as root"))
struct HostileClientsLabTests {
    static let host = 25
    static let port = 5599
    /// Short, so that the ping cases fit in seconds (the default is 30 s).
    static let pingInterval = "2"

    func run(hubArguments: [String], scriptArguments: (_ state: String) -> [String]) async throws {
        let lab = try Lab.shared()
        let state = HubLab.newDirectory(lab, "hostile")
        let hub = try lab.spawn(on: Self.host, ["/usr/bin/env", "MATTERHUB_WS_PING_INTERVAL=\(Self.pingInterval)", Lab.matterctl,
                                                "hub", "serve", "--state", state, "--port", String(Self.port)] + hubArguments)
        defer { hub.kill9() }
        let ready = await hub.waitForLine(timeout: 60) { $0.contains("hub: ready unix:") }
        try #require(ready != nil, "the hub did not start: \(hub.text)")
        let script = Lab.repositoryRoot.appendingPathComponent("scripts/hostile-clients.py").path
        let (status, output) = try await lab.run(
            on: Self.host,
            ["python3", script, "--url", "ws://127.0.0.1:\(Self.port)/ws", "--pid", String(hub.pid), "--unix", state + "/hub.sock",
             "--ping-interval", Self.pingInterval] + scriptArguments(state),
            timeout: 400)
        print(output)
        #expect(status == 0, "\(output)")
        #expect(output.contains("hostile: ") && output.contains(" passed, 0 failed"), "\(output)")
        // One line per connection that came and went, never one per message it was refused.
        let lines = hub.text.split(separator: "\n").count
        #expect(lines < 20_000, "the hub wrote \(lines) log lines")
        await hub.stop()
    }

    /// Loopback without a token (Home Assistant's setup), with an extra origin and host name.
    @Test func aHubOnLoopbackWithstandsHostileClients() async throws {
        try await run(hubArguments: ["--allow-origin", "http://homeassistant.local:8123", "--allow-host", "hub.example"]) { _ in
            ["--allowed-origin", "http://homeassistant.local:8123", "--allowed-host", "hub.example", "--idle-clients", "1000"]
        }
    }

    /// A listener that requires the token: every path is behind it, and sockets without it
    /// cannot lock out clients that have it.
    @Test func aHubThatRequiresItsTokenWithstandsHostileClients() async throws {
        try await run(hubArguments: ["--require-token"]) { state in ["--token-file", state + "/api-token", "--token-required"] }
    }
}
