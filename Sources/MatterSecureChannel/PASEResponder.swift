import MatterCrypto
import MatterMessaging
import Synchronization

/// The device's side of PASE: answers PBKDFParamRequests on the unsecured session while a
/// commissioning window is open.
public final class PASEResponder: Sendable {
    /// What the device needs to answer: the verifier (never the passcode) and its PBKDF parameters.
    public struct Configuration: Sendable {
        public var verifier: PASEVerifier
        public var salt: [UInt8]
        public var iterations: UInt32
        public var parameters: SessionParameters
        public init(verifier: PASEVerifier, salt: [UInt8], iterations: UInt32, parameters: SessionParameters = .matterHub) {
            self.verifier = verifier
            self.salt = salt
            self.iterations = iterations
            self.parameters = parameters
        }
    }

    /// How a handshake ended, for the device's commissioning-window logic.
    public enum Outcome: Sendable {
        case established(SessionHandle)
        /// A wrong passcode: the initiator's confirmation did not verify, or the initiator
        /// reported that ours did not.
        case failedAttempt
        case abandoned(SecureChannelError)
    }

    private let manager: ExchangeManager
    private let configuration: Mutex<Configuration?>
    private let onOutcome: @Sendable (Outcome) async -> Void

    /// Installs the responder on `manager`. It answers only while a configuration is set
    /// (an open commissioning window); `onOutcome` hears how each attempt ended.
    public init(manager: ExchangeManager, configuration: Configuration?,
                onOutcome: @escaping @Sendable (Outcome) async -> Void) async {
        self.manager = manager
        self.configuration = Mutex(configuration)
        self.onOutcome = onOutcome
    }

    /// Opens (with a configuration) or closes (nil) the window for new PASE handshakes.
    public func setConfiguration(_ configuration: Configuration?) {
        self.configuration.withLock { $0 = configuration }
    }

    /// Handles one PBKDFParamRequest exchange to its end.
    public func handle(_ exchange: Exchange, first: ReceivedMessage) async {
        guard first.opcode == SecureChannelOpcode.pbkdfParamRequest.rawValue else { return }
        guard let config = configuration.withLock({ $0 }) else {
            // No window open: tell the initiator we are busy rather than leaving it to time out.
            await SecureChannelMessenger(exchange).fail(StatusReport.SecureChannelCode.busy)
            await exchange.close()
            return
        }
        let outcome: Outcome
        do {
            outcome = try await run(exchange, first: first, config: config)
        } catch {
            outcome = .abandoned(error)
        }
        await exchange.close()
        await onOutcome(outcome)
    }

    /// The steps of Matter Core 4.14.1 from the device's side: PBKDFParamResponse, Pake2 from
    /// Pake1, then check Pake3's cA and answer with a StatusReport.
    private func run(_ exchange: Exchange, first: ReceivedMessage, config: Configuration) async throws(SecureChannelError) -> Outcome {
        let messenger = SecureChannelMessenger(exchange)
        let request = try PBKDFParamRequest(decoding: first.payload)
        guard request.passcodeID == 0 else {
            throw await messenger.fail(StatusReport.SecureChannelCode.invalidParameter,
                                       .malformed(message: "PBKDFParamRequest", reason: "passcode ID \(request.passcodeID) is not 0"))
        }
        let sessionID = await manager.allocateSessionID()
        let response = PBKDFParamResponse(
            initiatorRandom: request.initiatorRandom, responderRandom: SecureRandom.bytes(32),
            responderSessionID: sessionID,
            pbkdfParameters: request.hasPBKDFParameters ? nil : .init(iterations: config.iterations, salt: config.salt),
            responderSessionParameters: config.parameters)
        let responseBytes = response.encoded()
        try await messenger.send(.pbkdfParamResponse, responseBytes, step: "PASE PBKDFParamResponse")

        let pake1 = try await messenger.expect(.pake1, step: "PASE Pake1")
        let X = try PAKEMessage.decode(pake1.payload, name: "Pake1", lengths: [65])[0]
        var verifier: Spake2pVerifier
        let Y: [UInt8]
        let result: Spake2pVerifierResult
        do {
            verifier = try Spake2pVerifier(context: PASE.context(request: first.payload, response: responseBytes),
                                           verifier: config.verifier)
            Y = try verifier.computeY()
            result = try verifier.finish(X: X)
        } catch {
            throw await messenger.fail(StatusReport.SecureChannelCode.invalidParameter,
                                       .malformed(message: "Pake1", reason: "the initiator's share is not a valid point"))
        }
        try await messenger.send(.pake2, PAKEMessage.pake2(Y: Y, cB: result.cB), step: "PASE Pake2")

        let pake3: ReceivedMessage
        do {
            pake3 = try await messenger.expect(.pake3, step: "PASE Pake3")
        } catch .peerReportedFailure {
            // The initiator's check of our cB failed: it holds another passcode. That counts as a
            // failed attempt just like a wrong cA (Matter Core 5.4.2.7).
            return .failedAttempt
        }
        let cA = try PAKEMessage.decode(pake3.payload, name: "Pake3", lengths: [32])[0]
        guard result.isValidProverConfirmation(cA) else {
            await messenger.fail(StatusReport.SecureChannelCode.invalidParameter)
            return .failedAttempt
        }
        let keys = try crypto(PASE.sessionKeys(Ke: result.Ke))
        // Install the session before confirming, so the initiator's first secure message finds it.
        let handle = await manager.addSecureSession(SecureSessionParameters(
            localSessionID: sessionID, peerSessionID: request.initiatorSessionID, encryptKey: keys.r2i,
            decryptKey: keys.i2r, attestationChallenge: keys.challenge, peerAddress: first.from,
            peerMRP: request.initiatorSessionParameters?.mrp ?? .default, peer: .pase, isInitiator: false))
        await messenger.succeed()
        return .established(handle)
    }
}
