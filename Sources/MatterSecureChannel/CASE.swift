import MatterCertificates
import MatterCrypto
import MatterMessaging

/// The CASE initiator (Matter Core 4.14.2): the commissioner or controller opening an
/// operational session with a node of its fabric.
public enum CASEInitiator {
    public struct Result: Sendable {
        public var session: SessionHandle
        public var resumption: CASEResumptionRecord
        /// Whether a previous session was resumed (no certificates exchanged).
        public var resumed: Bool
    }

    /// Establishes a CASE session with `peerNodeID` on `fabric` at `peer`.
    ///
    /// 1. send Sigma1 (random, session ID, destination ID, ephemeral key; resumption ID + MIC
    ///    when a record is given);
    /// 2. on Sigma2_Resume: check its MIC, derive resumed keys, confirm with a StatusReport;
    /// 3. on Sigma2: ECDH, decrypt TBE2 with S2K, validate the responder's NOC chain against our
    ///    root and that it is `peerNodeID`, verify its TBS2 signature;
    /// 4. send Sigma3 (our NOC chain and TBS3 signature, encrypted with S3K);
    /// 5. the responder answers with a StatusReport; derive the session keys.
    public static func establish(manager: ExchangeManager, peer: PeerAddress, fabric: FabricCredentials,
                                 peerNodeID: UInt64, peerMRP: MRPParameters = .default,
                                 parameters: SessionParameters = .matterHub, now: MatterEpochTime? = nil,
                                 resumption: CASEResumptionRecord? = nil,
                                 timeout: Duration = .seconds(30)) async throws(SecureChannelError) -> Result {
        let sessionID = await manager.allocateSessionID()
        let unsecured = await manager.newUnsecuredSession(to: peer, peerMRP: peerMRP)
        let exchange: Exchange
        do { exchange = try await manager.newExchange(on: unsecured) } catch { throw .internalError("\(error)") }
        // The ID's reservation ends here if no session took it (a failed handshake).
        defer { Task { await exchange.close(); await manager.removeSession(unsecured); await manager.releaseSessionID(sessionID) } }
        let messenger = SecureChannelMessenger(exchange, timeout: timeout)

        // 1. Sigma1.
        let ephemeral = P256PrivateKey()
        let random = SecureRandom.bytes(32)
        var resumeMIC: [UInt8]?
        if let r = resumption {
            resumeMIC = try crypto(CASEKeys.sigma1ResumeMIC(sharedSecret: r.sharedSecret, initiatorRandom: random,
                                                            resumptionID: r.resumptionID))
        }
        let sigma1 = Sigma1(
            initiatorRandom: random, initiatorSessionID: sessionID,
            destinationID: CASEKeys.destinationID(ipk: fabric.ipk, initiatorRandom: random, rootPublicKey: fabric.rootPublicKey,
                                                  fabricID: fabric.fabricID, nodeID: peerNodeID),
            initiatorEphemeralPublicKey: ephemeral.publicKey.x962Representation, initiatorSessionParameters: parameters,
            resumptionID: resumption?.resumptionID, initiatorResumeMIC: resumeMIC)
        let sigma1Bytes = sigma1.encoded()
        try await messenger.send(.sigma1, sigma1Bytes, step: "CASE Sigma1")
        let reply = try await messenger.expect(oneOf: resumption == nil ? [.sigma2] : [.sigma2, .sigma2Resume], step: "CASE Sigma2")

        // 2. Resumption accepted.
        if reply.opcode == SecureChannelOpcode.sigma2Resume.rawValue, let record = resumption {
            let resume = try Sigma2Resume(decoding: reply.payload)
            let keys = try await checkSigma2Resume(messenger, resume, record: record, initiatorRandom: random)
            let handle = await manager.addSecureSession(SecureSessionParameters(
                localSessionID: sessionID, peerSessionID: resume.responderSessionID, encryptKey: keys.i2r,
                decryptKey: keys.r2i, attestationChallenge: keys.challenge, localNodeID: fabric.nodeID, peerNodeID: record.peerNodeID,
                peerAddress: await exchange.peerAddress() ?? peer, peerMRP: resume.responderSessionParameters?.mrp ?? peerMRP,
                peer: .operational(fabricIndex: fabric.fabricIndex, nodeID: record.peerNodeID, caseAuthenticatedTags: record.peerCATs),
                isInitiator: true))
            await messenger.succeed()
            var resumed = record
            resumed.resumptionID = resume.resumptionID
            return Result(session: handle, resumption: resumed, resumed: true)
        }

        // 3. Sigma2.
        let sigma2 = try Sigma2(decoding: reply.payload)
        let responder = try await checkSigma2(messenger, sigma2, ephemeral: ephemeral, fabric: fabric, peerNodeID: peerNodeID,
                                              sigma1: sigma1Bytes, now: now)

        // 4-5. Sigma3 and the responder's verdict.
        let sigma3Bytes = try await sigma3(messenger, ephemeral: ephemeral, sigma2: sigma2, sigma2Bytes: reply.payload,
                                           shared: responder.shared, fabric: fabric, sigma1: sigma1Bytes)
        let keys = try crypto(CASEKeys.sessionKeys(sharedSecret: responder.shared, ipk: fabric.ipk, sigma1: sigma1Bytes,
                                                   sigma2: reply.payload, sigma3: sigma3Bytes))
        let cats = responder.identity.caseAuthenticatedTags.map(\.rawValue)
        let handle = await manager.addSecureSession(SecureSessionParameters(
            localSessionID: sessionID, peerSessionID: sigma2.responderSessionID, encryptKey: keys.i2r, decryptKey: keys.r2i,
            attestationChallenge: keys.challenge, localNodeID: fabric.nodeID, peerNodeID: peerNodeID,
            peerAddress: await exchange.peerAddress() ?? peer, peerMRP: sigma2.responderSessionParameters?.mrp ?? peerMRP,
            peer: .operational(fabricIndex: fabric.fabricIndex, nodeID: peerNodeID, caseAuthenticatedTags: cats),
            isInitiator: true))
        let record = CASEResumptionRecord(resumptionID: responder.resumptionID ?? [], sharedSecret: responder.shared,
                                          fabricIndex: fabric.fabricIndex, peerNodeID: peerNodeID, peerCATs: cats)
        return Result(session: handle, resumption: record, resumed: false)
    }

