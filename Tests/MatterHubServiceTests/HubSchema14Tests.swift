import Foundation
import MatterHubService
import MatterTLV
import MatterServerAPI
import MatterVirtualDevice
import Testing
import TestSupport

/// Schema 14's interaction commands on a real hub (in process, on loopback) with a virtual
/// light: `read` with events, statuses and data version filters; `batched_device_commands` in
/// one InvokeRequest; wildcard and timed `write_attribute`; and, on a hub run with
/// `--no-auto-subscription`, a client's own `subscribe` (its reports to that connection only),
/// `unsubscribe`, and the auto subscription switched on and off per node. matter-python-client
/// 1.6.1 parses these answers into its models in scripts/ohf-hub-check.py (the lab).
@Suite(.serialized) struct HubSchema14Tests {
    func withLight(discriminator: UInt16, kind: VirtualDeviceConfiguration.Kind = .light, maxPaths: UInt16 = 1,
                   autoSubscription: Bool = true,
                   _ body: (InProcessHub, VirtualDevice, UInt64) async throws -> Void) async throws {
        var c = VirtualDeviceConfiguration(discriminator: discriminator, port: 0, kind: kind, advertises: false)
        c.maxPathsPerInvoke = maxPaths
        let device = try await VirtualDevice(configuration: c)
        await device.start()
        let hub = try await InProcessHub.start(devices: [(discriminator, await device.port)], name: "s14",
                                               autoSubscription: autoSubscription)
        do {
            let added = try await hub.service.handle(.commissionWithCode(code: device.qrCode, networkOnly: true))
            try await body(hub, device, try #require(added["node_id"]?.uint64))
        } catch {
            await hub.stop()
            await device.shutdown()
            throw error
        }
        await hub.stop()
        await device.shutdown()
    }

    @Test func readReturnsValuesEventsStatusesAndDataVersions() async throws {
        try await withLight(discriminator: 1401) { hub, _, node in
            let service = hub.service
            let paths = InteractionPaths(attributes: [AttributePathPattern("1/6/*")!, AttributePathPattern("1/768/0")!],
                                         events: [EventPathPattern(endpoint: 0, cluster: 0x28, event: nil)], eventMin: 0)
            let report = try await service.handle(.read(nodeID: node, paths: paths))
            #expect(report["attributes"]?["1/6/0"] == .bool(false))
            #expect(report["attributes"]?["1/6/65531"] != nil, "the wildcard brings the global attributes")
            // The light has no Color Control: the concrete path's status, keyed as asked.
            #expect(report["attribute_status"]?["1/768/0"]?["status"] == .integer(0xC3), "\(report["attribute_status"] ?? .null)")
            let startUp = report["events"]?.array?.first { $0["cluster_id"] == .integer(0x28) && $0["event_id"] == .integer(0) }
            #expect(startUp != nil, "BasicInformation StartUp in \(report["events"] ?? .null)")
            let version = try #require(report["data_versions"]?["1/6"]?.uint64)

            // The cluster has not changed: a filter at its version skips it.
            let filtered = InteractionPaths(attributes: [AttributePathPattern("1/6/0")!],
                                            dataVersionFilters: [DataVersionFilter(endpoint: 1, cluster: 6, dataVersion: UInt32(version))])
            let skipped = try await service.handle(.read(nodeID: node, paths: filtered))
            #expect(skipped["attributes"] == .object([:]), "\(skipped)")
            #expect(skipped["data_versions"] == .null)
        }
    }

    @Test func batchedCommandsGoInOneInvokeWithAResultEach() async throws {
        try await withLight(discriminator: 1402, maxPaths: 4) { hub, device, node in
            let service = hub.service
            let result = try await service.handle(.batchedDeviceCommands(BatchedCommandsArguments(nodeID: node, commands: [
                BatchedCommand(endpointID: 1, clusterID: 6, commandName: "On"),
                BatchedCommand(endpointID: 1, clusterID: 8, commandName: "MoveToLevel",
                               payload: JSONObject([.init(key: "level", value: .integer(100)), .init(key: "transitionTime", value: .integer(0)),
                                                    .init(key: "optionsMask", value: .integer(0)), .init(key: "optionsOverride", value: .integer(0))])),
                BatchedCommand(endpointID: 9, clusterID: 6, commandName: "Off"),
            ])))
            let entries = try #require(result.array)
            #expect(entries.count == 3)
            #expect(entries[0]["status"] == .integer(0))
            #expect(entries[1]["status"] == .integer(0))
            #expect(entries[2]["status"] == .integer(0x7F), "endpoint 9 does not exist: \(entries[2])")
            #expect(await device.isOn)

            // More than the node's MaxPathsPerInvoke: refused before anything is sent.
            let five = Array(repeating: BatchedCommand(endpointID: 1, clusterID: 6, commandName: "Toggle"), count: 5)
            await #expect(throws: APIError.self) {
                _ = try await service.handle(.batchedDeviceCommands(BatchedCommandsArguments(nodeID: node, commands: five)))
            }
            #expect(await device.isOn, "no command of the refused batch ran")
        }
    }

