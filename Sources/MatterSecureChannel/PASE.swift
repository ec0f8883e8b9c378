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
    public static func sessionKeys(Ke: SecretBytes) throws -> (i2r: SecretBytes, r2i: SecretBytes, challenge: SecretBytes) {
        let k = try HKDF.deriveKey(inputKeyMaterial: Ke.bytes, salt: [], info: sessionKeysInfo, outputByteCount: 48)
        return (SecretBytes(Array(k[0..<16])), SecretBytes(Array(k[16..<32])), SecretBytes(Array(k[32..<48])))
    }

    static func failure(_ code: UInt16) -> StatusReport {
        StatusReport(generalCode: .failure, protocolID: .secureChannel, protocolCode: code)
    }

    static let success = StatusReport(generalCode: .success, protocolID: .secureChannel,
                                      protocolCode: StatusReport.SecureChannelCode.sessionEstablishmentSuccess)

    /// Waits for the handshake message `opcode`; a StatusReport or another message is an error.
    static func expect(_ opcode: SecureChannelOpcode, step: String, on exchange: Exchange,
                       timeout: Duration) async throws(SecureChannelError) -> ReceivedMessage {
        let m: ReceivedMessage
        do {
            m = try await exchange.receive(timeout: timeout)
        } catch let e as ExchangeError {
            throw .noResponse(step: step, underlying: e)
        } catch {
            throw .internalError("\(error)")
        }
        if m.isStatusReport {
            let report = (try? StatusReport.decode(m.payload))
                ?? StatusReport(generalCode: .failure, protocolID: .secureChannel, protocolCode: 0xFFFF)
            throw .peerReportedFailure(step: step, report: report)
        }
        guard m.protocolID == .secureChannel, m.opcode == opcode.rawValue else {
            throw .unexpectedMessage(step: step, opcode: m.opcode)
        }
        return m
    }

    /// Waits for the peer's StatusReport that ends a handshake; anything but success is an error.
    static func expectSuccess(step: String, on exchange: Exchange, timeout: Duration) async throws(SecureChannelError) {
        let m: ReceivedMessage
        do {
            m = try await exchange.receive(timeout: timeout)
        } catch let e as ExchangeError {
            throw .noResponse(step: step, underlying: e)
        } catch {
            throw .internalError("\(error)")
        }
        guard m.isStatusReport, let report = try? StatusReport.decode(m.payload) else {
            throw .unexpectedMessage(step: step, opcode: m.opcode)
        }
        guard report.isSuccess else { throw .peerReportedFailure(step: step, report: report) }
    }

    static func send(_ opcode: SecureChannelOpcode, _ payload: [UInt8], step: String, on exchange: Exchange) async throws(SecureChannelError) {
        do {
            try await exchange.send(.secureChannel, opcode: opcode.rawValue, payload: payload)
        } catch let e as ExchangeError {
            throw .noResponse(step: step, underlying: e)
        } catch {
            throw .internalError("\(step): \(error)")
        }
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

        // 1-2. PBKDF parameters.
        let request = PBKDFParamRequest(initiatorRandom: random.bytes(32), initiatorSessionID: sessionID,
                                        hasPBKDFParameters: false, initiatorSessionParameters: parameters)
        let requestBytes = request.encoded()
        try await PASE.send(.pbkdfParamRequest, requestBytes, step: "PASE PBKDFParamRequest", on: exchange)
        let responseMessage = try await PASE.expect(.pbkdfParamResponse, step: "PASE PBKDFParamResponse", on: exchange,
                                                    timeout: timeout)
        let response = try PBKDFParamResponse(decoding: responseMessage.payload)
        guard response.initiatorRandom == request.initiatorRandom else {
            try? await exchange.sendStatusReport(PASE.failure(StatusReport.SecureChannelCode.invalidParameter))
            throw .malformed(message: "PBKDFParamResponse", reason: "it does not echo our random")
        }
        guard let pbkdf = response.pbkdfParameters else {
            throw .malformed(message: "PBKDFParamResponse", reason: "PBKDF parameters missing")
        }
        let w: (w0: SecretBytes, w1: SecretBytes, L: [UInt8])
        do {
            w = try PASEVerifier.derive(passcode: passcode, salt: pbkdf.salt, iterations: Int(pbkdf.iterations))
        } catch {
            try? await exchange.sendStatusReport(PASE.failure(StatusReport.SecureChannelCode.invalidParameter))
            throw .invalidPBKDFParameters("\(error)")
        }
        let context = PASE.context(request: requestBytes, response: responseMessage.payload)

        // 3. Pake1 / Pake2.
        var prover: Spake2pProver
        let X: [UInt8]
        do {
            prover = try Spake2pProver(context: context, w0: w.w0, w1: w.w1, random: random)
            X = try prover.computeX()
        } catch {
            throw .internalError("SPAKE2+: \(error)")
        }
        try await PASE.send(.pake1, PAKEMessage.pake1(X: X), step: "PASE Pake1", on: exchange)
        let pake2 = try await PASE.expect(.pake2, step: "PASE Pake2", on: exchange, timeout: timeout)
        let fields = try PAKEMessage.decode(pake2.payload, name: "Pake2", lengths: [65, 32])
        let result: Spake2pProverResult
        do {
            result = try prover.finish(Y: fields[0])
        } catch {
            try? await exchange.sendStatusReport(PASE.failure(StatusReport.SecureChannelCode.invalidParameter))
            throw .malformed(message: "Pake2", reason: "the device's share is not a valid point")
        }
        guard result.isValidVerifierConfirmation(fields[1]) else {
            try? await exchange.sendStatusReport(PASE.failure(StatusReport.SecureChannelCode.invalidParameter))
            throw .wrongPasscode
        }

        // 4. Pake3 and the device's verdict.
        try await PASE.send(.pake3, PAKEMessage.pake3(cA: result.cA), step: "PASE Pake3", on: exchange)
        let verdict: ReceivedMessage
        do {
            verdict = try await exchange.receive(timeout: timeout)
        } catch let e as ExchangeError {
            throw .noResponse(step: "PASE StatusReport", underlying: e)
        } catch {
            throw .internalError("\(error)")
        }
        guard verdict.isStatusReport, let report = try? StatusReport.decode(verdict.payload) else {
            throw .unexpectedMessage(step: "PASE StatusReport", opcode: verdict.opcode)
        }
        guard report.isSuccess else {
            if report.protocolID == .secureChannel && report.protocolCode == StatusReport.SecureChannelCode.invalidParameter {
                throw .wrongPasscode
            }
            throw .peerReportedFailure(step: "PASE", report: report)
        }

        // 5. Session keys.
        let keys: (i2r: SecretBytes, r2i: SecretBytes, challenge: SecretBytes)
        do {
            keys = try PASE.sessionKeys(Ke: result.Ke)
        } catch {
            throw .internalError("session keys: \(error)")
        }
        let peerAddress = await exchange.peerAddress() ?? peer
        return await manager.addSecureSession(SecureSessionParameters(
            localSessionID: sessionID, peerSessionID: response.responderSessionID, encryptKey: keys.i2r,
            decryptKey: keys.r2i, attestationChallenge: keys.challenge, peerAddress: peerAddress,
            peerMRP: response.responderSessionParameters?.mrp ?? peerMRP, peer: .pase, isInitiator: true))
    }
}
