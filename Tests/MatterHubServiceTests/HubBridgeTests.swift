import Foundation
import MatterHome
import MatterHubService
import MatterServerAPI
import MatterTLV
import MatterVirtualDevice
import Testing
import TestSupport

/// A big bridge in process on loopback: a virtual bridge (an Aggregator and N bridged On/Off
/// lights) commissioned by the hub, every endpoint in its node data with its bridged
/// information, and a command to one bridged light reported back. The figures (commissioning
/// and interview, a command's round trip, the node's JSON size) are printed, not asserted;
/// Benchmarks/hub-bench's bridge section compares them with python-matter-server's.
@Suite(.serialized) struct HubBridgeTests {
    @Test(arguments: [100, 250]) func aBridgeIsInterviewedWhole(lights: Int) async throws {
        var c = VirtualDeviceConfiguration(discriminator: 440, port: 0, kind: .bridge, advertises: false)
        c.bridgedLights = lights
        let device = try await VirtualDevice(configuration: c)
        await device.start()
        let hub = try await InProcessHub.start(devices: [(440, await device.port)], name: "bridge")
        let service = hub.service
        let clock = ContinuousClock(), start = clock.now
        let added = try await service.handle(.commissionWithCode(code: device.qrCode, networkOnly: true))
        let commissioned = clock.now - start
        let nodeID = try #require(added["node_id"]?.uint64)
        let node = try #require(await service.nodes().first)

        // Every endpoint: the Aggregator lists the lights, each light is a bridged On/Off light.
        let parts = node.attributes[AttributePath(endpoint: 1, cluster: 0x1D, attribute: 3)]
        #expect(parts == .array((2..<(2 + lights)).map { .integer($0) }), "PartsList of the Aggregator")
        for ep in [2, 2 + lights / 2, 1 + lights] {
            let e = UInt16(ep)
            #expect(node.attributes[AttributePath(endpoint: e, cluster: 0x39, attribute: 0x11)] == .bool(true), "endpoint \(ep) Reachable")
            #expect(node.attributes[AttributePath(endpoint: e, cluster: 0x39, attribute: 5)] == .string("Light \(ep - 1)"))
            #expect(node.attributes[AttributePath(endpoint: e, cluster: 6, attribute: 0)] == .bool(false))
        }
        let endpoints = Set(node.attributes.keys.map(\.endpoint))
        #expect(endpoints.count == lights + 2, "\(endpoints.count) endpoints in the node data")

        // A command to the middle light: it switches, and the hub's cache follows by report.
        let middle = UInt16(2 + lights / 2)
        let sent = clock.now
        _ = try await service.handle(.deviceCommand(DeviceCommandArguments(nodeID: nodeID, endpointID: middle, clusterID: 6,
                                                                          commandName: "On")))
        let roundTrip = clock.now - sent
        #expect(await device.bridgedLightIsOn(middle))
        let onOff = AttributePath(endpoint: middle, cluster: 6, attribute: 0)
        #expect(await eventually(10) { await service.nodes().first?.attributes[onOff] == .bool(true) })
        let json = JSONWriter.encode(node.json).count
        print("bridge of \(lights) lights: commissioned and interviewed in \(commissioned.milliseconds) ms; "
              + "\(node.attributes.count) attributes, node JSON \(json / 1024) KiB; On to light \(middle): \(roundTrip.milliseconds) ms")
        await hub.stop()
        await device.shutdown()
    }

