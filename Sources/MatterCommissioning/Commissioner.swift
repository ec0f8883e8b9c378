import MatterCertificates
import MatterMessaging
import MatterSetupPayload
import MatterTLV

/// A commissioned node, with how it went.
public struct CommissioningResult: Sendable {
    public var nodeID: NodeID
    public var vendorID: UInt16
    public var productID: UInt16
    public var device: DeviceCandidate
    public var operationalAddress: PeerAddress
    public var caseSession: SessionHandle
    public var timings: [StepTiming]
    public var attestation: AttestationVerification
    /// Things the user should know (e.g. a test device accepted on request).
    public var warnings: [String]
}

/// A node's operational certificate about to be installed (Matter Core 5.5 step 13).
public struct NOCInstallation: Sendable {
    public var nodeID: NodeID
    public var noc: IssuedCertificate
    /// Who the device said it is (BasicInformation, read over PASE; attested).
    public var vendorID: UInt16
    public var productID: UInt16
    /// Where commissioning reached it.
    public var address: PeerAddress
}

/// What the caller is told while a commissioning runs, and where it may step in.
public struct CommissioningHooks: Sendable {
    /// Each step's timing, as it ends.
    public var onStep: @Sendable (StepTiming) -> Void
    /// Called with the node's operational certificate just before AddNOC is sent. A hub records
    /// the node as pending here, so a crash after AddNOC cannot leave a device on its fabric
    /// that it does not know; a throw stops the commissioning (the fail-safe is disarmed).
    public var willAddNOC: @Sendable (NOCInstallation) async throws -> Void

    public init(onStep: @escaping @Sendable (StepTiming) -> Void = { _ in },
                willAddNOC: @escaping @Sendable (NOCInstallation) async throws -> Void = { _ in }) {
        self.onStep = onStep
        self.willAddNOC = willAddNOC
    }
}

/// Commissions one device onto the commissioner's fabric over IP, in the steps of Matter Core
/// 5.5 (numbered as the spec numbers them, see `CommissioningStep`):
///
/// - 2 discovery (`_matterc._udp` by the code's long or short discriminator) and 6 PASE with
///   the code's passcode, each candidate address in turn;
/// - 6 read the commissioning info (vendor, product, fail-safe limits, location capability);
/// - 7 ArmFailSafe; 8 SetRegulatoryConfig;
/// - 10 device attestation: PAI and DAC, AttestationRequest with a random nonce, verification
///   against the PAA trust store (strict unless test devices are allowed);
/// - 11 CSRRequest with a random nonce, NOCSR verification, a NOC for the CSR's key;
/// - 12 AddTrustedRootCertificate; 13 AddNOC (IPK, CaseAdminSubject, AdminVendorId);
/// - 16 and 17, only for a Wi-Fi or Thread device not on the operational network yet (read
///   from its NetworkCommissioning clusters in step 6): ScanNetworks when asked,
///   AddOrUpdateWiFiNetwork or AddOrUpdateThreadNetwork, then ConnectNetwork after re-arming the
///   fail-safe, with the device's ConnectMaxTimeSeconds added to the timeout;
/// - 18 operational discovery and 19 CASE: the PASE address first, `_matter._tcp` otherwise;
/// - 20 CommissioningComplete over CASE.
///
/// One loop (`CommissioningAttempt.perform`) runs the steps after PASE: it times each, re-arms
/// the fail-safe when less than half of it is left, and on any failure disarms it
/// (ArmFailSafe 0, so the device rolls back what was installed) before the error, which names
/// the step, the device, a code and what to try, reaches the caller.
public struct Commissioner: Sendable {
    public let manager: ExchangeManager
    public let identity: CommissionerIdentity
    public let options: CommissioningOptions
    public let finder: DeviceFinder

    public init(manager: ExchangeManager, identity: CommissionerIdentity, options: CommissioningOptions,
                finder: DeviceFinder = DeviceFinder()) {
        self.manager = manager
        self.identity = identity
        self.options = options
        self.finder = finder
    }

    public func commission(_ payload: SetupPayload, nodeID: NodeID,
                           onStep: @escaping @Sendable (StepTiming) -> Void = { _ in }) async throws(CommissioningError) -> CommissioningResult {
        try await commission(payload, nodeID: nodeID, hooks: CommissioningHooks(onStep: onStep))
    }

    public func commission(_ payload: SetupPayload, nodeID: NodeID,
                           hooks: CommissioningHooks) async throws(CommissioningError) -> CommissioningResult {
        let attempt = CommissioningAttempt(commissioner: self, payload: payload, nodeID: nodeID, hooks: hooks)
        do {
            return try await attempt.perform()
        } catch {
            await attempt.abort()
            throw error
        }
    }
}
