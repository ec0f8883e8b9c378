import MatterCertificates
import MatterCrypto
import MatterMessaging
import MatterSecureChannel
import Synchronization
import Testing
import TestSupport
import MatterTLV

/// CASE against the SDK's destination-ID vector and matter.js's captured Sigma2/Sigma3, and our
/// initiator against our responder with certificates from our CA.
@Suite struct CASEVectorTests {
    @Test(arguments: TestVectors.vectors("case_sigma.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        if let ipkBytes = v.hex("ipk_operational_key") {
            let id = CASEKeys.destinationID(
                ipk: SecretBytes(ipkBytes), initiatorRandom: try unwrap(v.hex("initiator_random")),
                rootPublicKey: try unwrap(v.hex("root_public_key")),
                fabricID: try unwrap(UInt64(try unwrap(v.string("fabric_id")), radix: 16)),
                nodeID: try unwrap(UInt64(try unwrap(v.string("node_id")), radix: 16)))
            if v.valid {
                #expect(id == v.hex("destination_id"))
            } else {
                #expect(id != v.hex("not_destination_id"))
            }
        } else if let tbs = v.hex("tbs_data") {
            let key = try P256PublicKey(x962Representation: try unwrap(v.hex("noc_public_key")))
            let sig = try P256Signature(rawRepresentation: try unwrap(v.hex("signature_raw")))
            #expect(key.isValidSignature(sig, for: tbs) == v.valid)
        } else if v.hex("sigma3") == nil {
            try sigma2(v)
        } else {
            try sigma3(v)
        }
    }

