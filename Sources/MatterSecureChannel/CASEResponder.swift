import MatterCertificates
import MatterCrypto
import MatterMessaging
import Synchronization

/// The CASE responder: answers Sigma1 for any fabric this node belongs to, resumes sessions
/// it remembers, and verifies the initiator's NOC chain and Sigma3 signature.
public final class CASEResponder: Sendable {
    private let manager: ExchangeManager
    private let fabrics: Mutex<[FabricCredentials]>
    private let resumptions = Mutex<[[UInt8]: CASEResumptionRecord]>([:])
    private let clock: @Sendable () -> MatterEpochTime?
    private let parameters: SessionParameters
    private let onEstablished: @Sendable (SessionHandle, SessionPeer) async -> Void
    /// Test hook: sign bytes other than Sigma2's TBS, so initiators can be shown to reject it.
    private let signsWrongSigma2Bytes = Mutex(false)

    /// `clock` gives the current time for certificate validity (nil: unknown, dates unchecked).
    public init(manager: ExchangeManager, fabrics: [FabricCredentials], parameters: SessionParameters = .matterHub,
                clock: @escaping @Sendable () -> MatterEpochTime? = { nil },
                onEstablished: @escaping @Sendable (SessionHandle, SessionPeer) async -> Void = { _, _ in }) {
        self.manager = manager
        self.fabrics = Mutex(fabrics)
        self.clock = clock
        self.parameters = parameters
        self.onEstablished = onEstablished
    }

    /// Test hook (fault injection): when on, Sigma2 carries a signature over the wrong bytes.
    package func setSignsWrongSigma2Bytes(_ on: Bool) {
        signsWrongSigma2Bytes.withLock { $0 = on }
    }

    public func setFabrics(_ list: [FabricCredentials]) {
        fabrics.withLock { $0 = list }
        // Sessions of removed fabrics can no longer be resumed.
        let indexes = Set(list.map(\.fabricIndex))
        resumptions.withLock { $0 = $0.filter { indexes.contains($0.value.fabricIndex) } }
    }

    /// Handles one Sigma1 exchange to its end.
    public func handle(_ exchange: Exchange, first: ReceivedMessage) async {
        guard first.opcode == SecureChannelOpcode.sigma1.rawValue else { return }
        do {
            if let (handle, peer) = try await run(exchange, first: first) {
                await exchange.close()
                await onEstablished(handle, peer)
                return
            }
        } catch {
            // The initiator was told (StatusReport) where that made sense; nothing else to do.
        }
        await exchange.close()
    }

