import Foundation
import MatterCommissioning
import MatterDiscovery
import MatterHome
import MatterHubService
import MatterOTA
import MatterServerAPI
import MatterTLV
import MatterVirtualDevice
import Synchronization
import Testing
import TestSupport

/// A firmware update end to end, in process on loopback: the hub holds an image made by the CHIP
/// SDK's ota_image_tool.py for the virtual light (FFF1/8000, version 2 over its 1); check_node_update
/// offers it, update_node announces the hub's OTA provider, and the light (an OTA requestor) queries
/// the hub, downloads the image over BDX, checks it, restarts into version 2 and tells the hub,
/// which sees the new SoftwareVersion when it reconnects.
@Suite(.serialized) struct HubOTATests {
    final class Lines: Sendable {
        let all = Mutex<[String]>([])
        func append(_ s: String) { all.withLock { $0.append(s) } }
        func contains(_ s: String) -> Bool { all.withLock { $0.contains { $0.contains(s) } } }
    }

    @Test func aDeviceUpdatesFromTheHubsImage() async throws {
        var c = VirtualDeviceConfiguration(discriminator: 431, port: 0, advertises: false)
        c.softwareVersion = 1
        let device = try await VirtualDevice(configuration: c)
        await device.start()
        let log = Lines()
        let hub = try await InProcessHub.start(devices: [(431, await device.port)], name: "hubota", log: { log.append($0) })
        defer { try? FileManager.default.removeItem(atPath: hub.state) }
        let server = hub.server
        try OTATestImage.add(toStateDirectory: hub.state)
        let service = server.service
        let added = try await service.handle(.commissionWithCode(code: device.qrCode, networkOnly: true))
        let nodeID = try #require(added["node_id"]?.uint64)
        #expect(await service.runtime.waitUntilAvailable(NodeID(nodeID), timeout: .seconds(30)))

        let offer = try await service.handle(.checkNodeUpdate(nodeID: nodeID))
        #expect(offer["software_version"] == .integer(2) && offer["software_version_string"] == .string("2.0.0"), "\(offer)")
        #expect(offer["vid"] == .integer(0xFFF1) && offer["pid"] == .integer(0x8000) && offer["update_source"] == .string("local"))
        await #expect(throws: APIError.self) { _ = try await service.handle(.updateNode(nodeID: nodeID, softwareVersion: .number(3))) }
        // A listening client (as Home Assistant's update entity) follows the requestor's state.
        let listener = try await HubTestConnection(port: try #require(server.api.webSocket.tcpPort))
        _ = try await listener.call("start_listening", .null)
        // update_node returns once the node runs the new version (python-matter-server's shape).
        let clock = ContinuousClock(), start = clock.now
        #expect(try await service.handle(.updateNode(nodeID: nodeID, softwareVersion: .number(2))) == .null)
        #expect(await device.softwareVersion == 2, "update_node returned before the device ran version 2")
        print("update_node to version 2 returned: \((clock.now - start).milliseconds) ms")
        let version = AttributePath(endpoint: 0, cluster: 0x28, attribute: 9)
        // The device's CloseSession on restart makes the hub reconnect at once (3 s here); without
        // it the hub only noticed when the subscription lapsed, a minute later.
        #expect(await eventually(20) { await service.nodes().first?.attributes[version] == .integer(2) },
                "the hub did not see the new SoftwareVersion within 20 s")
        print("the hub reads version 2: \((clock.now - start).milliseconds) ms")
        #expect(await eventually(30) { log.contains("now runs version 2") }, "no NotifyUpdateApplied: \(log.all.withLock { $0 })")
        print("NotifyUpdateApplied: \((clock.now - start).milliseconds) ms")
        for line in ["is offered FFF1-8000-2.ota", "downloading FFF1-8000-2.ota: 100%", "applies version 2"] {
            #expect(log.contains(line), "\(line): \(log.all.withLock { $0 })")
        }
        // Downloading (UpdateState 4) with progress between 0 and 100 reached the client.
        _ = try await listener.event("attribute_updated") { $0.array?[1] == .string("0/42/2") && $0.array?[2] == .integer(4) }
        _ = try await listener.event("attribute_updated") { data in
            guard data.array?[1] == .string("0/42/3"), let p = data.array?[2].int64 else { return false }
            return (1...99).contains(p)
        }
        // Up to date now: nothing more to offer.
        #expect(try await service.handle(.checkNodeUpdate(nodeID: nodeID)) == .null)
        await server.stop()
        await device.shutdown()
    }

