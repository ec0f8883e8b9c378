import Foundation
import Testing
import TestSupport

/// `matterctl hub serve` keeps its devices through what happens to them and to itself: a device
/// that comes back on another port is found again through `_matter._tcp`; a hub SIGKILLed after
/// any commissioning step (driven through the API) restarts into a store that agrees with the
/// device. Devices on h18, the hub on h19; the test drives the API over the hub's Unix socket.
@Suite(.serialized, .enabled(if: Lab.isAvailable, "lab integration tests need root (network namespaces): run scripts/test as root"))
struct HubLifecycleLabTests {
    static let deviceHost = 18
    static let hubHost = 19

    static func commission(_ api: HubAPIDriver, _ code: String) async throws -> UInt64 {
        let result = try await api.command("commission_with_code", ["code": code, "network_only": true], timeout: 90)
        let node = try #require((result["result"] as? [String: Any])?["node_id"] as? NSNumber, "commissioning failed: \(result)")
        return node.uint64Value
    }

    /// Toggle through the API: null, then attribute_updated [node, "1/6/0", bool].
    static func toggle(_ api: HubAPIDriver, _ node: UInt64) async throws -> Bool {
        let mark = api.events.count
        let result = try await api.command("device_command", ["node_id": node, "endpoint_id": 1, "cluster_id": 6,
                                                               "command_name": "Toggle", "payload": [String: Any]()], timeout: 15)
        guard result.keys.contains("result"), result["error_code"] == nil else { return false }
        let update = try await api.event("attribute_updated", from: mark, timeout: 10) { data in
            let d = data as? [Any]
            return (d?.first as? NSNumber)?.uint64Value == node && d?[1] as? String == "1/6/0"
        }
        return update != nil
    }

    @Test func aDeviceBackOnAnotherPortIsFoundAgain() async throws {
        let lab = try Lab.shared()
        let deviceState = HubLab.newDirectory(lab, "moved-vd")
        var device = try await HubLab.startDevice(lab, on: Self.deviceHost, state: deviceState, discriminator: 3301, port: 5731)
        defer { device.process.kill9() }
        let state = HubLab.newDirectory(lab, "moved-hub")
        let hub = try await HubLab.startHub(lab, on: Self.hubHost, state: state, paa: try CircuitMatterCommissioningTests.paaStore(lab))
        defer { hub.kill9() }
        let api = try await HubAPIDriver(stateDirectory: state)
        _ = try await api.command("start_listening")
        let node = try await Self.commission(api, device.qr)

        await device.process.stop()
        let mark = api.events.count
        device = try await HubLab.startDevice(lab, on: Self.deviceHost, state: deviceState, discriminator: 3301, port: 5732)
        let down = try await api.event("node_updated", from: mark, timeout: 70, where: HubAPIDriver.nodeUpdated(node, available: false))
        #expect(down != nil, "the hub never noticed the device went away\nhub:\n\(hub.text.suffix(2000))")
        let up = try await api.event("node_updated", from: down?.index ?? mark, timeout: 30,
                                     where: HubAPIDriver.nodeUpdated(node, available: true))
        #expect(up != nil, "the device on its new port was not found again\nhub:\n\(hub.text.suffix(2000))")
        #expect(try await Self.toggle(api, node), "the device on its new port cannot be controlled")

        // Its boot announced itself as a BasicInformation StartUp event: node_event, name-keyed,
        // and in diagnostics.
        let startUp = try await api.event("node_event", from: mark, timeout: 5) { data in
            let e = data as? [String: Any]
            return (e?["node_id"] as? NSNumber)?.uint64Value == node && e?["cluster_id"] as? Int == 0x28 && e?["event_id"] as? Int == 0
        }
        let event = try #require(startUp?.data as? [String: Any], "no node_event for the device's StartUp")
        #expect((event["data"] as? [String: Any])?["softwareVersion"] as? Int == 1)
        #expect(event["priority"] as? Int == 2 && event["timestamp_type"] as? Int == 1)
        let diagnostics = try await api.command("diagnostics")
        let listed = ((diagnostics["result"] as? [String: Any])?["events"] as? [[String: Any]]) ?? []
        #expect(listed.contains { ($0["event_number"] as? NSNumber) == (event["event_number"] as? NSNumber) })

        // write_attribute converts to the attribute's type and refuses a wrong one (error 8).
        let wrong = try await api.command("write_attribute", ["node_id": node, "attribute_path": "0/40/5", "value": 5])
        #expect(wrong["error_code"] as? Int == 8, "\(wrong)")
        let right = try await api.command("write_attribute", ["node_id": node, "attribute_path": "0/40/5", "value": "Hall"])
        #expect(((right["result"] as? [[String: Any]])?.first?["Status"] as? Int) == 0, "\(right)")
        await hub.stop()
    }

