import Foundation
import MatterCommissioning
import MatterDiscovery
import MatterHubService
import MatterServerAPI
import MatterSetupPayload
import MatterTLV
import MatterVirtualDevice
import Testing
import TestSupport

/// A JSON client of the hub for these tests: commands by id, and every frame kept in order, so a
/// test can say what arrived before a result and that an OHF connection never saw a `matterhub/`
/// frame.
final class HubTestConnection: @unchecked Sendable {
    let socket: WebSocketTestClient
    private(set) var frames: [JSONValue] = []
    private var next = 0

    init(port: UInt16) async throws {
        socket = try WebSocketTestClient(port: port, timeout: 60)
        #expect(try await socket.upgrade() == 101)
        frames.append(try JSONParser.parse(Array(await socket.nextText().utf8)))  // server info
    }

    /// Sends a command; returns its message id.
    func send(_ command: String, _ args: JSONValue = .null) async throws -> String {
        next += 1
        let id = "m\(next)"
        try await socket.sendText(String(decoding: JSONWriter.encode(.object(["message_id": .string(id), "command": .string(command),
                                                                              "args": args])), as: UTF8.self))
        return id
    }

    /// Reads frames until the result (or error) for `id`; returns it and the frames before it.
    func reply(_ id: String) async throws -> (frame: JSONValue, before: [JSONValue]) {
        var before: [JSONValue] = []
        while true {
            let frame = try JSONParser.parse(Array(await socket.nextText().utf8))
            frames.append(frame)
            if frame["message_id"]?.string == id { return (frame, before) }
            before.append(frame)
        }
    }

    /// Sends and waits for the result; a test failure (and a throw) when it is an error.
    func call(_ command: String, _ args: JSONValue = .object([:])) async throws -> (result: JSONValue, before: [JSONValue]) {
        let (frame, before) = try await reply(try await send(command, args))
        guard let result = frame["result"] else { throw WebSocketTestClient.Failure("\(command) failed: \(frame)") }
        return (result, before)
    }

    /// Reads frames until an event named `name` (matching `where`) arrives, for at most 60 s (the
    /// hub's pings keep each read alive: without a deadline a missing event hangs the run).
    func event(_ name: String, where match: (JSONValue) -> Bool = { _ in true }) async throws -> JSONValue {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            guard ContinuousClock.now < deadline else { throw WebSocketTestClient.Failure("no \(name) event within 60 s") }
            let frame = try JSONParser.parse(Array(await socket.nextText().utf8))
            frames.append(frame)
            if frame["event"]?.string == name, let data = frame["data"], match(data) { return data }
        }
    }

}

