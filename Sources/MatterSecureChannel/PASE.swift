import MatterCrypto
import MatterMessaging

/// PASE (Matter Core 4.14.1): a passcode-authenticated session between a commissioner and a
/// device in commissioning mode, over SPAKE2+.
public enum PASE {
    static let contextPrefix = Array("CHIP PAKE V1 Commissioning".utf8)
    static let sessionKeysInfo = Array("SessionKeys".utf8)

    /// The SPAKE2+ context: SHA-256(prefix || PBKDFParamRequest || PBKDFParamResponse).
    public static func context(request: [UInt8], response: [UInt8]) -> [UInt8] {
        SHA256.hash(contextPrefix + request + response)
    }

    /// I2R key || R2I key || attestation challenge, from Ke (Matter Core 4.14.1.4).
    public static func sessionKeys(Ke: SecretBytes) throws(CryptoError) -> (i2r: SecretBytes, r2i: SecretBytes, challenge: SecretBytes) {
        let k = try HKDF.deriveKey(inputKeyMaterial: Ke.bytes, salt: [], info: sessionKeysInfo, outputByteCount: 48)
        return (SecretBytes(Array(k[0..<16])), SecretBytes(Array(k[16..<32])), SecretBytes(Array(k[32..<48])))
    }
}

/// The commissioner's side of PASE.
public enum PASEInitiator {
    /// Establishes a PASE session with the device at `peer`.
    ///
    /// Matter Core 4.14.1, in order:
    /// 1. send PBKDFParamRequest (our random, our session ID, our MRP parameters);
    /// 2. receive PBKDFParamResponse with the device's salt and iterations; derive w0 and w1;
    /// 3. send Pake1 (X); receive Pake2 (Y, cB) and check cB — a mismatch means a wrong passcode:
    ///    report it to the device and stop;
    /// 4. send Pake3 (cA); the device answers with a StatusReport;
    /// 5. derive the session keys and install the secure session.
    public static func establish(manager: ExchangeManager, peer: PeerAddress, passcode: UInt32,
                                 peerMRP: MRPParameters = .default, parameters: SessionParameters = .matterHub,
                                 timeout: Duration = .seconds(30),
                                 random: any RandomSource = SystemRandomSource()) async throws(SecureChannelError) -> SessionHandle {
        var random = random
        let sessionID = await manager.allocateSessionID()
        let unsecured = await manager.newUnsecuredSession(to: peer, peerMRP: peerMRP)
        let exchange: Exchange
        do {
            exchange = try await manager.newExchange(on: unsecured)
        } catch {
            throw .internalError("cannot open an exchange: \(error)")
        }
        // The ID's reservation ends here if no session took it (a failed handshake).
        defer { Task { await exchange.close(); await manager.removeSession(unsecured); await manager.releaseSessionID(sessionID) } }
        let messenger = SecureChannelMessenger(exchange, timeout: timeout)

        // 1-2. PBKDF parameters, and w0/w1 from them.
        let pbkdf = try await pbkdfParameters(messenger, sessionID: sessionID, parameters: parameters, random: &random)
        let w: (w0: SecretBytes, w1: SecretBytes, L: [UInt8])
        do {
            w = try PASEVerifier.derive(passcode: passcode, salt: pbkdf.salt, iterations: Int(pbkdf.iterations))
        } catch {
            throw await messenger.fail(StatusReport.SecureChannelCode.invalidParameter, .invalidPBKDFParameters("\(error)"))
        }
        // 3. Pake1 / Pake2.
        let result = try await pake1(messenger, context: pbkdf.context, w: w, random: random)
        // 4. Pake3 and the device's verdict.
        try await pake3(messenger, cA: result.cA)
        // 5. Session keys.
        let keys = try crypto(PASE.sessionKeys(Ke: result.Ke))
        let peerAddress = await exchange.peerAddress() ?? peer
        return await manager.addSecureSession(SecureSessionParameters(
            localSessionID: sessionID, peerSessionID: pbkdf.response.responderSessionID, encryptKey: keys.i2r,
            decryptKey: keys.r2i, attestationChallenge: keys.challenge, peerAddress: peerAddress,
            peerMRP: pbkdf.response.responderSessionParameters?.mrp ?? peerMRP, peer: .pase, isInitiator: true))
    }

