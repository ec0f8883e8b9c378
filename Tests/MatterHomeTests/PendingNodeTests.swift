import Foundation
import MatterCertificates
import MatterCommissioning
import MatterDiscovery
@testable import MatterHome
import MatterInteraction
import MatterSetupPayload
import MatterVirtualDevice
import Testing
import TestSupport
import MatterTLV

/// A node is recorded as pending before AddNOC; a hub that starts again completes the ones on
/// its fabric and drops the others, and the attribute cache survives a restart.
@Suite(.serialized) struct PendingNodeTests {
    @Test func pendingNodesKeepTheirIDAndBecomeDevices() throws {
        let dir = TemporaryStateDirectory()
        defer { dir.cleanup() }
        let store = try HubStore(directory: dir.path)
        let id = try store.allocateNodeID()
        let pending = PendingNode(nodeID: id, noc: [1, 2, 3], vendorID: 0xFFF1, productID: 0x8000, name: "Lamp", roomID: nil,
                                  address: NodeAddress(host: "::1", port: 5540))
        try store.recordPendingNode(pending)
        #expect(throws: StoreError.nodeIDInUse(id.description)) { try store.recordPendingNode(pending) }
        // Its reservation may go (its process died): the pending row still holds the ID.
        try store.releaseNodeID(id)
        let reopened = try HubStore(directory: dir.path)
        #expect(try reopened.pendingNodes().map(\.nodeID) == [id])
        #expect(try reopened.pendingNodes().first?.noc == [1, 2, 3])
        for _ in 0..<50 { #expect(try reopened.allocateNodeID() != id) }
        let record = try reopened.completePendingNode(id, name: "Lamp", addresses: [NodeAddress(host: "::1", port: 5541)])
        #expect(record.nodeID == id && record.vendorID == 0xFFF1)
        #expect(try reopened.pendingNodes().isEmpty)
        #expect(try reopened.node(id)?.addresses.first?.port == 5541)
        #expect(throws: StoreError.self) { try reopened.completePendingNode(id, name: "Lamp", addresses: []) }
    }

    @Test func attributeCacheSurvivesAReopenAndGoesWithTheNode() throws {
        let dir = TemporaryStateDirectory()
        defer { dir.cleanup() }
        let store = try HubStore(directory: dir.path)
        let id = try store.allocateNodeID()
        try store.recordPendingNode(PendingNode(nodeID: id, noc: [], vendorID: 1, productID: 2, name: nil, roomID: nil,
                                                address: NodeAddress(host: "::1", port: 1)))
        try store.completePendingNode(id, name: "Plug", addresses: [])
        let onOff = ConcreteAttributePath(1, .onOff, 0), label = ConcreteAttributePath(0, .basicInformation, 5)
        try store.storeAttributeValues([onOff: [0x08], label: [0x0C, 0x01, 0x41]], for: id)
        try store.storeAttributeValues([onOff: [0x09]], for: id)
        let reopened = try HubStore(directory: dir.path)
        #expect(try reopened.attributeValues(for: id) == [onOff: [0x09], label: [0x0C, 0x01, 0x41]])
        try reopened.removeNode(id)
        #expect(try reopened.attributeValues(for: id).isEmpty)
    }

    /// The hub writes every node's new values in one transaction; a node unknown to the store
    /// (removed meanwhile) fails the write as a whole, leaving the store as it was.
    @Test func severalNodesValuesInOneTransaction() throws {
        let dir = TemporaryStateDirectory()
        defer { dir.cleanup() }
        let store = try HubStore(directory: dir.path)
        var ids: [NodeID] = []
        for name in ["A", "B"] {
            let id = try store.allocateNodeID()
            try store.recordPendingNode(PendingNode(nodeID: id, noc: [], vendorID: 1, productID: 2, name: nil, roomID: nil,
                                                    address: NodeAddress(host: "::1", port: 1)))
            try store.completePendingNode(id, name: name, addresses: [])
            ids.append(id)
        }
        let onOff = ConcreteAttributePath(1, .onOff, 0)
        try store.storeAttributeValues([ids[0]: [onOff: [0x08]], ids[1]: [onOff: [0x09]]])
        #expect(try store.attributeValues(for: ids[0]) == [onOff: [0x08]])
        #expect(try store.attributeValues(for: ids[1]) == [onOff: [0x09]])
        let unknown = NodeID(0xDEAD)
        #expect(throws: StoreError.self) { try store.storeAttributeValues([ids[0]: [onOff: [0x09]], unknown: [onOff: [0x08]]]) }
        #expect(try store.attributeValues(for: ids[0]) == [onOff: [0x08]])
    }

    static func paaStore() throws -> PAATrustStore {
        let url = TestVectors.directory.appendingPathComponent("attestation/test-attestation/Chip-Test-PAA-FFF1-Cert.der")
        return PAATrustStore(files: [("paa.der", [UInt8](try Data(contentsOf: url)))])
    }

    /// The process died after CommissioningComplete, before the node was recorded: the next
    /// hub finds it on its fabric and records it. A pending node that never answers is dropped.
    @Test func reconcileCompletesWhatIsOnOurFabricAndDropsTheRest() async throws {
        let dir = TemporaryStateDirectory()
        defer { dir.cleanup() }
        let device = try await VirtualDevice(configuration: VirtualDeviceConfiguration(
            passcode: 20_202_021, discriminator: 301, port: 0, advertises: false))
        await device.start()
        defer { Task { await device.shutdown() } }
        let port = await device.port
        let discovery = MatterDiscovery(browser: FixedServiceBrowser([FixedServiceBrowser.commissionable(discriminator: 301, port: port)]))

        // The first hub commissions the device, records it as pending, and "crashes".
        let first = try Hub(stateDirectory: dir.path, discovery: discovery)
        let commissioner = Commissioner(manager: try await first.exchangeManager(), identity: try await first.commissionerIdentity(),
                                        options: CommissioningOptions(trustStore: try Self.paaStore(), allowTestDevices: true),
                                        finder: DeviceFinder(discovery: discovery))
        let nodeID = try first.store.allocateNodeID()
        let store = first.store
        let payload = try #require(try SetupPayload.parse(device.qrCode).first)
        _ = try await commissioner.commission(payload, nodeID: nodeID, hooks: CommissioningHooks(willAddNOC: { i in
            try store.recordPendingNode(PendingNode(nodeID: nodeID, noc: i.noc.tlv, vendorID: i.vendorID, productID: i.productID,
                                                    name: "Desk lamp", roomID: nil,
                                                    address: NodeAddress(host: i.address.ipText, port: i.address.port)))
        }))
        // A second pending node whose device never answers (nothing listens there).
        let ghost = try first.store.allocateNodeID()
        try first.store.recordPendingNode(PendingNode(nodeID: ghost, noc: [], vendorID: 1, productID: 1, name: nil, roomID: nil,
                                                      address: NodeAddress(host: "::1", port: 9)))
        await first.shutdown()

        let second = try Hub(stateDirectory: dir.path, discovery: discovery)
        let outcome = await second.reconcilePendingNodes()
        #expect(outcome == [nodeID: .completed, ghost: .dropped])
        #expect(try second.store.pendingNodes().isEmpty)
        #expect(try second.store.node(nodeID)?.name == "Desk lamp")
        #expect(try second.store.node(ghost) == nil)
        #expect(await device.isCommissioned)
        // And it is controllable.
        let label = try await second.client(for: nodeID).readAttribute(ConcreteAttributePath(0, .basicInformation, 1))
        #expect(try label.utf8().isEmpty == false)
        await second.shutdown()
    }
}