    /// Each way a device can fail an update (`--fault ota-*`, the first update only) ends
    /// update_node with an error that names the step, within the hub's bounds (shortened here); the
    /// device still runs version 1 and obeys commands, and a retry at once installs version 2.
    @Test(arguments: [
        (VirtualDeviceFault.otaRefuseImage, "refused FFF1-8000-2.ota after downloading it"),
        // The device goes silent half-way; the hub ends the transfer after its stall bound (2 s here).
        (VirtualDeviceFault.otaAbandonTransfer, "the transfer stalled; the hub ended it"),
        (VirtualDeviceFault.otaNeverApply, "was told to apply version 2 but did not restart into it within 3.0 seconds"),
    ])
    func aFailedUpdateIsNamedAndCanBeRetried(fault: VirtualDeviceFault, named: String) async throws {
        let discriminator = UInt16(440 + VirtualDeviceFault.allCases.firstIndex(of: fault)!)
        var c = VirtualDeviceConfiguration(discriminator: discriminator, port: 0, faults: [fault], advertises: false)
        c.softwareVersion = 1
        let device = try await VirtualDevice(configuration: c)
        await device.start()
        let log = Lines()
        let hub = try await InProcessHub.start(devices: [(discriminator, await device.port)], name: "hubotafault", log: { log.append($0) })
        defer { try? FileManager.default.removeItem(atPath: hub.state) }
        try OTATestImage.add(toStateDirectory: hub.state)
        let service = hub.service
        await service.setOTAUpdateTimeouts(OTAUpdateTimeouts(query: .seconds(10), transferStart: .seconds(10), transferStall: .seconds(2),
                                                             applyRequest: .seconds(10), reboot: .seconds(3)))
        let nodeID = try #require(try await service.handle(.commissionWithCode(code: device.qrCode, networkOnly: true))["node_id"]?.uint64)
        #expect(await service.runtime.waitUntilAvailable(NodeID(nodeID), timeout: .seconds(30)))

        let clock = ContinuousClock(), start = clock.now
        do {
            _ = try await service.handle(.updateNode(nodeID: nodeID, softwareVersion: .number(2)))
            Issue.record("update_node succeeded against a device with \(fault.rawValue)")
        } catch {
            #expect(error.code == .updateError && error.details.contains(named), "\(error)")
            print("\(fault.rawValue): update_node failed after \((clock.now - start).milliseconds) ms: \(error.details)")
        }
        #expect(await device.softwareVersion == 1)
        // Still controllable.
        let wasOn = await device.isOn
        _ = try await service.handle(.deviceCommand(DeviceCommandArguments(nodeID: nodeID, endpointID: 1, clusterID: 6, commandName: "Toggle")))
        #expect(await device.isOn != wasOn)
        // The retry, once the device itself is back at Idle (at once, or 5 s after it went silent).
        #expect(await eventually(15) { await !device.isUpdating })
        #expect(try await service.handle(.updateNode(nodeID: nodeID, softwareVersion: .number(2))) == .null)
        #expect(await device.softwareVersion == 2)
        await hub.stop()
        await device.shutdown()
    }

