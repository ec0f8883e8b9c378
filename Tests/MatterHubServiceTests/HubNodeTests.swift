import Foundation
import MatterBDX
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
import MatterOTA
import MatterSecureChannel
import MatterServerAPI
import Testing
import TestSupport
import MatterTLV

/// The hub's own node (in process, on loopback): another node of the hub's fabric opens CASE to
/// the hub's UDP socket, as a device does to reach its OTA provider, and reads who the hub is;
/// what the ACL does not grant is refused, and a node of another fabric gets no session.
@Suite(.serialized) struct HubNodeTests {
    /// The hub's clusters, judged by the generated model (the CHIP SDK's cluster objects).
    @Test func theHubsClustersAreTheModels() {
        let servers: [any ClusterServer] = [
            HubNodeClusters.descriptor(servers: [.basicInformation, .accessControl, .otaSoftwareUpdateProvider], isOTAProvider: true),
            HubNodeClusters.basicInformation(vendorID: 0xFFF1, softwareVersionString: "0.2", uniqueID: "u"),
            HubNodeClusters.accessControl(hubNodeID: 1, fabricIndex: 1),
            HubOTAProviderServer(store: OTAImageStore(directory: NSTemporaryDirectory() + "unused-\(UUID().uuidString)"), hubNodeID: 1,
                                 ledger: OTAUpdateLedger(), log: { _ in }),
        ]
        for s in servers { #expect(s.disagreementsWithModel().isEmpty, "\(s.id): \(s.disagreementsWithModel())") }
    }

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
        #expect(clusters == [.descriptor, .basicInformation, .accessControl, .otaSoftwareUpdateProvider], "\(clusters)")
        #expect(reports.allSatisfy { if case .value = $0.outcome { true } else { false } }, "\(reports)")
        let servers = try await client.readAttribute(ConcreteAttributePath(0, .descriptor, Clusters.Descriptor.Attribute.serverList))
        #expect(servers == .array([.unsigned(UInt32(0x1D)), .unsigned(UInt32(0x1F)), .unsigned(UInt32(0x28)), .unsigned(UInt32(0x29))]),
                "\(servers)")
        // The ACL it shows: View for the fabric, Administer for the hub itself.
        let acl = try await client.readAttribute(ConcreteAttributePath(0, .accessControl, Clusters.AccessControl.Attribute.acl))
        let entries = try acl.members(of: .array).map { try Clusters.AccessControl.Entry(element: $0) }
        #expect(entries.map(\.privilege.rawValue) == [5, 1, 3] && entries.first?.subjects == [hubNodeID] && entries[1].subjects == nil)
        // NodeLabel is writable (Manage), but the hub's ACL gives the fabric's nodes View only:
        // a write is refused with UnsupportedAccess.
        await #expect(throws: InteractionError.self) {
            try await client.writeAttribute(ConcreteAttributePath(0, .basicInformation, Basic.nodeLabel), value: .utf8("mine"))
        }
        do {
            try await client.writeAttribute(ConcreteAttributePath(0, .basicInformation, Basic.nodeLabel), value: .utf8("mine"))
        } catch {
            guard case .status(let status, _, _) = error else { Issue.record("not an IM status: \(error)"); return }
            #expect(status == .unsupportedAccess, "\(status)")
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

    /// The hub as OTA provider: a requestor of the fabric asks with QueryImage, is offered the
    /// stored image as bdx://<hub>/<name>, downloads it over BDX on the same CASE session (the
    /// bytes are the SDK tool's image), and is told to proceed; what has no newer image is told so.
    @Test func aRequestorIsOfferedAnImageAndDownloadsItOverBDX() async throws {
        let state = NSTemporaryDirectory() + "matterhub-ota-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let image = try OTATestImage.add(toStateDirectory: state)

        var configuration = HubServer.Configuration(
            stateDirectory: state, options: CommissioningOptions(trustStore: try HubServerTests.paaStore(), allowTestDevices: true))
        configuration.listen = ["127.0.0.1"]
        configuration.port = 0
        configuration.discovery = MatterDiscovery(browser: FixedServiceBrowser([]))
        let server = try await HubServer(configuration, log: { print($0) })
        try await server.start(log: { print($0) })
        let hub = server.service.hub
        let identity = try await hub.commissionerIdentity()
        let hubNodeID = identity.controller.identity.nodeID.rawValue
        let key = P256PrivateKey()
        let noc = try identity.authority.issueNOC(publicKey: key.publicKey.x962Representation, nodeID: NodeID(0x4242),
                                                  validity: .noExpiry(from: MatterEpochTime(0)))
        let requestor = try FabricCredentials(fabricIndex: 1, rcac: identity.authority.root.tlv, icac: identity.authority.intermediate?.tlv,
                                              noc: noc.tlv, operationalKey: key, ipkEpochKey: identity.ipkEpochKey)
        let manager = ExchangeManager(transport: try UDPTransport(port: 0))
        await manager.start()
        let session = try await CASEInitiator.establish(manager: manager, peer: PeerAddress(ip: [127, 0, 0, 1], port: try await hub.messaging().localPort),
                                                        fabric: requestor, peerNodeID: hubNodeID, timeout: .seconds(10)).session
        let client = InteractionClient.over(manager, session: session, timeout: .seconds(10))
        typealias P = Clusters.OtaSoftwareUpdateProvider
        func query(version: UInt32, protocols: [UInt8] = [0]) async throws -> TLVElement {
            let result = try await client.invoke(commandPath: CommandPathIB(0, .otaSoftwareUpdateProvider, P.Command.queryImage), fields: .structure([
                .unsigned(.context(0), UInt16(0xFFF1)), .unsigned(.context(1), UInt16(0x8000)), .unsigned(.context(2), version),
                .array(.context(3), protocols.map { .unsigned($0) })]))
            guard case .response(let data) = result, let fields = data.fields else { throw WebSocketTestClient.Failure("no response: \(result)") }
            return fields
        }
        let offer = try await query(version: 1)
        #expect(try offer.required(0).unsigned(as: UInt8.self) == P.StatusEnum.updateAvailable.rawValue)
        let uri = try offer.required(2).utf8()
        let hubHex = String(hubNodeID, radix: 16, uppercase: true)
        #expect(uri == "bdx://" + String(repeating: "0", count: 16 - hubHex.count) + hubHex + "/FFF1-8000-2.ota", "\(uri)")
        #expect(try offer.required(3).unsigned(as: UInt32.self) == 2 && (try offer.required(4).utf8()) == "2.0.0")
        let token = try offer.required(5).bytes()
        #expect((8...32).contains(token.count))
        // The download, on the same session, in the blocks the requestor asks for.
        var received: [UInt8] = []
        let count = try await BDXReceiver.receive(manager: manager, session: session, fileDesignator: Array("FFF1-8000-2.ota".utf8),
                                                  maxBlockSize: 512) { received += $0 }
        #expect(count == UInt64(image.count) && received == image)
        do throws(BDXError) {
            _ = try await BDXReceiver.receive(manager: manager, session: session, fileDesignator: Array("../state.db".utf8)) { _ in }
            Issue.record("a name outside the store was served")
        } catch {
            #expect(error.kind == .refusedByPeer(.fileDesignatorUnknown), "\(error)")
        }
        let apply = try await client.invoke(commandPath: CommandPathIB(0, .otaSoftwareUpdateProvider, P.Command.applyUpdateRequest),
                                            fields: .structure([.bytes(.context(0), token), .unsigned(.context(1), UInt32(2))]))
        guard case .response(let applied) = apply else { Issue.record("no ApplyUpdateResponse: \(apply)"); return }
        #expect(try applied.fields?.required(0).unsigned(as: UInt8.self) == P.ApplyUpdateActionEnum.proceed.rawValue)
        let notified = try await client.invoke(commandPath: CommandPathIB(0, .otaSoftwareUpdateProvider, P.Command.notifyUpdateApplied),
                                               fields: .structure([.bytes(.context(0), token), .unsigned(.context(1), UInt32(2))]))
        #expect(notified == .status(StatusIB(.success)), "\(notified)")
        // Already on version 2, or only HTTPS: nothing to offer over BDX.
        #expect(try await query(version: 2).required(0).unsigned(as: UInt8.self) == P.StatusEnum.notAvailable.rawValue)
        #expect(try await query(version: 1, protocols: [2]).required(0).unsigned(as: UInt8.self)
                == P.StatusEnum.downloadProtocolNotSupported.rawValue)
        await manager.shutdown()
        await server.stop()
    }

    /// What the ACL the node shows grants: View to any CASE peer of the fabric, everything to the
    /// hub's own identity, nothing over PASE or to another fabric's session.
    @Test func theAccessPolicyIsTheACL() {
        func allows(_ auth: Clusters.AccessControl.AuthMode, fabric: UInt8?, node: UInt64?, _ access: ClusterAccess,
                    _ cluster: ClusterID = .basicInformation) -> Bool {
            HubNode.allows(IMSessionContext(fabricIndex: fabric, peerNodeID: node, authMode: auth), access, cluster, fabricIndex: 1,
                           hubNodeID: 7)
        }
        #expect(allows(.case, fabric: 1, node: 0x1234, .invoke, .otaSoftwareUpdateProvider))
        #expect(!allows(.case, fabric: 1, node: 0x1234, .write, .otaSoftwareUpdateProvider))
        #expect(allows(.case, fabric: 1, node: 0x1234, .read))
        #expect(!allows(.case, fabric: 1, node: 0x1234, .write) && !allows(.case, fabric: 1, node: 0x1234, .invoke))
        #expect(allows(.case, fabric: 1, node: 7, .write) && allows(.case, fabric: 1, node: 7, .invoke))
        #expect(!allows(.case, fabric: 2, node: 7, .read))
        #expect(!allows(.pase, fabric: nil, node: nil, .read))
    }
}
