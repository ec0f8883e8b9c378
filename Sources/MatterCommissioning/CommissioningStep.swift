/// A step of commissioning over IP, numbered as Matter Core 5.5 numbers the commissioning flow
/// (matter.js's ControllerCommissioningFlow uses the same numbers). Used in progress reports,
/// timings and errors.
public enum CommissioningStep: String, Sendable, CaseIterable {
    /// 2: find the commissionable device (`_matterc._udp`).
    case discovery
    /// 6: PASE, the commissioning channel.
    case pase
    /// 6 (after PASE, before the fail-safe): vendor, product, fail-safe limits, regulatory
    /// capability, read over the PASE session (matter.js's "GetInitialData").
    case readCommissioningInfo = "read-commissioning-info"
    /// 7: ArmFailSafe.
    case armFailSafe = "arm-fail-safe"
    /// 8: SetRegulatoryConfig.
    case regulatoryConfig = "regulatory-config"
    /// 10: device attestation (PAI, DAC, AttestationRequest, verification).
    case deviceAttestation = "device-attestation"
    /// 11: CSRRequest and NOC issuance.
    case csr
    /// 12: AddTrustedRootCertificate.
    case addTrustedRoot = "add-trusted-root"
    /// 13: AddNOC.
    case addNOC = "add-noc"
    /// 16 (optional): ScanNetworks, so a network out of range is named before credentials go.
    case scanNetworks = "scan-networks"
    /// 16: AddOrUpdateWiFiNetwork or AddOrUpdateThreadNetwork, for a Wi-Fi or Thread device
    /// that is not on the operational network yet.
    case addNetwork = "add-network"
    /// 17: ConnectNetwork, after re-arming the fail-safe.
    case connectNetwork = "connect-network"
    /// 18: operational discovery (`_matter._tcp`), when the PASE address does not answer CASE.
    case operationalDiscovery = "operational-discovery"
    /// 19: CASE to the new node.
    case `case` = "case"
    /// 20: CommissioningComplete over CASE.
    case commissioningComplete = "commissioning-complete"

    /// The step's number in Matter Core 5.5's commissioning flow.
    public var specNumber: Int {
        switch self {
        case .discovery: 2
        case .pase, .readCommissioningInfo: 6
        case .armFailSafe: 7
        case .regulatoryConfig: 8
        case .deviceAttestation: 10
        case .csr: 11
        case .addTrustedRoot: 12
        case .addNOC: 13
        case .scanNetworks, .addNetwork: 16
        case .connectNetwork: 17
        case .operationalDiscovery: 18
        case .case: 19
        case .commissioningComplete: 20
        }
    }

    /// How the step reads in messages.
    public var title: String {
        switch self {
        case .discovery: "discovery"
        case .pase: "PASE"
        case .readCommissioningInfo: "reading commissioning info"
        case .armFailSafe: "arming the fail-safe"
        case .regulatoryConfig: "regulatory configuration"
        case .deviceAttestation: "device attestation"
        case .csr: "operational CSR"
        case .addTrustedRoot: "installing the root certificate"
        case .addNOC: "installing the operational certificate"
        case .scanNetworks: "scanning for the network"
        case .addNetwork: "giving the network credentials"
        case .connectNetwork: "joining the operational network"
        case .operationalDiscovery: "operational discovery"
        case .case: "CASE"
        case .commissioningComplete: "CommissioningComplete"
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