    /// S2K, TBS2 and the encrypted TBE2 of a captured Sigma2.
    func sigma2(_ v: Vector) throws {
        let ipk = SecretBytes(try #require(v.hex("ipk")))
        let sigma1 = try #require(v.hex("sigma1"))
        _ = try Sigma1(decoding: sigma1)
        let responderKey = try #require(v.hex("responder_eph_pub_key"))
        let s2k = try CASEKeys.sigma2Key(sharedSecret: SecretBytes(try #require(v.hex("shared_secret"))), ipk: ipk,
                                         responderRandom: try unwrap(v.hex("responder_random")),
                                         responderEphemeralKey: responderKey, sigma1: sigma1)
        #expect(s2k.bytes == v.hex("expected_s2k"))
        let noc = try #require(v.hex("responder_noc"))
        let tbs = SigmaData.tbs(noc: noc, icac: nil, senderKey: responderKey, receiverKey: try unwrap(v.hex("initiator_eph_pub_key")))
        #expect(tbs == v.hex("expected_tbs2_data"))
        let tbe = SigmaData.tbe(noc: noc, icac: nil, signature: try unwrap(v.hex("tbs2_signature")),
                                resumptionID: try unwrap(v.hex("resumption_id")))
        #expect(tbe == v.hex("expected_tbe2_plaintext"))
        let sealed = try AESCCM.seal(key: s2k.bytes, nonce: Array("NCASE_Sigma2N".utf8), plaintext: tbe, additionalData: [])
        #expect(sealed == v.hex("expected_tbe2_encrypted"))
    }

    /// S3K, decrypting a captured Sigma3, and the session keys.
    func sigma3(_ v: Vector) throws {
        let ipk = SecretBytes(try #require(v.hex("ipk")))
        let sigma1 = try #require(v.hex("sigma1")), sigma2 = try #require(v.hex("sigma2")), sigma3 = try #require(v.hex("sigma3"))
        _ = try Sigma1(decoding: sigma1)
        _ = try Sigma2(decoding: sigma2)
        let shared = SecretBytes(try #require(v.hex("shared_secret")))
        let s3k = try CASEKeys.sigma3Key(sharedSecret: shared, ipk: ipk, sigma1: sigma1, sigma2: sigma2)
        #expect(s3k.bytes == v.hex("expected_s3k"))
        let encrypted = try Sigma3Codec.decode(sigma3)
        let plain = try AESCCM.open(key: s3k.bytes, nonce: Array("NCASE_Sigma3N".utf8), ciphertextAndTag: encrypted, additionalData: [])
        #expect(plain == v.hex("expected_tbe3_plaintext"))
        let keys = try CASEKeys.sessionKeys(sharedSecret: shared, ipk: ipk, sigma1: sigma1, sigma2: sigma2, sigma3: sigma3)
        #expect(keys.i2r.bytes == v.hex("expected_session_keys_first16"))
    }

    @Test func malformedSigmaMessagesAreTypedErrors() throws {
        let seeds = TestVectors.vectors("case_sigma.json").flatMap { [$0.hex("sigma1"), $0.hex("sigma2"), $0.hex("sigma3")] }.compactMap { $0 }
        try #require(seeds.count >= 3)
        var rng = SeededRandom(seed: 0xCA5E)
        for i in 0..<5_000 {
            let input = Mutation.mutate(seeds[i % seeds.count], using: &rng)
            _ = try? Sigma1(decoding: input)
            _ = try? Sigma2(decoding: input)
            _ = try? Sigma2Resume(decoding: input)
            _ = try? Sigma3Codec.decode(input)
        }
        #expect(throws: SecureChannelError.self) { try Sigma1(decoding: [0x15, 0x18]) }
    }
}

/// A fabric from our own CA, with node credentials for CASE.
struct TestFabric {
    let ca: FabricCertificateAuthority
    let epochKey = SecretBytes(Array(0xD0...0xDF))

    init(fabricID: UInt64 = 0xFAB1, withICAC: Bool = false) throws {
        ca = try FabricCertificateAuthority.create(fabricID: FabricID(fabricID), rcacID: 1, icacID: withICAC ? 2 : nil,
                                                   validity: .noExpiry(from: MatterEpochTime(0)))
    }

    func node(_ nodeID: UInt64, index: UInt8 = 1, cats: [CASEAuthenticatedTag] = []) throws -> FabricCredentials {
        let key = P256PrivateKey()
        let noc = try ca.issueNOC(publicKey: key.publicKey.x962Representation, nodeID: NodeID(nodeID),
                                  caseAuthenticatedTags: cats, validity: .noExpiry(from: MatterEpochTime(0)))
        return try FabricCredentials(fabricIndex: index, rcac: ca.root.tlv, icac: ca.intermediate?.tlv, noc: noc.tlv,
                                     operationalKey: key, ipkEpochKey: epochKey)
    }
}

@Suite struct CASEHandshakeTests {
    static func nodes(device: FabricCredentials, faults: FaultInjectingTransport.Faults = .init(), seed: UInt64 = 1)
        async -> (controller: ExchangeManager, device: ExchangeManager, address: PeerAddress, established: PeerLog) {
        let net = MemoryNetwork()
        let a = net.makeEndpoint(), b = net.makeEndpoint()
        let controller = ExchangeManager(transport: FaultInjectingTransport(wrapping: a, faults: faults, seed: seed))
        let deviceManager = ExchangeManager(transport: FaultInjectingTransport(wrapping: b, faults: faults, seed: ~seed))
        let log = PeerLog()
        let responder = CASEResponder(manager: deviceManager, fabrics: [device], onEstablished: { _, peer in log.append(peer) })
        await deviceManager.setHandler(for: .secureChannel) { e, m in await responder.handle(e, first: m) }
        await controller.start()
        await deviceManager.start()
        return (controller, deviceManager, b.address, log)
    }

    @Test(arguments: [false, true])
    func establishesAndResumes(withICAC: Bool) async throws {
        let fabric = try TestFabric(withICAC: withICAC)
        let admin = try fabric.node(0x1111, cats: [CASEAuthenticatedTag(identifier: 0x0001, version: 1)])
        let device = try fabric.node(0x2222)
        let (controller, deviceManager, address, log) = await Self.nodes(device: device)
        let first = try await CASEInitiator.establish(manager: controller, peer: address, fabric: admin, peerNodeID: 0x2222)
        #expect(!first.resumed)
        #expect(await eventually(5) { !log.all.isEmpty })
        #expect(log.all == [.operational(fabricIndex: 1, nodeID: 0x1111, caseAuthenticatedTags: [0x0001_0001])])
        let ours = try #require(await controller.secureSession(first.session))
        let theirs = try #require(await deviceManager.secureSessions().first)
        #expect(ours.encryptKey == theirs.decryptKey && ours.decryptKey == theirs.encryptKey)

        let second = try await CASEInitiator.establish(manager: controller, peer: address, fabric: admin, peerNodeID: 0x2222,
                                                       resumption: first.resumption)
        #expect(second.resumed)
        #expect(second.resumption.resumptionID != first.resumption.resumptionID)
        await controller.shutdown()
        await deviceManager.shutdown()
    }

    @Test func otherFabricGetsNoSharedTrustRoots() async throws {
        let device = try TestFabric(fabricID: 1).node(0x2222)
        let stranger = try TestFabric(fabricID: 1).node(0x1111)  // same fabric ID, another root
        let (controller, deviceManager, address, _) = await Self.nodes(device: device)
        await #expect(throws: SecureChannelError.noSharedTrustRoots) {
            _ = try await CASEInitiator.establish(manager: controller, peer: address, fabric: stranger, peerNodeID: 0x2222)
        }
        await controller.shutdown()
        await deviceManager.shutdown()
    }

    @Test func wrongNodeIsRefused() async throws {
        let fabric = try TestFabric()
        let admin = try fabric.node(0x1111)
        let device = try fabric.node(0x2222)
        let (controller, deviceManager, address, _) = await Self.nodes(device: device)
        // Asking for node 0x3333 at the device's address: its destination ID matches no fabric
        // the device has, so it refuses.
        await #expect(throws: SecureChannelError.self) {
            _ = try await CASEInitiator.establish(manager: controller, peer: address, fabric: admin, peerNodeID: 0x3333)
        }
        await controller.shutdown()
        await deviceManager.shutdown()
    }

    @Test func completesUnderTwentyPercentLoss() async throws {
        let fabric = try TestFabric()
        let admin = try fabric.node(0x1111)
        let device = try fabric.node(0x2222)
        // 200 ms, as the exchange tests learned: five transmissions span about 3.5 s, so a stall of
        // the whole process (all handshakes in flight) does not exhaust them; at 40 ms it was 0.5 s.
        let fast = SessionParameters(idleInterval: 200, activeInterval: 200, activeThreshold: 4000)
        let runs = 100
        let completed = await successes(ofRuns: runs) { seed in
            let n = await Self.nodes(device: device, faults: .init(loss: 0.2), seed: seed)
            let ok = (try? await CASEInitiator.establish(manager: n.controller, peer: n.address, fabric: admin,
                                                         peerNodeID: 0x2222, peerMRP: fast.mrp, parameters: fast,
                                                         timeout: .seconds(10))) != nil
            await n.controller.shutdown()
            await n.device.shutdown()
            return ok
        }
        print("CASE under 20% loss each way: \(completed)/\(runs) handshakes completed")
        #expect(completed >= 95)
    }
}

final class PeerLog: Sendable {
    private let entries = Mutex<[SessionPeer]>([])
    func append(_ p: SessionPeer) { entries.withLock { $0.append(p) } }
    var all: [SessionPeer] { entries.withLock { $0 } }
}