    private func run(_ exchange: Exchange, first: ReceivedMessage) async throws(SecureChannelError) -> (SessionHandle, SessionPeer)? {
        let messenger = SecureChannelMessenger(exchange)
        let sigma1 = try Sigma1(decoding: first.payload)
        let candidates = fabrics.withLock { $0 }
        guard let fabric = candidates.first(where: {
            ConstantTime.equals(CASEKeys.destinationID(ipk: $0.ipk, initiatorRandom: sigma1.initiatorRandom,
                                                       rootPublicKey: $0.rootPublicKey, fabricID: $0.fabricID,
                                                       nodeID: $0.nodeID), sigma1.destinationID)
        }) else {
            throw await messenger.fail(StatusReport.SecureChannelCode.noSharedTrustRoots, .noSharedTrustRoots)
        }
        let sessionID = await manager.allocateSessionID()
        let peerMRP = sigma1.initiatorSessionParameters?.mrp ?? .default

        // Resumption, when we remember the session and the initiator's MIC verifies.
        if let rid = sigma1.resumptionID, let mic = sigma1.initiatorResumeMIC,
           let record = resumptions.withLock({ $0[rid] }), record.fabricIndex == fabric.fabricIndex,
           let expected = try? CASEKeys.sigma1ResumeMIC(sharedSecret: record.sharedSecret,
                                                        initiatorRandom: sigma1.initiatorRandom, resumptionID: rid),
           ConstantTime.equals(expected, mic) {
            let newID = SecureRandom.bytes(16)
            let mic2 = try crypto(CASEKeys.sigma2ResumeMIC(sharedSecret: record.sharedSecret,
                                                           initiatorRandom: sigma1.initiatorRandom, resumptionID: newID))
            let keys = try crypto(CASEKeys.resumedSessionKeys(sharedSecret: record.sharedSecret,
                                                              initiatorRandom: sigma1.initiatorRandom, resumptionID: newID))
            let peer = SessionPeer.operational(fabricIndex: fabric.fabricIndex, nodeID: record.peerNodeID,
                                               caseAuthenticatedTags: record.peerCATs)
            let handle = await manager.addSecureSession(SecureSessionParameters(
                localSessionID: sessionID, peerSessionID: sigma1.initiatorSessionID, encryptKey: keys.r2i, decryptKey: keys.i2r,
                attestationChallenge: keys.challenge, localNodeID: fabric.nodeID, peerNodeID: record.peerNodeID,
                peerAddress: first.from, peerMRP: peerMRP, peer: peer, isInitiator: false))
            resumptions.withLock {
                $0[rid] = nil
                var r = record
                r.resumptionID = newID
                $0[newID] = r
            }
            let resume = Sigma2Resume(resumptionID: newID, sigma2ResumeMIC: mic2, responderSessionID: sessionID,
                                      responderSessionParameters: parameters)
            try await messenger.send(.sigma2Resume, resume.encoded(), step: "CASE Sigma2_Resume")
            try await messenger.expectSuccess(step: "CASE resumption")
            return (handle, peer)
        }

        // Full handshake: Sigma2.
        let ephemeral = P256PrivateKey()
        let initiatorKey: P256PublicKey
        do { initiatorKey = try P256PublicKey(x962Representation: sigma1.initiatorEphemeralPublicKey) } catch {
            throw await messenger.fail(StatusReport.SecureChannelCode.invalidParameter,
                                       .malformed(message: "Sigma1", reason: "the initiator's ephemeral key is not a P-256 point"))
        }
        let shared = try crypto(ephemeral.sharedSecret(with: initiatorKey))
        let random = SecureRandom.bytes(32)
        let resumptionID = SecureRandom.bytes(16)
        let myKey = ephemeral.publicKey.x962Representation
        let tbs2 = SigmaData.tbs(noc: fabric.noc, icac: fabric.icac, senderKey: myKey, receiverKey: sigma1.initiatorEphemeralPublicKey)
        let signed2 = signsWrongSigma2Bytes.withLock { $0 } ? tbs2 + [0] : tbs2
        let signature2 = try crypto(fabric.operationalKey.signature(for: signed2).rawRepresentation)
        let s2k = try crypto(CASEKeys.sigma2Key(sharedSecret: shared, ipk: fabric.ipk, responderRandom: random,
                                                responderEphemeralKey: myKey, sigma1: first.payload))
        let tbe2 = SigmaData.tbe(noc: fabric.noc, icac: fabric.icac, signature: signature2, resumptionID: resumptionID)
        let encrypted2 = try crypto(AESCCM.seal(key: s2k.bytes, nonce: CASEKeys.sigma2Nonce, plaintext: tbe2, additionalData: []))
        let sigma2Bytes = Sigma2(responderRandom: random, responderSessionID: sessionID, responderEphemeralPublicKey: myKey,
                                 encrypted2: encrypted2, responderSessionParameters: parameters).encoded()
        try await messenger.send(.sigma2, sigma2Bytes, step: "CASE Sigma2")

        // Sigma3: decrypt, validate the initiator's chain, verify its signature.
        let m3 = try await messenger.expect(.sigma3, step: "CASE Sigma3")
        let encrypted3 = try Sigma3Codec.decode(m3.payload)
        let s3k = try crypto(CASEKeys.sigma3Key(sharedSecret: shared, ipk: fabric.ipk, sigma1: first.payload,
                                                sigma2: sigma2Bytes))
        let invalid = StatusReport.SecureChannelCode.invalidParameter
        guard let tbe3 = try? AESCCM.open(key: s3k.bytes, nonce: CASEKeys.sigma3Nonce, ciphertextAndTag: encrypted3,
                                          additionalData: []) else {
            throw await messenger.fail(invalid, .peerAuthenticationFailed("Sigma3's encrypted part does not decrypt"))
        }
        let fields = try SigmaData.readTBE(tbe3, "TBEData3", withResumptionID: false)
        let creds: (identity: OperationalIdentity, publicKey: P256PublicKey)
        do throws(SecureChannelError) {
            creds = try PeerCredentials.validate(noc: fields.noc, icac: fields.icac, fabric: fabric, now: clock())
        } catch {
            throw await messenger.fail(invalid, error)
        }
        let tbs3 = SigmaData.tbs(noc: fields.noc, icac: fields.icac, senderKey: sigma1.initiatorEphemeralPublicKey, receiverKey: myKey)
        guard let sig3 = try? P256Signature(rawRepresentation: fields.signature), creds.publicKey.isValidSignature(sig3, for: tbs3) else {
            throw await messenger.fail(invalid, .peerAuthenticationFailed("the Sigma3 signature does not verify"))
        }
        let keys = try crypto(CASEKeys.sessionKeys(sharedSecret: shared, ipk: fabric.ipk, sigma1: first.payload,
                                                   sigma2: sigma2Bytes, sigma3: m3.payload))
        let peerNode = creds.identity.nodeID.rawValue
        let cats = creds.identity.caseAuthenticatedTags.map(\.rawValue)
        let peer = SessionPeer.operational(fabricIndex: fabric.fabricIndex, nodeID: peerNode, caseAuthenticatedTags: cats)
        let handle = await manager.addSecureSession(SecureSessionParameters(
            localSessionID: sessionID, peerSessionID: sigma1.initiatorSessionID, encryptKey: keys.r2i, decryptKey: keys.i2r,
            attestationChallenge: keys.challenge, localNodeID: fabric.nodeID, peerNodeID: peerNode,
            peerAddress: m3.from, peerMRP: peerMRP, peer: peer, isInitiator: false))
        resumptions.withLock {
            $0[resumptionID] = CASEResumptionRecord(resumptionID: resumptionID, sharedSecret: shared, fabricIndex: fabric.fabricIndex,
                                                    peerNodeID: peerNode, peerCATs: cats)
        }
        await messenger.succeed()
        return (handle, peer)
    }
}
