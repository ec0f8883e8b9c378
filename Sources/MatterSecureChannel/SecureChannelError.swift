import MatterCrypto
import MatterMessaging

/// Why a PASE or CASE handshake failed. Messages name the step and what the user can do; they
/// never include passcodes or keys.
public enum SecureChannelError: Error, Hashable, Sendable, CustomStringConvertible {
    /// PASE: the peer's confirmation did not verify, or the peer rejected ours.
    case wrongPasscode
    /// The peer sent a StatusReport instead of the next handshake message.
    case peerReportedFailure(step: String, report: StatusReport)
    /// A handshake message could not be decoded.
    case malformed(message: String, reason: String)
    /// A message of the wrong kind arrived.
    case unexpectedMessage(step: String, opcode: UInt8)
    /// The device's PBKDF parameters are outside the spec's bounds.
    case invalidPBKDFParameters(String)
    /// No answer in time, or the peer never acknowledged.
    case noResponse(step: String, underlying: MessagingError)
    /// The task running the handshake was cancelled while it waited.
    case cancelled(step: String)
    /// CASE: the peer's certificates or signature did not verify.
    case peerAuthenticationFailed(String)
    /// CASE: the peer does not share our fabric's trusted root.
    case noSharedTrustRoots
    /// A crypto primitive failed on our side.
    case crypto(CryptoError)
    /// Something else failed on our side (a local send error, an exchange that cannot open).
    case internalError(String)

    public var description: String {
        switch self {
        case .wrongPasscode:
            return "PASE failed: the setup code's passcode does not match the device (check the code, or the device may have been reset to another one)"
        case .peerReportedFailure(let step, let report):
            return "\(step): the device answered with status \(report.summary)"
        case .malformed(let m, let r):
            return "received a malformed \(m): \(r)"
        case .unexpectedMessage(let step, let op):
            return "\(step): unexpected message (opcode 0x\(String(op, radix: 16)))"
        case .invalidPBKDFParameters(let why):
            return "PASE failed: the device's PBKDF parameters are invalid: \(why)"
        case .noResponse(let step, let e):
            return "\(step): \(e.description); check that the device is powered, on this network and in commissioning mode"
        case .peerAuthenticationFailed(let why):
            return "CASE failed: the peer could not be authenticated: \(why)"
        case .noSharedTrustRoots:
            return "CASE failed: the peer does not trust this fabric's root certificate"
        case .cancelled(let step):
            return "\(step): the handshake was cancelled"
        case .crypto(let error):
            return "secure channel internal error: \(error)"
        case .internalError(let why):
            return "secure channel internal error: \(why)"
        }
    }
}
