import Foundation
import MatterCertificates
import MatterClusters
import MatterCommissioning
import MatterCrypto
import MatterDiscovery
import MatterHome
@testable import MatterHubService
import MatterInteraction
import MatterInteractionMessaging
import MatterMessaging
import MatterSecureChannel
import MatterServerAPI
import Testing
import TestSupport
import MatterTLV

/// The hub's own node (in process, on loopback): another node of the hub's fabric opens CASE to
/// the hub's UDP socket, as a device does to reach its OTA provider, and reads who the hub is;
/// what the ACL does not grant is refused, and a node of another fabric gets no session.
@Suite(.serialized) struct HubNodeTests {
    @Test func aNodeOfTheFabricReadsTheHubOverCASE() async throws {
        let state = NSTemporaryDirectory() + "matterhub-node-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        var configuration = HubServer.Configuration(
            stateDirectory: state, options: CommissioningOptions(trustStore: try HubServerTests.paaStore(), allowTestDevices: true))
        configuration.listen = ["127.0.0.1"]
        configuration.port = 0
        configuration.discovery = MatterDiscovery(browser: FixedServiceBrowser([]))
        let server = try await HubServer(configuration, log: { _ in })
        try await server.start(log: { _ in })
        let hub = server.service.hub
        let identity = try await hub.commissionerIdentity()
        let hubNodeID = identity.controller.identity.nodeID.rawValue
        let hubAddress = PeerAddress(ip: [127, 0, 0, 1], port: try await hub.messaging().localPort)

        // Another node of the hub's fabric, with a NOC from the hub's CA.
        let key = P256PrivateKey()
        let noc = try identity.authority.issueNOC(publicKey: key.publicKey.x962Representation, nodeID: NodeID(0x1234),
                                                  validity: .noExpiry(from: MatterEpochTime(0)))
        let peer = try FabricCredentials(fabricIndex: 1, rcac: identity.authority.root.tlv, icac: identity.authority.intermediate?.tlv,
                                         noc: noc.tlv, operationalKey: key, ipkEpochKey: identity.ipkEpochKey)
        let manager = ExchangeManager(transport: try UDPTransport(port: 0))
        await manager.start()
        let session = try await CASEInitiator.establish(manager: manager, peer: hubAddress, fabric: peer, peerNodeID: hubNodeID,
                                                        timeout: .seconds(10)).session
        let client = InteractionClient.over(manager, session: session, timeout: .seconds(10))
        typealias Basic = Clusters.BasicInformation.Attribute
        #expect(try await client.readAttribute(ConcreteAttributePath(0, .basicInformation, Basic.productName)) == .utf8("MatterHub"))
        #expect(try await client.readAttribute(ConcreteAttributePath(0, .basicInformation, Basic.vendorID))
                == .unsigned(identity.adminVendorID))
        let unique = try await client.readAttribute(ConcreteAttributePath(0, .basicInformation, Basic.uniqueID))
        #expect(try unique.utf8().hasSuffix(String(hubNodeID, radix: 16, uppercase: true)), "\(unique)")
        // A wildcard read of the endpoint: every cluster's globals and values, no error.
        let reports = try await client.read(paths: [AttributePathIB(endpoint: 0, cluster: nil, attribute: nil)])
        let clusters = Set(reports.compactMap { $0.path.cluster })
        #expect(clusters == [.descriptor, .basicInformation, .accessControl], "\(clusters)")
        #expect(reports.allSatisfy { if case .value = $0.outcome { true } else { false } }, "\(reports)")
        let servers = try await client.readAttribute(ConcreteAttributePath(0, .descriptor, Clusters.Descriptor.Attribute.serverList))
        #expect(servers == .array([.unsigned(UInt32(0x1D)), .unsigned(UInt32(0x1F)), .unsigned(UInt32(0x28))]), "\(servers)")
        // The ACL it shows: View for the fabric, Administer for the hub itself.
        let acl = try await client.readAttribute(ConcreteAttributePath(0, .accessControl, Clusters.AccessControl.Attribute.acl))
        let entries = try acl.members(of: .array).map { try Clusters.AccessControl.Entry(element: $0) }
        #expect(entries.map(\.privilege.rawValue) == [5, 1] && entries.first?.subjects == [hubNodeID] && entries.last?.subjects == nil)
        // Its attributes are read-only (NodeLabel too): a write is refused with UnsupportedWrite.
        await #expect(throws: InteractionError.self) {
            try await client.writeAttribute(ConcreteAttributePath(0, .basicInformation, Basic.nodeLabel), value: .utf8("mine"))
        }
        do {
            try await client.writeAttribute(ConcreteAttributePath(0, .basicInformation, Basic.nodeLabel), value: .utf8("mine"))
        } catch {
            guard case .status(let status, _, _) = error else { Issue.record("not an IM status: \(error)"); return }
            #expect(status == .unsupportedWrite, "\(status)")
        }

        // A node of another fabric: the hub has no such fabric to answer Sigma1 with.
        let stranger = try FabricCertificateAuthority.create(fabricID: FabricID(0xBAD), rcacID: 1, validity: .noExpiry(from: MatterEpochTime(0)))
        let strangerKey = P256PrivateKey()
        let strangerNOC = try stranger.issueNOC(publicKey: strangerKey.publicKey.x962Representation, nodeID: NodeID(0x1234),
                                                validity: .noExpiry(from: MatterEpochTime(0)))
        let outsider = try FabricCredentials(fabricIndex: 1, rcac: stranger.root.tlv, icac: nil, noc: strangerNOC.tlv,
                                             operationalKey: strangerKey, ipkEpochKey: SecretBytes(Array(repeating: 7, count: 16)))
        await #expect(throws: SecureChannelError.self) {
            _ = try await CASEInitiator.establish(manager: manager, peer: hubAddress, fabric: outsider, peerNodeID: hubNodeID,
                                                  timeout: .seconds(3))
        }
        await manager.shutdown()
        await server.stop()
    }

    /// What the ACL the node shows grants: View to any CASE peer of the fabric, everything to the
    /// hub's own identity, nothing over PASE or to another fabric's session.
    @Test func theAccessPolicyIsTheACL() {
        func allows(_ auth: Clusters.AccessControl.AuthMode, fabric: UInt8?, node: UInt64?, _ access: ClusterAccess) -> Bool {
            HubNode.allows(IMSessionContext(fabricIndex: fabric, peerNodeID: node, authMode: auth), access, fabricIndex: 1, hubNodeID: 7)
        }
        #expect(allows(.case, fabric: 1, node: 0x1234, .read))
        #expect(!allows(.case, fabric: 1, node: 0x1234, .write) && !allows(.case, fabric: 1, node: 0x1234, .invoke))
        #expect(allows(.case, fabric: 1, node: 7, .write) && allows(.case, fabric: 1, node: 7, .invoke))
        #expect(!allows(.case, fabric: 2, node: 7, .read))
        #expect(!allows(.pase, fabric: nil, node: nil, .read))
    }
}