    /// What the PBKDF parameter exchange gives the rest of the handshake.
    private struct PBKDFOutcome {
        var response: PBKDFParamResponse
        var salt: [UInt8]
        var iterations: UInt32
        /// The SPAKE2+ context over both messages as sent.
        var context: [UInt8]
    }

    /// Steps 1-2: PBKDFParamRequest -> PBKDFParamResponse, which must echo our random and carry
    /// the parameters (we never claim to have them).
    private static func pbkdfParameters(_ messenger: SecureChannelMessenger, sessionID: UInt16, parameters: SessionParameters,
                                        random: inout any RandomSource) async throws(SecureChannelError) -> PBKDFOutcome {
        let request = PBKDFParamRequest(initiatorRandom: random.bytes(32), initiatorSessionID: sessionID,
                                        hasPBKDFParameters: false, initiatorSessionParameters: parameters)
        let requestBytes = request.encoded()
        try await messenger.send(.pbkdfParamRequest, requestBytes, step: "PASE PBKDFParamRequest")
        let message = try await messenger.expect(.pbkdfParamResponse, step: "PASE PBKDFParamResponse")
        let response = try PBKDFParamResponse(decoding: message.payload)
        guard response.initiatorRandom == request.initiatorRandom else {
            throw await messenger.fail(StatusReport.SecureChannelCode.invalidParameter,
                                       .malformed(message: "PBKDFParamResponse", reason: "it does not echo our random"))
        }
        guard let pbkdf = response.pbkdfParameters else {
            throw .malformed(message: "PBKDFParamResponse", reason: "PBKDF parameters missing")
        }
        return PBKDFOutcome(response: response, salt: pbkdf.salt, iterations: pbkdf.iterations,
                            context: PASE.context(request: requestBytes, response: message.payload))
    }

    /// Step 3: Pake1 (X) -> Pake2 (Y, cB); cB that does not verify means the passcode is wrong.
    private static func pake1(_ messenger: SecureChannelMessenger, context: [UInt8], w: (w0: SecretBytes, w1: SecretBytes, L: [UInt8]),
                              random: any RandomSource) async throws(SecureChannelError) -> Spake2pProverResult {
        var prover: Spake2pProver
        let X: [UInt8]
        do {
            prover = try Spake2pProver(context: context, w0: w.w0, w1: w.w1, random: random)
            X = try prover.computeX()
        } catch {
            throw .internalError("SPAKE2+: \(error)")
        }
        try await messenger.send(.pake1, PAKEMessage.pake1(X: X), step: "PASE Pake1")
        let pake2 = try await messenger.expect(.pake2, step: "PASE Pake2")
        let fields = try PAKEMessage.decode(pake2.payload, name: "Pake2", lengths: [65, 32])
        let result: Spake2pProverResult
        do {
            result = try prover.finish(Y: fields[0])
        } catch {
            throw await messenger.fail(StatusReport.SecureChannelCode.invalidParameter,
                                       .malformed(message: "Pake2", reason: "the device's share is not a valid point"))
        }
        guard result.isValidVerifierConfirmation(fields[1]) else {
            throw await messenger.fail(StatusReport.SecureChannelCode.invalidParameter, .wrongPasscode)
        }
        return result
    }

    /// Step 4: Pake3 (cA) -> the device's StatusReport; its invalid-parameter answer means our
    /// cA did not verify, that is a wrong passcode.
    private static func pake3(_ messenger: SecureChannelMessenger, cA: [UInt8]) async throws(SecureChannelError) {
        try await messenger.send(.pake3, PAKEMessage.pake3(cA: cA), step: "PASE Pake3")
        do {
            try await messenger.expectSuccess(step: "PASE Pake3")
        } catch .peerReportedFailure(_, let report)
                    where report.protocolID == .secureChannel
                    && report.protocolCode == StatusReport.SecureChannelCode.invalidParameter {
            throw .wrongPasscode
        }
    }
}
