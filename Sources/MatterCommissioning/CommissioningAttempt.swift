import MatterCertificates
import MatterClusters
import MatterInteraction
import MatterInteractionMessaging
import MatterMessaging
import MatterSecureChannel
import MatterSetupPayload
import MatterTLV

/// One commissioning attempt: what it has learned so far, and the loop that runs its steps.
/// One task owns it from start to end.
final class CommissioningAttempt {
    /// A step of the table: what it is, and what it does with the attempt.
    struct Step: Sendable {
        var step: CommissioningStep
        /// A step that includes another (18 includes 19, as in matter.js) records its own timings.
        var recordsOwnTiming = false
        /// Whether the step runs for this device (the network steps only for a Wi-Fi or Thread
        /// device that is not on the operational network yet). A step that does not apply is
        /// neither run nor timed.
        var applies: @Sendable (CommissioningAttempt) -> Bool = { _ in true }
        /// Re-arm the fail-safe before the step even when more than half of it is left (before
        /// ConnectNetwork, as the CHIP SDK's FailsafeBefore*Enable stages do).
        var reArmsFailSafe = false
        var run: @Sendable (CommissioningAttempt) async throws(CommissioningError) -> Void
    }

    /// The steps after PASE, in the order of Matter Core 5.5.
    static let steps: [Step] = [
        Step(step: .readCommissioningInfo) { attempt throws(CommissioningError) in try await attempt.readCommissioningInfo() },
        Step(step: .armFailSafe) { attempt throws(CommissioningError) in try await attempt.armFailSafe() },
        Step(step: .regulatoryConfig) { attempt throws(CommissioningError) in try await attempt.configureRegulatory() },
        Step(step: .deviceAttestation) { attempt throws(CommissioningError) in try await attempt.attest() },
        Step(step: .csr) { attempt throws(CommissioningError) in try await attempt.requestNOC() },
        Step(step: .addTrustedRoot) { attempt throws(CommissioningError) in try await attempt.addTrustedRoot() },
        Step(step: .addNOC) { attempt throws(CommissioningError) in try await attempt.addNOC() },
        Step(step: .scanNetworks, applies: { $0.networkPlan != nil && $0.options.scanNetworks }) { attempt throws(CommissioningError) in
            try await attempt.scanNetworks()
        },
        Step(step: .addNetwork, applies: { $0.networkPlan != nil }) { attempt throws(CommissioningError) in try await attempt.addNetwork() },
        Step(step: .connectNetwork, applies: { $0.networkPlan != nil }, reArmsFailSafe: true) { attempt throws(CommissioningError) in
            try await attempt.connectNetwork()
        },
        Step(step: .operationalDiscovery, recordsOwnTiming: true) { attempt throws(CommissioningError) in
            try await attempt.reachOperationalNode()
        },
        Step(step: .commissioningComplete) { attempt throws(CommissioningError) in try await attempt.complete() },
    ]

    let commissioner: Commissioner
    let payload: SetupPayload
    let nodeID: NodeID
    let hooks: CommissioningHooks
    let clock = ContinuousClock()

    private(set) var timings: [StepTiming] = []
    var warnings: [String] = []
    // What the steps learn, in the order they learn it.
    var pase: PASEOnlyCommissioning.Report?
    var info: DeviceInfo?
    var networkInterfaces: NetworkInterfaces?
    /// Set when the device needs steps 16-17.
    var networkPlan: NetworkPlan?
    var failSafe: FailSafeTimer?
    var attestation: AttestationOutcome?
    var noc: IssuedCertificate?
    var operational: CASEInitiator.Result?

    init(commissioner: Commissioner, payload: SetupPayload, nodeID: NodeID, hooks: CommissioningHooks) {
        self.commissioner = commissioner
        self.payload = payload
        self.nodeID = nodeID
        self.hooks = hooks
    }

    var manager: ExchangeManager { commissioner.manager }
    var identity: CommissionerIdentity { commissioner.identity }
    var options: CommissioningOptions { commissioner.options }
    var label: String { pase.map { "\($0.device)" } ?? PASEOnlyCommissioning.label(payload) }

    func perform() async throws(CommissioningError) -> CommissioningResult {
        // 2 and 6: discovery and PASE, which time themselves (each candidate in turn).
        let pase = try await PASEOnlyCommissioning(finder: commissioner.finder, discoveryTimeout: options.discoveryTimeout,
                                                   onStep: hooks.onStep).run(payload: payload, manager: manager)
        self.pase = pase
        timings += pase.timings

        for step in Self.steps where step.applies(self) {
            try await reArmFailSafeIfNeeded(before: step.step, always: step.reArmsFailSafe)
            let start = clock.now
            try await step.run(self)
            if !step.recordsOwnTiming { record(step.step, since: start) }
        }

        guard let info, let attestation, let operational else {
            preconditionFailure("the commissioning steps ended without the device info, attestation or CASE session")
        }
        // The commissioning channel is done: the device hears so (CloseSession) and frees it.
        await manager.closeSession(pase.session)
        self.pase = nil
        let address = await manager.secureSession(operational.session)?.peerAddress ?? pase.address
        return CommissioningResult(nodeID: nodeID, vendorID: info.vendorID, productID: info.productID, device: pase.device,
                                   operationalAddress: address, caseSession: operational.session, timings: timings,
                                   attestation: attestation.verification, warnings: warnings)
    }

