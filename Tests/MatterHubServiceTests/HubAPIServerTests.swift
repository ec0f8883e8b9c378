import Foundation
import MatterHubService
import MatterServerAPI
import MatterWebSocket
import Testing
import TestSupport

@Suite(.serialized) struct HubAPIServerTests {
    /// A server on 127.0.0.1 with an ephemeral port in front of the fixed-node test backend.
    func withServer(token: String? = nil, _ body: (HubAPIServer, FixedNodeBackend, UInt16) async throws -> Void) async throws {
        let backend = try FixedNodeBackend()
        let server = try HubAPIServer(configuration: WebSocketServerConfiguration(addresses: [.tcp(host: "127.0.0.1", port: 0)],
                                                                                  token: token),
                                      backend: backend)
        backend.server.withLock { $0 = server }
        server.start()
        do {
            try await body(server, backend, server.webSocket.tcpPort!)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func connect(_ port: UInt16) async throws -> WebSocketTestClient {
        let c = try WebSocketTestClient(port: port)
        #expect(try await c.upgrade() == 101)
        return c
    }

    func message(_ c: WebSocketTestClient) async throws -> ReceivedServerMessage {
        try ReceivedServerMessage.parse(Array(await c.nextText().utf8))
    }

    func command(_ id: String, _ name: String, _ args: String = "null") -> String {
        #"{"message_id":"\#(id)","command":"\#(name)","args":\#(args)}"#
    }

    @Test func serverInfoFirstThenDumpAsTheNextFrame() async throws {
        try await withServer { server, backend, port in
            let c = try await connect(port)
            guard case .serverInfo(let info) = try await message(c) else { Issue.record("first frame is not server info"); return }
            #expect(info.schemaVersion == 15 && info.compressedFabricID == 0x2906_C908_D115_D362)
            // An event published before start_listening never reaches this client.
            server.publish(.attributeUpdated(nodeID: 30, path: AttributePath("1/6/0")!, value: .bool(true)))
            try await c.sendText(command("L", "start_listening"))
            guard case .success("L", let result) = try await message(c) else { Issue.record("next frame is not the dump"); return }
            let nodes = try #require(result.array)
            #expect(try nodes.map { try MatterNodeData(json: $0) } == [backend.node.withLock { $0 }])
            // Now events arrive; one for an unknown node is withheld.
            server.publish(.attributeUpdated(nodeID: 77, path: AttributePath("1/6/0")!, value: .bool(true)))
            server.publish(.attributeUpdated(nodeID: 30, path: AttributePath("1/6/0")!, value: .bool(false)))
            #expect(try await message(c) == .event(name: "attribute_updated", data: .array([.int(30), .string("1/6/0"), .bool(false)])))
            try await c.sendText(command("L2", "start_listening"))
            guard case .error("L2", 0, _) = try await message(c) else { Issue.record("second start_listening accepted"); return }
        }
    }

    /// Commands that arrive right behind start_listening (in the same read) are answered after
    /// its dump, never before: commands decoded on the I/O thread must not pass a message that
    /// waits for the connection's reading task.
    @Test func commandsBehindStartListeningComeAfterTheDump() async throws {
        try await withServer { _, _, port in
            let c = try await connect(port)
            _ = try await message(c)
            var burst = WebSocketFrame.encode(.text, Array(command("L", "start_listening").utf8), maskingKey: [1, 2, 3, 4])
            for i in 0..<20 {
                burst += WebSocketFrame.encode(.text, Array(command("s\(i)", "server_info").utf8), maskingKey: [5, 6, 7, 8])
            }
            try await c.sendRaw(burst)
            guard case .success("L", _) = try await message(c) else { Issue.record("a result came before the dump"); return }
            var answered = Set<String>()
            for _ in 0..<20 {
                if case .success(let id, _) = try await message(c) { answered.insert(id) }
            }
            #expect(answered == Set((0..<20).map { "s\($0)" }))
        }
    }

    @Test func resultsByMessageIDInAnyOrder() async throws {
        try await withServer { _, _, port in
            let c = try await connect(port)
            _ = try await message(c)
            try await c.sendText(command("slow", "interview_node", #"{"node_id":30}"#))
            try await c.sendText(command("fast", "server_info"))
            try await c.sendText(command("bad", "no_such_command"))
            try await c.sendText(command("arg", "get_node", #"{"node_id":"30"}"#))
            try await c.sendText(command("missing", "get_node", #"{"node_id":31}"#))
            var byID: [String: ReceivedServerMessage] = [:]
            for _ in 0..<5 {
                switch try await message(c) {
                case .success(let id, _) where true: byID[id] = .success(messageID: id, result: .null)
                case .error(let id, let code, let details): byID[id] = .error(messageID: id, code: code, details: details)
                default: Issue.record("unexpected frame")
                }
            }
            #expect(byID["slow"] == .success(messageID: "slow", result: .null))
            #expect(byID["fast"] == .success(messageID: "fast", result: .null))
            #expect(byID["bad"] == .error(messageID: "bad", code: 9, details: "Invalid command: no_such_command"))
            if case .error(_, let code, _)? = byID["arg"] { #expect(code == 8) } else { Issue.record("no error for a string node_id") }
            if case .error(_, let code, _)? = byID["missing"] { #expect(code == 5) } else { Issue.record("no error for node 31") }
        }
    }

    /// Each kind of malformed input, each on its own connection, while a listening client keeps
    /// working: it still gets answers and events afterwards.
    @Test func malformedInputNeverAffectsAnotherClient() async throws {
        try await withServer { server, _, port in
            let good = try await connect(port)
            _ = try await message(good)
            try await good.sendText(command("L", "start_listening"))
            _ = try await message(good)

            let key: [UInt8] = [1, 2, 3, 4]
            let cases: [(String, [UInt8], WebSocketCloseCode)] = [
                ("non-JSON text", WebSocketFrame.encode(.text, Array("hello".utf8), maskingKey: key), .invalidPayload),
                ("truncated JSON", WebSocketFrame.encode(.text, Array(#"{"message_id":"1","#.utf8), maskingKey: key), .invalidPayload),
                ("JSON that is not a command", WebSocketFrame.encode(.text, Array("[1,2]".utf8), maskingKey: key), .policyViolation),
                ("no message_id", WebSocketFrame.encode(.text, Array(#"{"command":"server_info"}"#.utf8), maskingKey: key), .policyViolation),
                ("binary frame", WebSocketFrame.encode(.binary, [1, 2, 3], maskingKey: key), .unsupportedData),
                ("invalid UTF-8 text", WebSocketFrame.encode(.text, [0x7B, 0xFF, 0x7D], maskingKey: key), .invalidPayload),
                ("oversized message", WebSocketFrame.encode(.text, [UInt8](repeating: 0x20, count: (1 << 20) + 1), maskingKey: key), .messageTooBig),
                ("unmasked frame", WebSocketFrame.encode(.text, Array("{}".utf8)), .protocolError),
                ("reserved bits", WebSocketFrame.encode(.text, Array("{}".utf8), maskingKey: key, rsv: 2), .protocolError),
                ("bad continuation", WebSocketFrame.encode(.continuation, [1], maskingKey: key), .protocolError),
            ]
            for (name, bytes, code) in cases {
                let bad = try await connect(port)
                _ = try await message(bad)
                try await bad.sendRaw(bytes)
                let close = try await bad.waitForClose()
                #expect(close?.code == code, "\(name): \(String(describing: close))")
                #expect(close?.reason.isEmpty == false, "\(name): a close says why")
            }
            // Answerable mistakes get an error result and the connection stays usable.
            let mistaken = try await connect(port)
            _ = try await message(mistaken)
            try await mistaken.sendText(#"{"message_id":"m1","command":5}"#)
            guard case .error("m1", 8, _) = try await message(mistaken) else { Issue.record("no error 8 for a numeric command"); return }
            try await mistaken.sendText(#"{"message_id":"m2","command":"get_node","args":[1]}"#)
            guard case .error("m2", 8, _) = try await message(mistaken) else { Issue.record("no error 8 for array args"); return }
            try await mistaken.sendText("{\n  \"message_id\": \"m3\",\n  \"command\": \"server_info\"\n}")
            guard case .success("m3", _) = try await message(mistaken) else { Issue.record("pretty-printed command refused"); return }
            // A raw garbage upgrade request gets 400.
            let garbage = try WebSocketTestClient(port: port)
            try await garbage.sendRaw(Array("NOT HTTP\r\n\r\n".utf8))
            #expect(try await garbage.readResponseHead() == 400)

            // The listening client is unaffected.
            try await good.sendText(command("after", "device_command",
                                      #"{"node_id":30,"endpoint_id":1,"cluster_id":6,"command_name":"Toggle","payload":{}}"#))
            var sawResult = false, sawEvent = false
            for _ in 0..<2 {
                switch try await message(good) {
                case .success("after", .null): sawResult = true
                case .event("attribute_updated", _): sawEvent = true
                default: break
                }
            }
            #expect(sawResult && sawEvent)
            #expect(server.connectionCounts.listening == 1)
        }
    }

    @Test func infoEndpoint() async throws {
        try await withServer { _, _, port in
            let c = try WebSocketTestClient(port: port)
            try await c.sendRaw(Array("GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            #expect(try await c.readResponseHead() == 200)
            let info = try ServerInfo(json: JSONParser.parse(await c.readToEnd()))
            #expect(info.sdkVersion == "matterhub-test/0")
        }
    }

    /// The real client (python-matter-server 8.1.2) through ws-api.md section 8's checks.
    @Test func realClientPythonMatterServer812() async throws {
        try await runRealClient(venv: "ohf-client")
    }

    /// The client Home Assistant runs now (matter-python-client 1.6.1), where a Python 3.12 exists.
    @Test func realClientMatterPythonClient161() async throws {
        try await runRealClient(venv: "ohf-client-mpc")
    }

    /// The client Home Assistant 2026.11 pins (matter-python-client 1.5.5).
    @Test func realClientMatterPythonClient155() async throws {
        try await runRealClient(venv: "ohf-client-mpc155")
    }

    /// Both clients with the token, as on a `--listen` address (given in the environment, not on
    /// the argument list; the script adds it to the URL).
    @Test(arguments: ["ohf-client", "ohf-client-mpc"])
    func realClientWithTheToken(_ venv: String) async throws {
        try await runRealClient(venv: venv, token: "0123456789abcdef-test-token")
    }

    func runRealClient(venv: String, token: String? = nil) async throws {
        let root = Lab.repositoryRoot
        guard let python = Lab.installedPeerPython(venv) else { return }
        try await withServer(token: token) { server, backend, port in
            let script = root.appendingPathComponent("scripts/ws-client-check.py").path
            var environment = ProcessInfo.processInfo.environment
            environment["MATTERHUB_TOKEN"] = token
            let child = try ChildProcess([python, script, "ws://127.0.0.1:\(port)/ws", String(FixedNodeBackend.nodeID)],
                                         environment: environment)
            let status = await child.wait(timeout: 120)
            let output = child.text
            print(output)
            #expect(status == 0, "\(venv): \(output)")
            #expect(output.contains("0 failed"))
            #expect(!output.contains("FAIL"))
            #expect(backend.labels.withLock { $0 } == ["Home"])
            #expect(server.connectionCounts.open <= 1)
        }
    }
}
