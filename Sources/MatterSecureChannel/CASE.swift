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

        let ephemeral = P256PrivateKey()
        let random = SecureRandom.bytes(32)
        var resumeMIC: [UInt8]?
        if let r = resumption {
            resumeMIC = try crypto { try CASEKeys.sigma1ResumeMIC(sharedSecret: r.sharedSecret, initiatorRandom: random,
                                                                  resumptionID: r.resumptionID) }
        }
        let sigma1 = Sigma1(
            initiatorRandom: random, initiatorSessionID: sessionID,
            destinationID: CASEKeys.destinationID(ipk: fabric.ipk, initiatorRandom: random, rootPublicKey: fabric.rootPublicKey,
                                                  fabricID: fabric.fabricID, nodeID: peerNodeID),
            initiatorEphemeralPublicKey: ephemeral.publicKey.x962Representation, initiatorSessionParameters: parameters,
            resumptionID: resumption?.resumptionID, initiatorResumeMIC: resumeMIC)
        let sigma1Bytes = sigma1.encoded()
        try await PASE.send(.sigma1, sigma1Bytes, step: "CASE Sigma1", on: exchange)

        let reply: ReceivedMessage
        do { reply = try await exchange.receive(timeout: timeout) } catch let e as ExchangeError {
            throw .noResponse(step: "CASE Sigma2", underlying: e)
        } catch { throw .internalError("\(error)") }
        if reply.isStatusReport {
            let report = (try? StatusReport.decode(reply.payload))
                ?? StatusReport(generalCode: .failure, protocolID: .secureChannel, protocolCode: 0xFFFF)
            if report.protocolID == .secureChannel && report.protocolCode == StatusReport.SecureChannelCode.noSharedTrustRoots {
                throw .noSharedTrustRoots
            }
            throw .peerReportedFailure(step: "CASE Sigma1", report: report)
        }

        // 2. Resumption accepted.
        if reply.opcode == SecureChannelOpcode.sigma2Resume.rawValue, let r = resumption {
            let resume = try Sigma2Resume(decoding: reply.payload)
            let expected = try crypto { try CASEKeys.sigma2ResumeMIC(sharedSecret: r.sharedSecret, initiatorRandom: random,
                                                                     resumptionID: resume.resumptionID) }
            guard ConstantTime.equals(expected, resume.sigma2ResumeMIC) else {
                try? await exchange.sendStatusReport(PASE.failure(StatusReport.SecureChannelCode.invalidParameter))
                throw .peerAuthenticationFailed("the Sigma2_Resume MIC does not verify")
            }
            let keys = try crypto { try CASEKeys.resumedSessionKeys(sharedSecret: r.sharedSecret, initiatorRandom: random,
                                                                    resumptionID: resume.resumptionID) }
            let handle = await manager.addSecureSession(SecureSessionParameters(
                localSessionID: sessionID, peerSessionID: resume.responderSessionID, encryptKey: keys.i2r,
                decryptKey: keys.r2i, attestationChallenge: keys.challenge, localNodeID: fabric.nodeID, peerNodeID: r.peerNodeID,
                peerAddress: await exchange.peerAddress() ?? peer, peerMRP: resume.responderSessionParameters?.mrp ?? peerMRP,
                peer: .operational(fabricIndex: fabric.fabricIndex, nodeID: r.peerNodeID, caseAuthenticatedTags: r.peerCATs),
                isInitiator: true))
            try? await exchange.sendStatusReport(PASE.success)
            var record = r
            record.resumptionID = resume.resumptionID
            return Result(session: handle, resumption: record, resumed: true)
        }

        // 3. Sigma2.
        guard reply.protocolID == .secureChannel, reply.opcode == SecureChannelOpcode.sigma2.rawValue else {
            throw .unexpectedMessage(step: "CASE Sigma2", opcode: reply.opcode)
        }
        let sigma2 = try Sigma2(decoding: reply.payload)
        let responderKey: P256PublicKey
        do { responderKey = try P256PublicKey(x962Representation: sigma2.responderEphemeralPublicKey) } catch {
            throw .malformed(message: "Sigma2", reason: "the responder's ephemeral key is not a P-256 point")
        }
        let shared = try crypto { try ephemeral.sharedSecret(with: responderKey) }
        let s2k = try crypto { try CASEKeys.sigma2Key(sharedSecret: shared, ipk: fabric.ipk, responderRandom: sigma2.responderRandom,
                                                      responderEphemeralKey: sigma2.responderEphemeralPublicKey, sigma1: sigma1Bytes) }
        let tbe2: [UInt8]
        do {
            tbe2 = try AESCCM.open(key: s2k.bytes, nonce: CASEKeys.sigma2Nonce, ciphertextAndTag: sigma2.encrypted2, additionalData: [])
        } catch {
            try? await exchange.sendStatusReport(PASE.failure(StatusReport.SecureChannelCode.invalidParameter))
            throw .peerAuthenticationFailed("Sigma2's encrypted part does not decrypt (the peer is not on this fabric)")
        }
        let fields = try SigmaData.readTBE(tbe2, "TBEData2", withResumptionID: true)
        let peerCreds: (identity: OperationalIdentity, publicKey: P256PublicKey)
        do {
            peerCreds = try PeerCredentials.validate(noc: fields.noc, icac: fields.icac, fabric: fabric, now: now)
        } catch {
            try? await exchange.sendStatusReport(PASE.failure(StatusReport.SecureChannelCode.invalidParameter))
            throw error
        }
        guard peerCreds.identity.nodeID.rawValue == peerNodeID else {
            try? await exchange.sendStatusReport(PASE.failure(StatusReport.SecureChannelCode.invalidParameter))
            throw .peerAuthenticationFailed("it is node \(peerCreds.identity.nodeID), not the node we asked for")
        }
        let tbs2 = SigmaData.tbs(noc: fields.noc, icac: fields.icac, senderKey: sigma2.responderEphemeralPublicKey,
                                 receiverKey: ephemeral.publicKey.x962Representation)
        guard let sig2 = try? P256Signature(rawRepresentation: fields.signature),
              peerCreds.publicKey.isValidSignature(sig2, for: tbs2) else {
            try? await exchange.sendStatusReport(PASE.failure(StatusReport.SecureChannelCode.invalidParameter))
            throw .peerAuthenticationFailed("the Sigma2 signature does not verify")
        }

        // 4. Sigma3.
        let tbs3 = SigmaData.tbs(noc: fabric.noc, icac: fabric.icac, senderKey: ephemeral.publicKey.x962Representation,
                                 receiverKey: sigma2.responderEphemeralPublicKey)
        let signature3 = try crypto { try fabric.operationalKey.signature(for: tbs3).rawRepresentation }
        let s3k = try crypto { try CASEKeys.sigma3Key(sharedSecret: shared, ipk: fabric.ipk, sigma1: sigma1Bytes, sigma2: reply.payload) }
        let encrypted3 = try crypto {
            try AESCCM.seal(key: s3k.bytes, nonce: CASEKeys.sigma3Nonce,
                            plaintext: SigmaData.tbe(noc: fabric.noc, icac: fabric.icac, signature: signature3, resumptionID: nil),
                            additionalData: [])
        }
        let sigma3Bytes = Sigma3Codec.encode(encrypted3)
        try await PASE.send(.sigma3, sigma3Bytes, step: "CASE Sigma3", on: exchange)

        // 5. The responder's verdict.
        let verdict: ReceivedMessage
        do { verdict = try await exchange.receive(timeout: timeout) } catch let e as ExchangeError {
            throw .noResponse(step: "CASE StatusReport", underlying: e)
        } catch { throw .internalError("\(error)") }
        guard verdict.isStatusReport, let report = try? StatusReport.decode(verdict.payload) else {
            throw .unexpectedMessage(step: "CASE StatusReport", opcode: verdict.opcode)
        }
        guard report.isSuccess else { throw .peerReportedFailure(step: "CASE Sigma3", report: report) }

        let keys = try crypto { try CASEKeys.sessionKeys(sharedSecret: shared, ipk: fabric.ipk, sigma1: sigma1Bytes,
                                                         sigma2: reply.payload, sigma3: sigma3Bytes) }
        let cats = peerCreds.identity.caseAuthenticatedTags.map(\.rawValue)
        let handle = await manager.addSecureSession(SecureSessionParameters(
            localSessionID: sessionID, peerSessionID: sigma2.responderSessionID, encryptKey: keys.i2r, decryptKey: keys.r2i,
            attestationChallenge: keys.challenge, localNodeID: fabric.nodeID, peerNodeID: peerNodeID,
            peerAddress: await exchange.peerAddress() ?? peer, peerMRP: sigma2.responderSessionParameters?.mrp ?? peerMRP,
            peer: .operational(fabricIndex: fabric.fabricIndex, nodeID: peerNodeID, caseAuthenticatedTags: cats),
            isInitiator: true))
        let record = CASEResumptionRecord(resumptionID: fields.resumptionID ?? [], sharedSecret: shared,
                                          fabricIndex: fabric.fabricIndex, peerNodeID: peerNodeID, peerCATs: cats)
        return Result(session: handle, resumption: record, resumed: false)
    }

    /// Runs a crypto step, turning its error into `internalError`.
    static func crypto<T>(_ body: () throws -> T) throws(SecureChannelError) -> T {
        do { return try body() } catch { throw .internalError("\(error)") }
    }
}
