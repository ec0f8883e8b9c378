import MatterCertificates
import MatterClusters
import MatterInteraction
import MatterSecureChannel

/// A commissioning failure: which step, which device, what happened (as a code tools can act
/// on, and as text) and what the user can try.
public struct CommissioningError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for tools. New codes may be added (as swift-certificates' error codes).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The passcode in the setup code is wrong (PASE).
        public static let wrongPasscode = Code(rawValue: "wrong-passcode")
        /// No commissionable device matching the code was found.
        public static let deviceNotFound = Code(rawValue: "device-not-found")
        /// avahi-daemon (DNS-SD) could not be used.
        public static let discoveryUnavailable = Code(rawValue: "discovery-unavailable")
        /// The device stopped answering.
        public static let noResponse = Code(rawValue: "no-response")
        /// The device ended the secure session (CloseSession), or it ended on this side.
        public static let sessionClosed = Code(rawValue: "session-closed")
        /// The network refused to carry the messages (no route to the device, port unreachable).
        public static let networkError = Code(rawValue: "network-error")
        /// The device answered with an error status (IM status, cluster error, NOC status).
        public static let deviceRefused = Code(rawValue: "device-refused")
        /// Device attestation failed; `attestationResult` says which rule.
        public static let attestationFailed = Code(rawValue: "attestation-failed")
        /// The device's operational CSR did not verify.
        public static let invalidCSR = Code(rawValue: "invalid-csr")
        /// The device took its certificate but never answered on the operational network.
        public static let operationalNotFound = Code(rawValue: "operational-not-found")
        /// CASE to the new node failed.
        public static let caseFailed = Code(rawValue: "case-failed")
        /// A secure-channel or protocol failure that fits no other code.
        public static let protocolError = Code(rawValue: "protocol-error")
        /// Commissioning was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
        /// The hub refused to go on (e.g. it could not record the node before AddNOC).
        public static let hubFailure = Code(rawValue: "hub-failure")
        /// A Wi-Fi or Thread device needs network credentials and none were given or stored.
        public static let networkCredentialsMissing = Code(rawValue: "network-credentials-missing")
        /// The device refused the network credentials (NetworkCommissioningStatus AuthFailure).
        public static let wrongNetworkCredentials = Code(rawValue: "wrong-network-credentials")
        /// The device cannot find the network (NetworkCommissioningStatus NetworkNotFound, or
        /// a directed scan that did not see it).
        public static let networkNotFound = Code(rawValue: "network-not-found")
        /// Network commissioning failed with another NetworkCommissioningStatus (`networkStatus`).
        public static let networkCommissioningFailed = Code(rawValue: "network-commissioning-failed")
    }

    public var step: CommissioningStep
    /// The device as the user knows it (discriminator, instance name, address).
    public var device: String
    public var code: Code
    public var reason: String
    public var hint: String
    /// For `attestationFailed`: the rule that failed.
    public var attestationResult: AttestationVerificationResult?
    /// For the network steps: the NetworkCommissioningStatus the device answered.
    public var networkStatus: Clusters.NetworkCommissioning.Status?
    /// The lower layer's error this one was made from (an `InteractionError`, a
    /// `SecureChannelError`...), for callers that act on more than the code.
    public var underlying: (any Error & Sendable)?

    public init(step: CommissioningStep, device: String, code: Code, reason: String, hint: String,
                attestationResult: AttestationVerificationResult? = nil,
                networkStatus: Clusters.NetworkCommissioning.Status? = nil, underlying: (any Error & Sendable)? = nil) {
        self.step = step
        self.device = device
        self.code = code
        self.reason = reason
        self.hint = hint
        self.attestationResult = attestationResult
        self.networkStatus = networkStatus
        self.underlying = underlying
    }

    /// Whether the passcode was wrong (the case tools check most often).
    public var isWrongPasscode: Bool { code == .wrongPasscode }

    public var description: String {
        "\(step.title) failed for \(device): \(reason). \(hint)"
    }

    static func pase(_ error: SecureChannelError, device: String) -> CommissioningError {
        switch error {
        case .wrongPasscode:
            CommissioningError(step: .pase, device: device, code: .wrongPasscode, reason: "the passcode in the setup code is wrong",
                               hint: "Check the setup code on the device or its packaging; a reset device may show a new one.")
        case .noResponse:
            CommissioningError(step: .pase, device: device, code: .noResponse, reason: error.description,
                               hint: "Make sure the device is powered, on this network, and its commissioning window is open.")
        default:
            CommissioningError(step: .pase, device: device, code: .protocolError, reason: error.description,
                               hint: "Retry; if it keeps failing, reset the device to open a new commissioning window.")
        }
    }
}