    /// Lights paired to and removed from a live bridge: the hub reads only the new endpoints
    /// (not the whole bridge) and tells listeners with node_updated then endpoint_added; removed
    /// endpoints go from its cache and store, with endpoint_removed.
    @Test func lightsAddedAndRemovedOnALiveBridge() async throws {
        var c = VirtualDeviceConfiguration(discriminator: 441, port: 0, kind: .bridge, advertises: false)
        c.bridgedLights = 10
        let device = try await VirtualDevice(configuration: c)
        await device.start()
        let hub = try await InProcessHub.start(devices: [(441, await device.port)], name: "bridgelive")
        let service = hub.service, server = hub.server
        let nodeID = try #require(try await service.handle(.commissionWithCode(code: device.qrCode, networkOnly: true))["node_id"]?.uint64)
        let listener = try await HubTestConnection(port: try #require(server.api.webSocket.tcpPort))
        _ = try await listener.call("start_listening", .null)

        try await device.setBridgedLights(12)  // endpoints 12 and 13 come
        let updated = try await listener.event("node_updated") { data in
            data["attributes"]?["13/57/5"] == .string("Light 12")
        }
        #expect(updated["attributes"]?["13/6/0"] == .bool(false))
        for ep in [12, 13] {
            _ = try await listener.event("endpoint_added") { $0["node_id"]?.uint64 == nodeID && $0["endpoint_id"] == .integer(ep) }
        }
        #expect(await service.nodes().first?.attributes[AttributePath(endpoint: 0, cluster: 0x1D, attribute: 3)]
                == .array((1...13).map { .integer($0) }))
        // The new light works.
        _ = try await service.handle(.deviceCommand(DeviceCommandArguments(nodeID: nodeID, endpointID: 13, clusterID: 6, commandName: "On")))
        #expect(await device.bridgedLightIsOn(13))

        try await device.setBridgedLights(9)  // endpoints 11, 12 and 13 go
        for ep in [11, 12, 13] {
            _ = try await listener.event("endpoint_removed") { $0["node_id"]?.uint64 == nodeID && $0["endpoint_id"] == .integer(ep) }
        }
        let endpoints = Set((await service.nodes().first?.attributes.keys.map(\.endpoint)) ?? [])
        #expect(endpoints == Set(0...10), "\(endpoints.sorted())")
        // The store forgot them too: a restarted hub would list the same.
        #expect(await eventually(5) {
            Set(((try? service.hub.store.attributeValues(for: NodeID(nodeID))) ?? [:]).keys.map(\.endpoint.rawValue)) == Set(0...10)
        })
        await hub.stop()
        await device.shutdown()
    }

    /// A bridge whose lights change by themselves (their own switches, one after another, as
    /// `virtual-device`'s 'churn R' does): every change reaches a listening client as
    /// attribute_updated, and the hub's cache ends with every light on.
    @Test func aBridgeChangingItsLightsByItselfIsFollowed() async throws {
        let lights = 20
        var c = VirtualDeviceConfiguration(discriminator: 442, port: 0, kind: .bridge, advertises: false)
        c.bridgedLights = lights
        let device = try await VirtualDevice(configuration: c)
        await device.start()
        let hub = try await InProcessHub.start(devices: [(442, await device.port)], name: "bridgechurn")
        let service = hub.service, server = hub.server
        let nodeID = try #require(try await service.handle(.commissionWithCode(code: device.qrCode, networkOnly: true))["node_id"]?.uint64)
        let listener = try await HubTestConnection(port: try #require(server.api.webSocket.tcpPort))
        _ = try await listener.call("start_listening", .null)

        let clock = ContinuousClock(), start = clock.now
        for light in 0..<lights { await device.pressButton(light: light) }
        for light in 0..<lights { #expect(await device.bridgedLightIsOn(UInt16(2 + light))) }
        // In whatever order the reports bring them.
        var heard = Set<String>()
        let wanted = Set((0..<lights).map { "\(2 + $0)/6/0" })
        while !wanted.isSubset(of: heard) {
            let data = try await listener.event("attribute_updated") { data in
                data.array?.first?.uint64 == nodeID && data.array?[2] == .bool(true)
            }
            if let path = data.array?[1].string { heard.insert(path) }
        }
        print("\(lights) device-side changes across a bridge's lights reached a client in \((clock.now - start).milliseconds) ms")
        let node = try #require(await service.nodes().first)
        for light in 0..<lights {
            #expect(node.attributes[AttributePath(endpoint: UInt16(2 + light), cluster: 6, attribute: 0)] == .bool(true))
        }
        await hub.stop()
        await device.shutdown()
    }
}
