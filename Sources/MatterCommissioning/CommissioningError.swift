import MatterSecureChannel

/// A numbered step of commissioning over IP (Matter Core 5.5), used in progress reports,
/// timings and errors.
public enum CommissioningStep: String, Sendable, CaseIterable {
    case discovery
    case pase
    case readCommissioningInfo = "read-commissioning-info"
    case armFailSafe = "arm-fail-safe"
    case regulatoryConfig = "regulatory-config"
    case deviceAttestation = "device-attestation"
    case csr
    case addTrustedRoot = "add-trusted-root"
    case addNOC = "add-noc"
    case operationalDiscovery = "operational-discovery"
    case `case` = "case"
    case commissioningComplete = "commissioning-complete"

    /// How the step reads in messages.
    public var title: String {
        switch self {
        case .discovery: return "discovery"
        case .pase: return "PASE"
        case .readCommissioningInfo: return "reading commissioning info"
        case .armFailSafe: return "arming the fail-safe"
        case .regulatoryConfig: return "regulatory configuration"
        case .deviceAttestation: return "device attestation"
        case .csr: return "operational CSR"
        case .addTrustedRoot: return "installing the root certificate"
        case .addNOC: return "installing the operational certificate"
        case .operationalDiscovery: return "operational discovery"
        case .case: return "CASE"
        case .commissioningComplete: return "CommissioningComplete"
        }
    }
}

/// The time one step took.
public struct StepTiming: Sendable, Hashable {
    public var step: CommissioningStep
    public var milliseconds: Double
    public init(step: CommissioningStep, milliseconds: Double) {
        self.step = step
        self.milliseconds = milliseconds
    }
}

/// A commissioning failure: which step, which device, what happened and what the user can try.
public struct CommissioningError: Error, Sendable, CustomStringConvertible {
    public var step: CommissioningStep
    /// The device as the user knows it (discriminator, instance name, address).
    public var device: String
    public var reason: String
    public var hint: String
    /// For PASE failures: whether the passcode was wrong (a named case tools check).
    public var isWrongPasscode: Bool

    public init(step: CommissioningStep, device: String, reason: String, hint: String, isWrongPasscode: Bool = false) {
        self.step = step
        self.device = device
        self.reason = reason
        self.hint = hint
        self.isWrongPasscode = isWrongPasscode
    }

    public var description: String {
        "\(step.title) failed for \(device): \(reason). \(hint)"
    }

    static func pase(_ error: SecureChannelError, device: String) -> CommissioningError {
        switch error {
        case .wrongPasscode:
            return CommissioningError(step: .pase, device: device, reason: "the passcode in the setup code is wrong",
                                      hint: "Check the setup code on the device or its packaging; a reset device may show a new one.",
                                      isWrongPasscode: true)
        case .noResponse:
            return CommissioningError(step: .pase, device: device, reason: error.description,
                                      hint: "Make sure the device is powered, on this network, and its commissioning window is open.")
        default:
            return CommissioningError(step: .pase, device: device, reason: error.description,
                                      hint: "Retry; if it keeps failing, reset the device to open a new commissioning window.")
        }
    }
}