    /// Records a step's timing and tells the caller.
    func record(_ step: CommissioningStep, since start: ContinuousClock.Instant) {
        let timing = StepTiming(step: step, milliseconds: (clock.now - start).milliseconds)
        timings.append(timing)
        hooks.onStep(timing)
    }

    func fail(_ step: CommissioningStep, _ code: CommissioningError.Code, _ reason: String, _ hint: String,
              cause: (any Error & Sendable)? = nil) -> CommissioningError {
        CommissioningError(step: step, device: label, code: code, reason: reason, hint: hint, underlying: cause)
    }

    /// The client of the commissioning channel (PASE) until CommissioningComplete.
    var commissioningClient: InteractionClient {
        guard let pase else { preconditionFailure("no PASE session") }
        return InteractionClient.over(manager, session: pase.session, timeout: options.responseTimeout)
    }

    /// Runs an IM interaction of a step, turning its errors into the step's error.
    func im<T>(_ step: CommissioningStep, _ body: () async throws -> T) async throws(CommissioningError) -> T {
        do {
            return try await body()
        } catch let e as InteractionError {
            switch e {
            case .status:
                throw fail(step, .deviceRefused, e.description,
                           "The device refused the request; retry, or reset the device if it keeps failing.", cause: e)
            case .exchangeFailed(let failure):
                throw exchangeFailed(step, failure, e)
            case .malformed, .invalidValue, .unexpectedMessage:
                throw fail(step, .protocolError, e.description, "The device answered with something unexpected; retry, or report it.",
                           cause: e)
            }
        } catch {
            throw fail(step, .protocolError, "\(error)", "Check that the device is still reachable and retry.")
        }
    }

    /// An exchange that failed below the Interaction Model, by its real cause.
    func exchangeFailed(_ step: CommissioningStep, _ failure: ExchangeFailure, _ error: InteractionError) -> CommissioningError {
        switch failure.kind {
        case .timeout, .unreachable:
            return fail(step, .noResponse, "the device did not answer: \(failure)",
                        "Check that the device is still powered and on this network, and retry.", cause: error)
        case .closedByPeer:
            return fail(step, .sessionClosed, "the device closed the session",
                        "The device ended commissioning (it may have been reset, or timed out its window); open its commissioning window and retry.",
                        cause: error)
        case .closed:
            return fail(step, .sessionClosed, "the session to the device ended: \(failure)", "Retry.", cause: error)
        case .network:
            return fail(step, .networkError, "the network refused the message: \(failure)",
                        "Check that this machine still has a route to the device (same network, interface up), and retry.", cause: error)
        case .cancelled:
            return fail(step, .cancelled, "cancelled", "Start again when ready.", cause: error)
        default:
            return fail(step, .protocolError, error.description, "The device answered with something unexpected; retry, or report it.",
                        cause: error)
        }
    }

    /// Matter Core 5.5 step 7: the fail-safe is kept armed, up to the device's cumulative limit.
    func reArmFailSafeIfNeeded(before step: CommissioningStep, always: Bool = false) async throws(CommissioningError) {
        guard var timer = failSafe, always ? timer.canReArm(at: clock.now) : timer.needsReArm(at: clock.now) else { return }
        let breadcrumb = UInt64(step.specNumber)
        let response = try await im(step) {
            try await commissioningClient.invoke(Clusters.GeneralCommissioning.ArmFailSafe(
                expiryLengthSeconds: timer.seconds, breadcrumb: breadcrumb), endpoint: 0)
        }
        guard response.errorCode == .ok else {
            throw fail(step, .deviceRefused, "re-arming the fail-safe: the device answered \(response.errorCode.rawValue) \(response.debugText)",
                       "Commissioning took longer than the device allows; retry.")
        }
        timer.reArmed(at: clock.now)
        failSafe = timer
    }

    /// After a failure: disarms the fail-safe so the device rolls back, and drops the PASE
    /// session. The device arms the fail-safe itself when PASE is established (Matter Core
    /// 11.10.7.2), so it is disarmed even when the failure came before step 7; a device that no
    /// longer answers still acts on it, or rolls back when the fail-safe expires.
    func abort() async {
        guard let session = pase?.session else { return }
        let client = InteractionClient.over(manager, session: session, timeout: min(options.responseTimeout, .seconds(5)))
        _ = try? await client.invoke(Clusters.GeneralCommissioning.ArmFailSafe(expiryLengthSeconds: 0, breadcrumb: 0), endpoint: 0)
        failSafe = nil
        await manager.closeSession(session)
        pase = nil
    }
}

/// What device attestation established: the verifier's verdict and the DAC it checked (whose
/// key then verifies the operational CSR).
struct AttestationOutcome: Sendable {
    var verification: AttestationVerification
    var dac: [UInt8]
}