    /// Step 2: Sigma2_Resume's MIC must verify under the remembered shared secret; then the
    /// resumed session's keys.
    private static func checkSigma2Resume(_ messenger: SecureChannelMessenger, _ resume: Sigma2Resume, record: CASEResumptionRecord,
                                          initiatorRandom: [UInt8]) async throws(SecureChannelError)
        -> (i2r: SecretBytes, r2i: SecretBytes, challenge: SecretBytes) {
        let expected = try crypto(CASEKeys.sigma2ResumeMIC(sharedSecret: record.sharedSecret, initiatorRandom: initiatorRandom,
                                                           resumptionID: resume.resumptionID))
        guard ConstantTime.equals(expected, resume.sigma2ResumeMIC) else {
            throw await messenger.fail(StatusReport.SecureChannelCode.invalidParameter,
                                       .peerAuthenticationFailed("the Sigma2_Resume MIC does not verify"))
        }
        return try crypto(CASEKeys.resumedSessionKeys(sharedSecret: record.sharedSecret, initiatorRandom: initiatorRandom,
                                                      resumptionID: resume.resumptionID))
    }

    /// What a verified Sigma2 tells the initiator.
    private struct VerifiedResponder {
        var identity: OperationalIdentity
        var shared: SecretBytes
        var resumptionID: [UInt8]?
    }