    /// Five devices updated at once from one hub: five BDX transfers from the same image in
    /// parallel, each update_node returning once its device runs version 2.
    @Test func fiveDevicesUpdateAtOnce() async throws {
        var devices: [VirtualDevice] = []
        for k in 0..<5 {
            var c = VirtualDeviceConfiguration(discriminator: UInt16(450 + k), port: 0, advertises: false)
            c.softwareVersion = 1
            let device = try await VirtualDevice(configuration: c)
            await device.start()
            devices.append(device)
        }
        var ports: [(discriminator: UInt16, port: UInt16)] = []
        for (k, device) in devices.enumerated() { ports.append((UInt16(450 + k), await device.port)) }
        let log = Lines()
        let hub = try await InProcessHub.start(devices: ports, name: "hubotafive", log: { log.append($0) })
        defer { try? FileManager.default.removeItem(atPath: hub.state) }
        try OTATestImage.add(toStateDirectory: hub.state)
        let service = hub.service
        var nodes: [UInt64] = []
        for device in devices {
            nodes.append(try #require(try await service.handle(.commissionWithCode(code: device.qrCode, networkOnly: true))["node_id"]?.uint64))
        }
        for node in nodes { #expect(await service.runtime.waitUntilAvailable(NodeID(node), timeout: .seconds(30))) }

        let clock = ContinuousClock(), start = clock.now
        let results = await withTaskGroup(of: (UInt64, String?).self) { group in
            for node in nodes {
                group.addTask {
                    do {
                        _ = try await service.handle(.updateNode(nodeID: node, softwareVersion: .number(2)))
                        return (node, nil)
                    } catch { return (node, "\(error)") }
                }
            }
            return await group.reduce(into: [UInt64: String?]()) { $0[$1.0] = $1.1 }
        }
        print("five devices updated at once: \((clock.now - start).milliseconds) ms")
        #expect(results.count == 5 && results.values.allSatisfy { $0 == nil }, "\(results)")
        for device in devices { #expect(await device.softwareVersion == 2) }
        #expect(log.all.withLock { $0.filter { $0.contains("downloading FFF1-8000-2.ota: 100%") }.count } == 5)
        await hub.stop()
        for device in devices { await device.shutdown() }
    }

    /// A transfer cut by a hub restart: update_node on the first hub ends saying the hub stopped,
    /// the device gives the download up and keeps version 1, and update_node on the hub started
    /// again on the same state installs version 2 (a 4 MB image, so the stop lands mid-transfer).
    @Test func aTransferCutByAHubRestartIsRetriedAfterIt() async throws {
        var c = VirtualDeviceConfiguration(discriminator: 434, port: 0, advertises: false)
        c.softwareVersion = 1
        let device = try await VirtualDevice(configuration: c)
        await device.start()
        let state = NSTemporaryDirectory() + "matterhub-otarestart-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        var configuration = HubServer.Configuration(
            stateDirectory: state, options: CommissioningOptions(trustStore: try HubServerTests.paaStore(), allowTestDevices: true))
        configuration.port = 0
        configuration.discovery = MatterDiscovery(browser: FixedServiceBrowser(
            [FixedServiceBrowser.commissionable(discriminator: 434, port: await device.port)]))
        let log = Lines()
        let first = try await HubServer(configuration, log: { log.append($0) })
        try await first.start(log: { log.append($0) })
        try OTATestImage.addMade(payloadBytes: 4 << 20, toStateDirectory: state)
        let nodeID = try #require(try await first.service.handle(.commissionWithCode(code: device.qrCode, networkOnly: true))["node_id"]?.uint64)
        #expect(await first.service.runtime.waitUntilAvailable(NodeID(nodeID), timeout: .seconds(30)))

        let cut = Task { try await first.service.handle(.updateNode(nodeID: nodeID, softwareVersion: .number(2))) }
        #expect(await eventually(60) { log.contains("downloading FFF1-8000-2.ota: 25%") }, "\(log.all.withLock { $0 })")
        await first.stop()
        do {
            _ = try await cut.value
            Issue.record("update_node succeeded although the hub stopped mid-transfer")
        } catch {
            #expect("\(error)".contains("the hub is stopping"), "\(error)")
        }
        #expect(log.contains("download of FFF1-8000-2.ota ended after"), "\(log.all.withLock { $0 })")
        // The device notices its provider went (its BlockQuery unanswered) and is back at Idle.
        #expect(await eventually(60) { await !device.isUpdating }, "the device still thinks it is updating")
        #expect(await device.softwareVersion == 1)

        let second = try await HubServer(configuration, log: { log.append($0) })
        try await second.start(log: { log.append($0) })
        #expect(await second.service.runtime.waitUntilAvailable(NodeID(nodeID), timeout: .seconds(30)))
        let clock = ContinuousClock(), start = clock.now
        #expect(try await second.service.handle(.updateNode(nodeID: nodeID, softwareVersion: .number(2))) == .null)
        #expect(await device.softwareVersion == 2)
        print("after the restart, update_node with a 4 MB image: \((clock.now - start).milliseconds) ms; "
              + (log.all.withLock { $0.last { $0.contains("downloaded FFF1-8000-2.ota") } } ?? "no transfer line"))
        await second.stop()
        await device.shutdown()
    }

    /// A requestor that asks by itself: the hub writes its DefaultOTAProviders when it
    /// commissions it, and at its next query (every 2 s here; the SDK's once a day) the device
    /// finds the hub's image and installs it, with no update_node.
    @Test func aDeviceAsksTheHubByItself() async throws {
        var c = VirtualDeviceConfiguration(discriminator: 432, port: 0, advertises: false)
        c.softwareVersion = 1
        c.otaQueryInterval = 2
        let device = try await VirtualDevice(configuration: c)
        await device.start()
        let log = Lines()
        let hub = try await InProcessHub.start(devices: [(432, await device.port)], name: "hubotaquery", log: { log.append($0) })
        try OTATestImage.add(toStateDirectory: hub.state)
        let service = hub.service
        let nodeID = try #require(try await service.handle(.commissionWithCode(code: device.qrCode, networkOnly: true))["node_id"]?.uint64)
        #expect(log.contains("asks the hub for updates by itself now"), "\(log.all.withLock { $0 })")
        // The device's list names the hub's node, endpoint 0.
        let written = try await service.handle(.readAttribute(nodeID: nodeID, paths: [AttributePathPattern("0/42/0")!], fabricFiltered: true))
        let entries = written["0/42/0"]?.array ?? []
        #expect(entries.count == 1 && entries.first?["2"] == .integer(0) && entries.first?["1"]?.uint64 != nil, "\(written)")
        let clock = ContinuousClock(), start = clock.now
        #expect(await eventually(30) { await device.softwareVersion == 2 }, "the device did not update by itself: \(log.all.withLock { $0 })")
        print("a device that asks every 2 s installed the hub's image \((clock.now - start).milliseconds) ms after its commissioning")
        await hub.stop()
        await device.shutdown()
    }
}