/// The `matterhub/` extension on a real hub (in process, on loopback) with a virtual light:
/// enabled connections get the commands and events, an OHF connection on the same hub never sees
/// any of it, the commissioning session is single across clients, steps arrive live.
@Suite(.serialized) struct HubExtensionTests {
    func withHub(discriminator: UInt16, _ body: (HubServer, VirtualDevice, UInt16) async throws -> Void) async throws {
        let device = try await VirtualDevice(configuration: VirtualDeviceConfiguration(
            passcode: 20_202_021, discriminator: discriminator, port: 0, advertises: false))
        await device.start()
        let devicePort = await device.port
        let state = NSTemporaryDirectory() + "matterhub-ext-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        var configuration = HubServer.Configuration(
            stateDirectory: state, options: CommissioningOptions(trustStore: try HubServerTests.paaStore(), allowTestDevices: true))
        configuration.listen = ["127.0.0.1"]
        configuration.port = 0
        configuration.discovery = MatterDiscovery(browser: FixedServiceBrowser(
            [FixedServiceBrowser.commissionable(discriminator: discriminator, port: devicePort)]))
        let server = try await HubServer(configuration, log: { _ in })
        try await server.start(log: { _ in })
        let port = try #require(server.api.webSocket.tcpPort)
        do { try await body(server, device, port) } catch {
            await server.stop()
            await device.shutdown()
            throw error
        }
        await server.stop()
        await device.shutdown()
    }

    /// A `matterhub/` event, or an error result with an extension field.
    static func isExtensionFrame(_ frame: JSONValue) -> Bool {
        frame["event"]?.string?.hasPrefix("matterhub/") == true || frame["matterhub_error"] != nil || frame["commissioning"] != nil
    }

    @Test func enabledClientsCommissionConfigureControlShareAndUnpairWhileOHFSeesNone() async throws {
        try await withHub(discriminator: 611) { server, device, port in
            let ohf = try await HubTestConnection(port: port)
            _ = try await ohf.call("start_listening", .null)
            // The namespace does not exist for this connection.
            let refused = try await ohf.reply(try await ohf.send("matterhub/devices", .object([:]))).frame
            #expect(refused["error_code"] == .int(9))
            #expect(refused["details"] == .string("Invalid command: matterhub/devices"))
            #expect(refused["matterhub_error"] == nil)

            let a = try await HubTestConnection(port: port)
            let b = try await HubTestConnection(port: port)
            let enabled = try await a.call("matterhub/enable").result
            #expect(enabled["api_version"] == .int(1) && enabled["pid"]?.int64 == Int64(getpid()))
            _ = try await b.call("matterhub/enable")
            let structures = try await a.call("matterhub/structures").result.array ?? []
            let structure = try HubStructure(json: try #require(structures.first))
            #expect(structures.count == 1)

            // One commissioning session across every client of the hub.
            _ = try await a.call("matterhub/prepare_commissioning")
            let second = try await b.reply(try await b.send("matterhub/prepare_commissioning", .object([:]))).frame
            let (_, secondError) = try #require(try HubAPIError.parse(second))
            #expect(secondError.homeError == "commissioningSessionActive" && secondError.code == .nodeCommissionFailed)
            let notOwner = try await b.reply(try await b.send("matterhub/complete_commissioning", .object([:]))).frame
            #expect(notOwner["matterhub_error"] == .string("noCommissioningSession"))
            // The OHF path shares the rule.
            let ohfCommission = try await ohf.reply(try await ohf.send("commission_with_code",
                                                                        .object(["code": .string(device.qrCode), "network_only": .bool(true)]))).frame
            #expect(ohfCommission["error_code"] == .int(1), "\(ohfCommission)")

            // Steps arrive live, before the result, on both enabled connections.
            let (performed, before) = try await a.call("matterhub/perform_commissioning",
                                                       .object(["onboarding_payload": .string(device.qrCode), "name": .string("Desk")]))
            let steps = try before.filter { $0["event"] == .string("matterhub/commissioning_step") }
                .map { try HubCommissioningStep(json: $0["data"] ?? .null) }
            #expect(steps.map(\.step).first == "discovery" && steps.map(\.step).last == "commissioning-complete", "\(steps.map(\.step))")
            #expect(steps.count >= 8 && steps.allSatisfy { $0.result == .ok })
            #expect(steps.map(\.elapsedMilliseconds) == steps.map(\.elapsedMilliseconds).sorted())
            let requestID = try #require(performed["request_id"]?.string)
            #expect(Set(steps.map(\.requestID)) == [requestID])
            let outcome = try HubDeviceOutcome(json: try #require(performed["results"]?.array?.first))
            guard case .success(0, let nodeID, _, _, let address, let timings, _) = outcome else {
                Issue.record("not commissioned: \(outcome)"); return
            }
            #expect(timings.count == steps.count)
            // Where the device answered on its operational network (loopback here).
            let devicePort = await device.port
            #expect(address == "[::1]:\(devicePort)")
            let bSteps = try await b.event("matterhub/commissioning_finished") { $0["request_id"] == .string(requestID) }
            #expect(bSteps["results"]?.array?.count == 1)
            #expect(b.frames.filter { $0["event"] == .string("matterhub/commissioning_step") }.count == steps.count)
            let completed = try await a.call("matterhub/complete_commissioning").result
            #expect(completed["node_ids"] == .array([.integer(nodeID)]))
            // OHF listeners heard of the node the usual way.
            _ = try await ohf.event("node_added") { $0["node_id"]?.uint64 == nodeID }

            // Its connectivity history: it became available once its subscription was up (the
            // runtime writes the history with its next batch of values, within a second).
            var history: [JSONValue] = []
            for _ in 0..<50 where history.isEmpty {
                history = try await a.call("matterhub/device_history", .object(["node_id": .integer(nodeID)])).result.array ?? []
                if history.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(history.count == 1 && history.first?["available"] == .bool(true) && history.first?["reason"] == .string("subscribed"),
                    "\(history)")
            #expect(history.first?["at"]?.string?.hasSuffix("Z") == true)
            let unknownNode = try await a.reply(try await a.send("matterhub/device_history", .object(["node_id": .integer(424242)]))).frame
            #expect(unknownNode["matterhub_error"] == .string("deviceNotFound"), "\(unknownNode)")

            // Name (written on the device) and a new room.
            let configured = try HubDevice(json: try await a.call("matterhub/configure_device", .object([
                "node_id": .integer(nodeID), "name": .string("Reading lamp"), "room": .string("Study")])).result)
            #expect(configured.name == "Reading lamp" && configured.room == "Study" && configured.available)
            #expect(configured.addresses == [.init(host: "::1", port: devicePort, interfaceIndex: if_nametoindex("lo"))])
            _ = try await b.event("matterhub/room_added") { $0["name"] == .string("Study") }
            _ = try await b.event("matterhub/device_updated") { $0["name"] == .string("Reading lamp") }
            let label = try await a.call("matterhub/read", .object(["node_id": .integer(nodeID), "endpoint": .int(0), "cluster": .int(40),
                                                                    "attribute": .int(5)])).result
            #expect(try TLVDecoder.decode(Base16.decode(label["tlv"]?.string ?? "") ?? []) == .utf8("Reading lamp"))
            // Write with exact TLV: NodeLabel on the device only (the home keeps its name).
            _ = try await a.call("matterhub/write", .object(["node_id": .integer(nodeID), "endpoint": .int(0), "cluster": .int(40),
                                                             "attribute": .int(5), "tlv": .string("0c0448616c6c")]))
            let written = try await a.call("matterhub/read", .object(["node_id": .integer(nodeID), "endpoint": .int(0),
                                                                      "cluster": .int(40), "attribute": .int(5)])).result
            #expect(written["tlv"] == .string("0c0448616c6c"))
            // A value of the wrong type (NodeLabel is a string): the device's status, named.
            let refusedWrite = try await a.reply(try await a.send("matterhub/write", .object([
                "node_id": .integer(nodeID), "endpoint": .int(0), "cluster": .int(40), "attribute": .int(5), "tlv": .string("0401")]))).frame
            #expect(refusedWrite["matterhub_error"] == .string("deviceRefused"), "\(refusedWrite)")
            #expect(refusedWrite["details"]?.string?.hasPrefix("writing 40/5 on Reading lamp failed: ") == true, "\(refusedWrite)")
            let missingWrite = try await a.reply(try await a.send("matterhub/write", .object([
                "node_id": .int(12345), "endpoint": .int(0), "cluster": .int(40), "attribute": .int(5), "tlv": .string("0c00")]))).frame
            #expect(missingWrite["matterhub_error"] == .string("deviceNotFound") && missingWrite["error_code"] == .int(5))
            let rooms = try await a.call("matterhub/rooms", .object(["structure_id": .integer(structure.id)])).result.array ?? []
            #expect(try rooms.map { try HubRoom(json: $0).name } == ["Study"])
            // The home kept the name configure_device gave (write is on the device only).
            let devices = try await b.call("matterhub/devices").result.array ?? []
            #expect(try devices.map { try HubDevice(json: $0) } == [configured])

            // Invoke with exact TLV (OnOff Toggle): OHF listeners see the report.
            _ = try await a.call("matterhub/invoke", .object(["node_id": .integer(nodeID), "endpoint": .int(1), "cluster": .int(6), "command": .int(2),
                                                              "fields_tlv": .string("1518")]))
            _ = try await ohf.event("attribute_updated") { $0.array?.first?.uint64 == nodeID && $0.array?[1] == .string("1/6/0") }
            let refusedRead = try await a.reply(try await a.send("matterhub/read", .object([
                "node_id": .integer(nodeID), "endpoint": .int(9), "cluster": .int(6), "attribute": .int(0)]))).frame
            #expect(refusedRead["matterhub_error"] == .string("deviceRefused"), "\(refusedRead)")
            let unknown = try await a.reply(try await a.send("matterhub/read", .object([
                "node_id": .int(12345), "endpoint": .int(1), "cluster": .int(6), "attribute": .int(0)]))).frame
            #expect(unknown["matterhub_error"] == .string("deviceNotFound") && unknown["error_code"] == .int(5))

            let shared = try await a.call("matterhub/share", .object(["node_id": .integer(nodeID), "timeout_seconds": .int(180)])).result
            #expect(shared["qr"]?.string?.hasPrefix("MT:") == true && shared["manual"]?.string?.count == 11)
            #expect(await device.isCommissioningWindowOpen)

            let status = try HubStatus(json: try await b.call("matterhub/hub_status").result)
            #expect(status.nodes == 1 && status.available == 1 && status.connections == 3)
            #expect(status.addresses.contains { $0.hasPrefix("ws://127.0.0.1:") })
            // The live node's CASE session; no handshake holds an ID once commissioning is over.
            #expect((status.messaging?.secureSessions ?? 0) >= 1 && status.messaging?.reservedSessionIDs == 0, "\(String(describing: status.messaging))")
            #expect((status.messaging?.sent ?? 0) > 0 && (status.messaging?.received ?? 0) > 0)
            // Its memory as this process's kernel counts it (the test runs the hub in process).
            let memory = try #require(status.memory)
            let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ").compactMap { Int($0) }
            let residentKB = statm[1] * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
            #expect(abs(memory.residentKB - residentKB) < residentKB / 4, "\(memory) against /proc/self/statm's \(residentKB) kB")
            #expect(memory.heapInUseKB > 0 && memory.residentAnonymousKB <= memory.residentKB, "\(memory)")
            // SQLite's share of the heap: the hub's store is open, so it holds something.
            #expect((memory.sqliteKB ?? 0) > 0 && memory.sqliteKB! < memory.heapInUseKB, "\(memory)")

            _ = try await a.call("matterhub/unpair", .object(["node_id": .integer(nodeID)]))
            _ = try await b.event("matterhub/device_removed") { $0["node_id"]?.uint64 == nodeID }
            _ = try await ohf.event("node_removed") { $0.uint64 == nodeID }
            #expect(await device.fabricIndexes.isEmpty)

            _ = try await ohf.call("server_info", .null)  // every frame sent before its answer is in
            #expect(!ohf.frames.contains(where: Self.isExtensionFrame), "an OHF connection saw a matterhub/ frame")
            #expect(ohf.frames.contains { $0["event"] == .string("node_removed") }, "the OHF frames were not all read")
            #expect(server.api.connectionCounts.open == 3)
        }
    }

    /// A connection that closes gives its commissioning session up; a failed device is an outcome
    /// whose failed step arrives as an event, with the step and what to try; discovery streams.
    @Test func closedConnectionReleasesTheSessionAndAFailureNamesTheStep() async throws {
        try await withHub(discriminator: 612) { _, device, port in
            do {
                let gone = try await HubTestConnection(port: port)
                _ = try await gone.call("matterhub/enable")
                _ = try await gone.call("matterhub/prepare_commissioning")
            }
            let c = try await HubTestConnection(port: port)
            _ = try await c.call("matterhub/enable")
            var prepared = false
            for _ in 0..<500 where !prepared {  // up to 10 s: the server sees the close when it gets a turn
                let frame = try await c.reply(try await c.send("matterhub/prepare_commissioning", .object([:]))).frame
                prepared = frame["result"] != nil
                if !prepared { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(prepared, "the closed connection's session was not released")
            // A wrong passcode (same discriminator): PASE fails, named with its hint.
            let wrong = try ManualPairingCode.encode(SetupPayload(
                kind: .manualCode, vendorID: nil, productID: nil, commissioningFlow: .standard, discoveryCapabilities: nil,
                discriminator: .short(UInt8(612 >> 8)), passcode: 20_202_022))
            let (performed, before) = try await c.call("matterhub/perform_commissioning", .object(["onboarding_payload": .string(wrong)]))
            let outcome = try HubDeviceOutcome(json: try #require(performed["results"]?.array?.first))
            guard case .failure(0, let failure) = outcome else { Issue.record("commissioned with a wrong passcode"); return }
            #expect(failure.step == "pase" && failure.code == "wrong-passcode" && !failure.hint.isEmpty)
            let failedStep = before.compactMap { $0["event"] == .string("matterhub/commissioning_step") ? $0["data"] : nil }
                .map { try? HubCommissioningStep(json: $0) }.last
            #expect(failedStep??.result == .failed && failedStep??.error == failure)
            _ = try await c.call("matterhub/cancel_commissioning")
            // Discovery: each device as an event to this connection as it is found, then the list.
            let (found, beforeFound) = try await c.call("matterhub/discover", .object(["seconds": .int(1)]))
            let streamed = beforeFound.filter { $0["event"] == .string("matterhub/discovered") }
            #expect(!streamed.isEmpty && streamed.allSatisfy { $0["data"]?["node"]?["long_discriminator"] == .int(612) })
            #expect(found.array?.map { $0["long_discriminator"] } == [.int(612)], "\(found)")
            let bad = try await c.reply(try await c.send("matterhub/perform_commissioning", .object(["onboarding_payload": .string("MT:nope")]))).frame
            #expect(bad["matterhub_error"] == .string("noCommissioningSession"))
            _ = device
        }
    }
}