    /// The steps of commissioning through the hub, as its step log names them.
    static let steps = ["discovery", "pase", "read-commissioning-info", "arm-fail-safe", "regulatory-config",
                        "device-attestation", "csr", "add-trusted-root", "add-noc", "case", "commissioning-complete"]

    @Test(arguments: steps)
    func hubKilledAfterAStepAgreesWithTheDeviceOnRestart(_ step: String) async throws {
        let lab = try Lab.shared()
        let index = Self.steps.firstIndex(of: step)!
        let deviceState = HubLab.newDirectory(lab, "crash-vd")
        let device = try await HubLab.startDevice(lab, on: Self.deviceHost, state: deviceState, discriminator: 3310 + index,
                                                  port: 5740 + index)
        defer { device.process.kill9() }
        let state = HubLab.newDirectory(lab, "crash-hub")
        let paa = try CircuitMatterCommissioningTests.paaStore(lab)
        let doomed = try await HubLab.startHub(lab, on: Self.hubHost, state: state, paa: paa,
                                               environment: ["MATTERHUB_KILL_AFTER_STEP=\(step)"])
        defer { doomed.kill9() }
        do {
            let api = try await HubAPIDriver(stateDirectory: state)
            _ = try await api.command("commission_with_code", ["code": device.qr, "network_only": true], timeout: 60)
            Issue.record("\(step): the hub answered instead of dying")
        } catch {
            // The connection ended with the hub.
        }
        #expect(await doomed.wait(timeout: 30) != nil, "\(step): the hub did not die")

        let hub = try await HubLab.startHub(lab, on: Self.hubHost, state: state, paa: paa)
        defer { hub.kill9() }
        let api = try await HubAPIDriver(stateDirectory: state)
        let cfid = try #require((api.serverInfo["compressed_fabric_id"] as? NSNumber)?.uint64Value)
        let listed = try await api.command("start_listening")
        let nodes = (listed["result"] as? [[String: Any]]) ?? []
        let ours = try HubLab.deviceFabrics(deviceState).filter { $0.compressedFabricID == cfid }
        // From AddNOC on, the device holds our certificate and the store a pending node: the
        // restarted hub completes it. Before, nothing of ours may remain anywhere.
        let expectKnown = index >= Self.steps.firstIndex(of: "add-noc")!
        if expectKnown {
            let node = try #require((nodes.first?["node_id"] as? NSNumber)?.uint64Value,
                                    "\(step): the hub does not know the device\nhub:\n\(hub.text.suffix(2000))")
            #expect(nodes.count == 1)
            #expect(ours.map(\.nodeID) == [node], "\(step): the device's fabrics disagree with the store: \(ours)")
            if nodes.first?["available"] as? Bool != true {
                let up = try await api.event("node_updated", timeout: 20, where: HubAPIDriver.nodeUpdated(node, available: true))
                #expect(up != nil, "\(step): the completed node never became available\nhub:\n\(hub.text.suffix(2000))")
            }
            #expect(try await Self.toggle(api, node), "\(step): the completed node cannot be controlled")
        } else {
            #expect(nodes.isEmpty, "\(step): the hub lists a node it never finished: \(nodes)")
            #expect(ours.isEmpty, "\(step): the device kept a fabric of ours the hub does not know: \(ours)")
        }
        await hub.stop()
    }
}