    /// Step 3: ECDH with the responder's ephemeral key, decrypt TBE2, validate its NOC chain and
    /// that it is `peerNodeID`, verify the TBS2 signature. Each refusal is reported to the peer.
    private static func checkSigma2(_ messenger: SecureChannelMessenger, _ sigma2: Sigma2, ephemeral: P256PrivateKey,
                                    fabric: FabricCredentials, peerNodeID: UInt64, sigma1: [UInt8],
                                    now: MatterEpochTime?) async throws(SecureChannelError) -> VerifiedResponder {
        let invalid = StatusReport.SecureChannelCode.invalidParameter
        let responderKey: P256PublicKey
        do { responderKey = try P256PublicKey(x962Representation: sigma2.responderEphemeralPublicKey) } catch {
            throw .malformed(message: "Sigma2", reason: "the responder's ephemeral key is not a P-256 point")
        }
        let shared = try crypto(ephemeral.sharedSecret(with: responderKey))
        let s2k = try crypto(CASEKeys.sigma2Key(sharedSecret: shared, ipk: fabric.ipk, responderRandom: sigma2.responderRandom,
                                                responderEphemeralKey: sigma2.responderEphemeralPublicKey, sigma1: sigma1))
        guard let tbe2 = try? AESCCM.open(key: s2k.bytes, nonce: CASEKeys.sigma2Nonce, ciphertextAndTag: sigma2.encrypted2,
                                          additionalData: []) else {
            throw await messenger.fail(invalid, .peerAuthenticationFailed(
                "Sigma2's encrypted part does not decrypt (the peer is not on this fabric)"))
        }
        let fields = try SigmaData.readTBE(tbe2, "TBEData2", withResumptionID: true)
        let credentials: (identity: OperationalIdentity, publicKey: P256PublicKey)
        do throws(SecureChannelError) {
            credentials = try PeerCredentials.validate(noc: fields.noc, icac: fields.icac, fabric: fabric, now: now)
        } catch {
            throw await messenger.fail(invalid, error)
        }
        guard credentials.identity.nodeID.rawValue == peerNodeID else {
            throw await messenger.fail(invalid, .peerAuthenticationFailed(
                "it is node \(credentials.identity.nodeID), not the node we asked for"))
        }
        let tbs2 = SigmaData.tbs(noc: fields.noc, icac: fields.icac, senderKey: sigma2.responderEphemeralPublicKey,
                                 receiverKey: ephemeral.publicKey.x962Representation)
        guard let signature = try? P256Signature(rawRepresentation: fields.signature),
              credentials.publicKey.isValidSignature(signature, for: tbs2) else {
            throw await messenger.fail(invalid, .peerAuthenticationFailed("the Sigma2 signature does not verify"))
        }
        return VerifiedResponder(identity: credentials.identity, shared: shared, resumptionID: fields.resumptionID)
    }

    /// Steps 4-5: Sigma3 (our NOC chain and TBS3 signature, encrypted with S3K) -> the
    /// responder's StatusReport. Returns Sigma3 as sent, for the session keys.
    private static func sigma3(_ messenger: SecureChannelMessenger, ephemeral: P256PrivateKey, sigma2: Sigma2, sigma2Bytes: [UInt8],
                               shared: SecretBytes, fabric: FabricCredentials,
                               sigma1: [UInt8]) async throws(SecureChannelError) -> [UInt8] {
        let tbs3 = SigmaData.tbs(noc: fabric.noc, icac: fabric.icac, senderKey: ephemeral.publicKey.x962Representation,
                                 receiverKey: sigma2.responderEphemeralPublicKey)
        let signature3 = try crypto(fabric.operationalKey.signature(for: tbs3).rawRepresentation)
        let s3k = try crypto(CASEKeys.sigma3Key(sharedSecret: shared, ipk: fabric.ipk, sigma1: sigma1, sigma2: sigma2Bytes))
        let tbe3 = SigmaData.tbe(noc: fabric.noc, icac: fabric.icac, signature: signature3, resumptionID: nil)
        let encrypted3 = try crypto(AESCCM.seal(key: s3k.bytes, nonce: CASEKeys.sigma3Nonce, plaintext: tbe3, additionalData: []))
        let sigma3Bytes = Sigma3Codec.encode(encrypted3)
        try await messenger.send(.sigma3, sigma3Bytes, step: "CASE Sigma3")
        try await messenger.expectSuccess(step: "CASE Sigma3")
        return sigma3Bytes
    }
}
