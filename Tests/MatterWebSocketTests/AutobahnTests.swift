import Foundation
import MatterWebSocket
import Testing
import TestSupport

/// The Autobahn TestSuite's fuzzingclient (`scripts/autobahn`, wstest 25.10.1 on Python 2.7)
/// against an echo server built on ``WebSocketServer``: every case but the compression ones
/// (12.*, 13.*: no permessage-deflate is offered) must end OK, NON-STRICT or INFORMATIONAL.
/// Skipped where the suite is not installed (no Python 2.7: scripts/peers says so), except under
/// CI=true when a Python 2.7 exists. Run by scripts/test on its own (its 9.* cases take a core).
@Suite(.serialized) struct AutobahnTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static var installed: Bool { FileManager.default.isExecutableFile(atPath: root.appendingPathComponent(".peers/autobahn/bin/wstest").path) }
    static var mustRun: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true"
            && (try? ProcessRunner.run("/bin/sh", ["-c", "command -v python2.7 || ls /root/.pyenv/versions/2.7.*/bin/python2.7"]))?.status == 0
    }

    /// Echoes text and binary messages as they came.
    final class Echo: WebSocketServerDelegate {
        func httpResponse(for request: HTTPRequestHead) -> HTTPResponse? { nil }
        func connectionOpened(_ connection: WebSocketConnection) {}
        func connection(_ connection: WebSocketConnection, received message: WebSocketMessage) {
            switch message {
            case .text(let t): connection.send(text: t)
            case .binary(let b): connection.send(binary: b)
            }
            connection.handled(message)
        }
        func connectionClosed(_ connection: WebSocketConnection, code: WebSocketCloseCode?, reason: String) {}
    }

    @Test(.enabled(if: installed || mustRun, "the Autobahn TestSuite needs Python 2.7 (scripts/peers installs it where one exists)"))
    func theFuzzingClientFindsNothingToFail() async throws {
        // The 9.* cases send messages up to 16 MiB, and the server must take them whole.
        var config = WebSocketServerConfiguration(addresses: [.tcp(host: "127.0.0.1", port: 0)])
        config.maxMessageSize = 20 << 20
        config.maxQueuedBytes = 64 << 20
        config.maxTotalQueuedBytes = 128 << 20
        config.maxBytesInFlight = 32 << 20
        let server = try WebSocketServer(configuration: config, delegate: Echo())
        server.start()
        defer { Task { await server.stop() } }
        let out = NSTemporaryDirectory() + "autobahn-\(UInt32.random(in: 0...UInt32.max))"
        let result = try ProcessRunner.run(Self.root.appendingPathComponent("scripts/autobahn").path,
                                           ["ws://127.0.0.1:\(server.tcpPort!)/ws", out], timeout: 1000)
        print(result.stdout, result.stderr)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains(" passed, 0 failed"))
        await server.stop()
    }
}