    @Test func wildcardAndTimedWrites() async throws {
        try await withLight(discriminator: 1403) { hub, _, node in
            let service = hub.service
            // OnLevel (8/17) on every endpoint that has it: the light's endpoint 1.
            let written = try await service.handle(.writeAttribute(nodeID: node, path: AttributePathPattern("*/8/17")!, value: .integer(77)))
            #expect(written.array?.count == 1)
            #expect(written.array?.first?["Path"]?["EndpointId"] == .integer(1))
            #expect(written.array?.first?["Status"] == .integer(0))
            let read = try await service.handle(.readAttribute(nodeID: node, paths: [AttributePathPattern("1/8/17")!], fabricFiltered: true))
            #expect(read["1/8/17"] == .integer(77))

            let timed = try await service.handle(.writeAttribute(nodeID: node, path: AttributePathPattern("0/40/5")!,
                                                                 value: .string("kitchen"), timedRequestTimeoutMs: 2000))
            #expect(timed.array?.first?["Status"] == .integer(0))
            #expect(try await service.handle(.readAttribute(nodeID: node, paths: [AttributePathPattern("0/40/5")!], fabricFiltered: true))["0/40/5"]
                    == .string("kitchen"))
            // No endpoint has the attribute: said so.
            await #expect(throws: APIError.self) {
                _ = try await service.handle(.writeAttribute(nodeID: node, path: AttributePathPattern("*/768/7")!, value: .integer(1)))
            }
        }
    }

    @Test func aClientSubscribesWhenTheHubDoesNot() async throws {
        try await withLight(discriminator: 1404, autoSubscription: false) { hub, device, node in
            let port = try #require(hub.server.api.webSocket.tcpPort)
            // Commissioned without a subscription, the node was interviewed by a read.
            #expect(await hub.service.nodes().first?.attributes[AttributePath(endpoint: 1, cluster: 6, attribute: 0)] == .bool(false))
            let owner = try await HubTestConnection(port: port)
            let other = try await HubTestConnection(port: port)
            _ = try await owner.call("start_listening", .null)
            _ = try await other.call("start_listening", .null)

            let (primed, _) = try await owner.call("subscribe", .object([
                "node_id": .integer(node), "min_interval": .integer(0), "max_interval": .integer(30),
                "attribute_paths": .array([.string("1/6/0")]),
            ]))
            #expect(primed["attributes"]?["1/6/0"] == .bool(false))
            let sid = try #require(primed["subscription_id"]?.uint64)

            await device.pressButton()
            let report = try await owner.event("subscription_report") { $0["subscription_id"]?.uint64 == sid }
            #expect(report["node_id"]?.uint64 == node)
            #expect(report["attributes"]?["1/6/0"] == .bool(true))

            // Only the owner hears it: the other connection's next frame is its own answer.
            let (_, before) = try await other.call("server_info")
            #expect(!before.contains { $0["event"] == .string("subscription_report") }, "\(before)")

            // Not someone else's to end.
            let refused = try await other.reply(try await other.send("unsubscribe", .object(["node_id": .integer(node), "subscription_id": .integer(sid)])))
            #expect(refused.frame["error_code"] == .integer(8))

            // The hub's own subscription ends the clients' (on the device, and here).
            // (The event goes out as the subscription is replaced, through the hub's update
            // stream: just before the command's answer or just after it.)
            let (_, beforeEnabled) = try await owner.call("enable_auto_subscription", .object(["node_id": .integer(node)]))
            var ended = beforeEnabled.first { $0["event"] == .string("subscription_ended") }?["data"]
            if ended == nil { ended = try await owner.event("subscription_ended") }
            #expect(ended?["node_id"]?.uint64 == node, "\(beforeEnabled)")
            #expect(ended?["subscription_id"]?.uint64 == sid)
            // While it runs, subscribe is refused saying why.
            let busy = try await owner.reply(try await owner.send("subscribe", .object([
                "node_id": .integer(node), "min_interval": .integer(0), "max_interval": .integer(30),
                "attribute_paths": .array([.string("1/6/0")]),
            ])))
            #expect(busy.frame["error_code"] == .integer(8))
            await device.pressButton()
            _ = try await owner.event("attribute_updated") { $0.array?.count == 3 && $0.array?[1] == .string("1/6/0") && $0.array?[2] == .bool(false) }

            _ = try await owner.call("disable_auto_subscription", .object(["node_id": .integer(node)]))
            let (again, _) = try await owner.call("subscribe", .object([
                "node_id": .integer(node), "min_interval": .integer(0), "max_interval": .integer(30),
                "attribute_paths": .array([.string("1/6/0")]),
            ]))
            let sid2 = try #require(again["subscription_id"]?.uint64)
            _ = try await owner.call("unsubscribe", .object(["node_id": .integer(node), "subscription_id": .integer(sid2)]))
            await device.pressButton()
            // Unsubscribed: the next frame after a round trip carries no report for it.
            try await Task.sleep(for: .milliseconds(500))
            let (_, late) = try await owner.call("server_info")
            #expect(!late.contains { $0["event"] == .string("subscription_report") && $0["data"]?["subscription_id"]?.uint64 == sid2 }, "\(late)")
        }
    }

    /// On a hub that keeps its own subscription to every node (the default, what Home
    /// Assistant's values come from), the subscription commands are refused saying how to run
    /// the hub instead: no second client can switch that subscription off.
    @Test func subscriptionCommandsAreRefusedWhileTheHubSubscribes() async throws {
        try await withLight(discriminator: 1405) { hub, _, node in
            let arguments = SubscribeArguments(nodeID: node, minInterval: 0, maxInterval: 30,
                                               paths: InteractionPaths(attributes: [AttributePathPattern("1/6/0")!]))
            for command in [ServerCommand.subscribe(arguments), .disableAutoSubscription(nodeID: node),
                            .enableAutoSubscription(nodeID: node), .unsubscribe(nodeID: node, subscriptionID: 1)] {
                do throws(APIError) {
                    _ = try await hub.service.handle(command, connection: 1)
                    Issue.record("\(command.name.rawValue) was accepted while the hub subscribes to every node")
                } catch {
                    #expect(error.code == .invalidArguments)
                    #expect(error.details.contains("--no-auto-subscription"), "\(error.details)")
                }
            }
            #expect(await hub.service.runtime.autoSubscription(of: NodeID(node)))
        }
    }

    /// Schema 15: a thermostat's Presets written atomically (BeginWrite, the write with the
    /// cluster's data version, CommitWrite), a stale data version refused (then taken with
    /// `ignore_data_version_mismatch`), a preset the thermostat refuses rolled back with its
    /// status, a plain write refused by the thermostat, and an attribute without the Atomic
    /// quality refused by the hub.
    @Test func presetsAreWrittenAtomically() async throws {
        try await withLight(discriminator: 1406, kind: .thermostat) { hub, _, node in
            let service = hub.service
            let presets = AttributePathPattern("1/513/80")!
            func current() async throws -> (list: [JSONValue], version: UInt32) {
                let r = try await service.handle(.read(nodeID: node, paths: InteractionPaths(attributes: [presets])))
                return (try #require(r["attributes"]?["1/513/80"]?.array), UInt32(try #require(r["data_versions"]?["1/513"]?.uint64)))
            }
            func preset(_ scenario: Int, _ name: String, heating: Int) -> JSONValue {
                .object(["0": .null, "1": .integer(scenario), "2": .string(name), "4": .integer(heating), "5": .bool(false)])
            }
            func status(_ v: JSONValue) -> JSONValue? { v.array?.first?["Status"] }
            func names() async throws -> [JSONValue?] { try await current().list.map { $0["2"] } }
            let path = AttributePath(endpoint: 1, cluster: 513, attribute: 80)
            // The built-in presets (Home, Away) stay: the thermostat refuses a list without them.
            let (builtIn, start) = try await current()
            #expect(builtIn.count == 2 && builtIn.allSatisfy { $0["5"] == .bool(true) }, "\(builtIn)")

            let written = try await service.handle(.writeAtomicAttribute(AtomicWriteArguments(
                nodeID: node, path: path, value: .array(builtIn + [preset(3, "Sleep", heating: 1800)]), dataVersion: start)))
            #expect(status(written) == .integer(0), "\(written)")
            let list = try await current().list
            #expect(list.map { $0["2"] } == [.string("Home"), .string("Away"), .string("Sleep")], "\(list)")
            #expect(list.allSatisfy { $0["0"]?.string?.isEmpty == false }, "the thermostat gave the new preset a handle: \(list)")
            // The cache holds what the device keeps (the handle it gave), not what was sent.
            let cached = await service.nodes().first?.attributes[path]?.array?.last
            #expect(cached?["0"] == list.last?["0"] && cached?["0"] != .null, "\(String(describing: cached))")

            // The version read before the write is stale now.
            let vacation = JSONValue.array(builtIn + [preset(5, "Vacation", heating: 1600)])
            let stale = try await service.handle(.writeAtomicAttribute(AtomicWriteArguments(
                nodeID: node, path: path, value: vacation, dataVersion: start)))
            #expect(status(stale) == .integer(146), "DATA_VERSION_MISMATCH: \(stale)")
            let forced = try await service.handle(.writeAtomicAttribute(AtomicWriteArguments(
                nodeID: node, path: path, value: vacation, dataVersion: start, ignoreDataVersionMismatch: true)))
            #expect(status(forced) == .integer(0), "\(forced)")
            #expect(try await names() == [.string("Home"), .string("Away"), .string("Vacation")])

            // What the thermostat refuses at CommitWrite comes back with its status, nothing changed:
            // a scenario that does not exist, a built-in preset left out.
            let odd = try await service.handle(.writeAtomicAttribute(AtomicWriteArguments(
                nodeID: node, path: path, value: .array(builtIn + [preset(99, "Odd", heating: 1600)]), dataVersion: nil,
                skipDataVersionCheck: true)))
            #expect(status(odd) == .integer(0x87), "CONSTRAINT_ERROR: \(odd)")
            let dropped = try await service.handle(.writeAtomicAttribute(AtomicWriteArguments(
                nodeID: node, path: path, value: .array([builtIn[0]]), dataVersion: nil, skipDataVersionCheck: true)))
            #expect(status(dropped) == .integer(0x87), "a built-in preset removed: \(dropped)")
            #expect(try await names() == [.string("Home"), .string("Away"), .string("Vacation")])

            // Outside an atomic write the thermostat refuses the list (INVALID_IN_STATE).
            let plain = try await service.handle(.writeAttribute(nodeID: node, path: presets, value: vacation))
            #expect(status(plain) == .integer(0xCB), "\(plain)")
            // No Atomic quality: refused before the device is asked.
            await #expect(throws: APIError.self) {
                _ = try await service.handle(.writeAtomicAttribute(AtomicWriteArguments(
                    nodeID: node, path: AttributePath(endpoint: 1, cluster: 513, attribute: 0x12), value: .integer(2100),
                    dataVersion: nil, skipDataVersionCheck: true)))
            }
        }
    }

    /// The same through matter-python-client 1.6.1's own write_atomic_attribute, with the CHIP
    /// SDK's PresetStruct objects as the value (scripts/atomic-write-check.py).
    @Test func matterPythonClientWritesPresetsAtomically() async throws {
        guard let python = Lab.matterPythonClient() else { return }
        let device = try await VirtualDevice(configuration: VirtualDeviceConfiguration(discriminator: 1407, port: 0, kind: .thermostat,
                                                                                       advertises: false))
        await device.start()
        let hub = try await InProcessHub.start(devices: [(1407, await device.port)], name: "atomic")
        let url = try #require(hub.server.urls.first { $0.hasPrefix("ws://") })
        let script = Lab.repositoryRoot.appendingPathComponent("scripts/atomic-write-check.py").path
        let child = try ChildProcess([python, script, url, device.qrCode])
        let status = await child.wait(timeout: 120)
        let output = child.text
        print(output)
        #expect(status == 0, "\(output)")
        #expect(output.contains(" passed, 0 failed") && output.contains("ok   the refused write changed nothing"), "\(output)")
        await hub.stop()
        await device.shutdown()
    }
}
