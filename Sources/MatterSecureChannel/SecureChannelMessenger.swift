import MatterCrypto
import MatterMessaging

/// The handshake side of one exchange, for all four roles (PASE and CASE, initiator and
/// responder): send the next handshake message, wait for the peer's, wait for the StatusReport
/// that ends a handshake, and end one with a failure status.
///
/// Every receive names its `step`, so a timeout, an unexpected message or the peer's failure
/// status becomes a `SecureChannelError` that says where the handshake stopped.
struct SecureChannelMessenger: Sendable {
    let exchange: Exchange
    /// How long each receive waits for the peer.
    let timeout: Duration

    init(_ exchange: Exchange, timeout: Duration = .seconds(30)) {
        self.exchange = exchange
        self.timeout = timeout
    }

    /// Sends the handshake message `opcode` (reliably: MRP retransmits it until acknowledged).
    func send(_ opcode: SecureChannelOpcode, _ payload: [UInt8], step: String) async throws(SecureChannelError) {
        do {
            try await exchange.send(.secureChannel, opcode: opcode.rawValue, payload: payload)
        } catch {
            switch error {
            case .timeout, .noAcknowledgement, .closed, .closedByPeer, .unknownSession: throw .noResponse(step: step, underlying: error)
            case .cancelled: throw .cancelled(step: step)
            default: throw .internalError("\(step): \(error)")  // a local failure: no route, too large
            }
        }
    }

    /// Waits for the handshake message `opcode`. The peer's StatusReport instead is its failure
    /// (`noSharedTrustRoots` or `peerReportedFailure`); any other message is `unexpectedMessage`.
    func expect(_ opcode: SecureChannelOpcode, step: String) async throws(SecureChannelError) -> ReceivedMessage {
        try await expect(oneOf: [opcode], step: step)
    }

    /// Waits for one of the handshake messages `opcodes` (CASE: Sigma2 or Sigma2_Resume).
    func expect(oneOf opcodes: [SecureChannelOpcode], step: String) async throws(SecureChannelError) -> ReceivedMessage {
        let message = try await receive(step: step)
        if message.isStatusReport {
            // A report that does not decode is still a refusal: keep it as an unspecified failure.
            let report = (try? StatusReport.decode(message.payload))
                ?? StatusReport(generalCode: .failure, protocolID: .secureChannel, protocolCode: 0xFFFF)
            throw SecureChannelError(peerReport: report, step: step)
        }
        guard message.protocolID == .secureChannel, opcodes.contains(where: { $0.rawValue == message.opcode }) else {
            throw .unexpectedMessage(step: step, opcode: message.opcode)
        }
        return message
    }

    /// Waits for the StatusReport that ends a handshake; anything but success is an error.
    func expectSuccess(step: String) async throws(SecureChannelError) {
        let message = try await receive(step: step)
        guard message.isStatusReport, let report = try? StatusReport.decode(message.payload) else {
            throw .unexpectedMessage(step: step, opcode: message.opcode)
        }
        guard report.isSuccess else { throw SecureChannelError(peerReport: report, step: step) }
    }

    /// Tells the peer the handshake succeeded (best effort: the session is already installed).
    func succeed() async {
        try? await exchange.sendStatusReport(StatusReport(
            generalCode: .success, protocolID: .secureChannel,
            protocolCode: StatusReport.SecureChannelCode.sessionEstablishmentSuccess))
    }

    /// Tells the peer the handshake failed with the Secure Channel `code` (best effort: the
    /// handshake ends either way) and returns `error`, for `throw await messenger.fail(...)`.
    func fail(_ code: UInt16, _ error: SecureChannelError) async -> SecureChannelError {
        await fail(code)
        return error
    }

    /// Tells the peer the handshake failed with the Secure Channel `code` (best effort).
    func fail(_ code: UInt16) async {
        try? await exchange.sendStatusReport(StatusReport(generalCode: .failure, protocolID: .secureChannel,
                                                          protocolCode: code))
    }

    private func receive(step: String) async throws(SecureChannelError) -> ReceivedMessage {
        do {
            return try await exchange.receive(timeout: timeout)
        } catch .cancelled {
            throw .cancelled(step: step)
        } catch {
            throw .noResponse(step: step, underlying: error)
        }
    }
}

extension SecureChannelError {
    /// The peer's failure StatusReport at `step`, by its Secure Channel code where one is named.
    init(peerReport report: StatusReport, step: String) {
        if report.protocolID == .secureChannel && report.protocolCode == StatusReport.SecureChannelCode.noSharedTrustRoots {
            self = .noSharedTrustRoots
        } else {
            self = .peerReportedFailure(step: step, report: report)
        }
    }
}

/// Runs a crypto primitive of our own side of a handshake; its error is ours, not the peer's.
func crypto<T>(_ body: @autoclosure () throws(CryptoError) -> T) throws(SecureChannelError) -> T {
    do { return try body() } catch { throw .crypto(error) }
}
