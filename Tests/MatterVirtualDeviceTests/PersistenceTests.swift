import Foundation
import MatterInteraction
import MatterMessaging
@testable import MatterVirtualDevice
import Testing

/// The state folder: fabrics, ACL and NodeLabel survive a restart; staged fabrics do not;
/// attribute changes reach the disk shortly after the response.
@Suite struct VirtualDevicePersistenceTests {
    static func device(_ dir: String, _ net: MemoryNetwork) async throws -> (VirtualDevice, MemoryTransport) {
        let endpoint = net.makeEndpoint()
        let config = VirtualDeviceConfiguration(stateDirectory: dir, advertises: false)
        let device = try await VirtualDevice(configuration: config, transport: endpoint)
        await device.start()
        return (device, endpoint)
    }

    @Test func commissionedStateAndNodeLabelSurviveARestart() async throws {
        let dir = NSTemporaryDirectory() + "vd-state-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let net = MemoryNetwork()
        let (device, endpoint) = try await Self.device(dir, net)
        let controller = ExchangeManager(transport: net.makeEndpoint())
        await controller.start()
        let h = DeviceHarness(device: device, controller: controller, address: endpoint.address)
        let pase = h.client(try await h.pase())
        let fabric = try TestFabric()
        try await h.addNOC(over: pase, fabric: fabric, deviceNode: 0xD001, admin: 0xA001)
        // Before CommissioningComplete nothing of the fabric is on disk.
        let staged = try String(contentsOfFile: dir + "/state.json", encoding: .utf8)
        #expect(staged.contains("\"fabrics\":[]"))
        let admin = h.client(try await h.caseSession(try fabric.node(0xA001), deviceNode: 0xD001))
        #expect(try await admin.invoke(GC.CommissioningComplete(), endpoint: 0).errorCode == .ok)
        try await admin.writeAttribute(ConcreteAttributePath(0, .basicInformation, 5), value: .utf8("Kitchen"))
        // An attribute change is written behind the response, without waiting for a shutdown.
        var written = false
        for _ in 0..<500 where !written {
            try await Task.sleep(for: .milliseconds(20))
            written = (try? String(contentsOfFile: dir + "/state.json", encoding: .utf8))?.contains("\"nodeLabel\":\"Kitchen\"") == true
        }
        #expect(written, "the NodeLabel was not written within 10 s")
        await h.shutdown()

        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/state.json")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let (again, _) = try await Self.device(dir, MemoryNetwork())
        defer { Task { await again.shutdown() } }
        #expect(await again.isCommissioned)
        #expect(await again.fabricIndexes == [1])
        #expect(await !again.isCommissioningWindowOpen)
        #expect(await again.core.state.nodeLabel == "Kitchen")
        #expect(await again.core.state.acl.count == 1)
    }
}

@Suite struct FabricRecordRedactionTests {
    @Test func keysNeverPrint() {
        let secret: [UInt8] = Array(repeating: 0xAB, count: 32)
        let r = FabricRecord(index: 1, rcac: [], icac: nil, noc: [], operationalKey: secret, ipkEpochKey: Array(secret.prefix(16)),
                             vendorID: 0xFFF1, label: "Home", rootPublicKey: [], fabricID: 1, nodeID: 2, compressedFabricID: 3)
        var dumped = ""
        dump(r, to: &dumped)
        for text in ["\(r)", String(reflecting: r), dumped] {
            #expect(text.contains("<redacted>"))
            #expect(!text.contains("171"), "a key byte (0xAB = 171) leaked: \(text)")
        }
    }
}
