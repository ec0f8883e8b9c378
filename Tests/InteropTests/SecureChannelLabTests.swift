import Foundation
import MatterCertificates
import MatterCrypto
import MatterMessaging
import MatterSecureChannel
import Testing
import TestSupport
import MatterTLV

/// PASE and CASE between our initiator and our responder over real UDP between two lab
/// namespaces, h4 (device) and h5 (controller), on ephemeral ports. Both sockets are opened
/// inside their namespaces from this process; traffic crosses the lab's bridge on fe80::
/// addresses with the interface index as scope, and on IPv4 link-local.
@Suite(.enabled(if: Lab.isAvailable, "lab integration tests need root (network namespaces): run scripts/test as root"))
struct SecureChannelLabTests {
    static let deviceHost = 4
    static let controllerHost = 5

    @Test func paseAndCaseAcrossNamespaces() async throws {
        let lab = try Lab.shared()
        let d = lab.hosts[Self.deviceHost], c = lab.hosts[Self.controllerHost]
        let deviceTransport = try UDPTransport(port: 0, netnsPath: "/run/netns/\(d.namespace)")
        let controllerTransport = try UDPTransport(port: 0, netnsPath: "/run/netns/\(c.namespace)")
        let device = ExchangeManager(transport: deviceTransport)
        let controller = ExchangeManager(transport: controllerTransport)

        let salt = SecureRandom.bytes(32)
        let pase = await PASEResponder(
            manager: device,
            configuration: .init(verifier: try PASEVerifier(passcode: 20_202_021, salt: salt, iterations: 1000),
                                 salt: salt, iterations: 1000),
            onOutcome: { _ in })
        let fabric = try TestFabricForLab()
        let caseResponder = CASEResponder(manager: device, fabrics: [try fabric.node(0x22)])
        await device.setHandler(for: .secureChannel) { e, m in
            if m.opcode == SecureChannelOpcode.sigma1.rawValue { await caseResponder.handle(e, first: m) } else { await pase.handle(e, first: m) }
        }
        await device.start()
        await controller.start()
        defer { Task { await device.shutdown(); await controller.shutdown() } }

        // The device's link-local address, scoped to the controller host's interface.
        let peer = try #require(PeerAddress(d.ipv6, port: deviceTransport.localPort, interfaceIndex: UInt32(c.interfaceIndex)))
        #expect(peer.isLinkLocal)
        let paseSession = try await PASEInitiator.establish(manager: controller, peer: peer, passcode: 20_202_021)
        #expect(await controller.secureSession(paseSession)?.peer == .pase)

        let result = try await CASEInitiator.establish(manager: controller, peer: peer, fabric: try fabric.node(0x11), peerNodeID: 0x22)
        let session = try #require(await controller.secureSession(result.session))
        #expect(session.peer == .operational(fabricIndex: 1, nodeID: 0x22, caseAuthenticatedTags: []))
        // The reply came back over the same link-local path, scope kept.
        #expect(session.peerAddress.interfaceIndex == UInt32(c.interfaceIndex))

        // And IPv4 link-local works too.
        let v4 = try #require(PeerAddress(String(d.ipv4.split(separator: "/")[0]), port: deviceTransport.localPort))
        let again = try await CASEInitiator.establish(manager: controller, peer: v4, fabric: try fabric.node(0x11), peerNodeID: 0x22)
        #expect(!again.resumed)
    }
}

/// A fabric from our own CA for the lab tests.
struct TestFabricForLab {
    let ca: FabricCertificateAuthority
    let epochKey = SecretBytes(Array(0xD0...0xDF))

    init() throws {
        ca = try FabricCertificateAuthority.create(fabricID: FabricID(0xAB), rcacID: 1, validity: .noExpiry(from: MatterEpochTime(0)))
    }

    func node(_ nodeID: UInt64) throws -> FabricCredentials {
        let key = P256PrivateKey()
        let noc = try ca.issueNOC(publicKey: key.publicKey.x962Representation, nodeID: NodeID(nodeID),
                                  validity: .noExpiry(from: MatterEpochTime(0)))
        return try FabricCredentials(fabricIndex: 1, rcac: ca.root.tlv, icac: nil, noc: noc.tlv, operationalKey: key,
                                     ipkEpochKey: epochKey)
    }
}
