import MatterCertificates
import MatterCommissioning
import MatterInteraction
import MatterInteractionMessaging
import MatterVirtualDevice
import Synchronization
import Testing

/// The commissioner against the strict virtual device, in process: every step in the spec's
/// order, each fault switch ending in its named step with a code and a hint, and the device's
/// fail-safe disarmed (its fabric rolled back) after every failure.
@Suite struct CommissionerTests {
    @Test func commissionsInTheSpecsOrder() async throws {
        let harness = try await CommissioningHarness.make()
        defer { Task { await harness.shutdown() } }
        let seenNOCs = Mutex<[IssuedCertificate]>([])
        let stepsSeen = Mutex<[CommissioningStep]>([])
        let hooks = CommissioningHooks(onStep: { timing in stepsSeen.withLock { $0.append(timing.step) } },
                                       willAddNOC: { installation in
                                           #expect(installation.vendorID == 0xFFF1 && installation.nodeID == 0x42)
                                           seenNOCs.withLock { $0.append(installation.noc) }
                                       })
        let result = try await harness.commissioner.commission(harness.payload, nodeID: 0x42, hooks: hooks)

        #expect(result.nodeID == 0x42 && result.vendorID == 0xFFF1 && result.productID == 0x8000)
        let steps = result.timings.map(\.step)
        #expect(steps == [.discovery, .pase, .readCommissioningInfo, .armFailSafe, .regulatoryConfig, .deviceAttestation,
                          .csr, .addTrustedRoot, .addNOC, .case, .commissioningComplete])
        #expect(stepsSeen.withLock { $0 } == steps)
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.specNumber <= $1.specNumber })
        #expect(result.timings.allSatisfy { $0.milliseconds >= 0 })
        // The hub's hook saw the NOC of this node before AddNOC, once.
        let nocs = seenNOCs.withLock { $0 }
        #expect(nocs.count == 1)
        #expect(try nocs.first.map { try MatterCertificate(tlvEncoded: $0.tlv).subject.nodeID?.rawValue } == 0x42)
        #expect(await harness.device.isCommissioned)
        #expect(await !harness.device.isFailSafeArmed)
        #expect(result.warnings.contains { $0.contains("test") })
    }

    struct FaultCase: Sendable, CustomTestStringConvertible {
        var fault: VirtualDeviceFault
        var step: CommissioningStep
        var code: CommissioningError.Code
        /// For a failed exchange: the cause the error must carry (a timeout is not a closed session).
        var exchange: ExchangeFailure.Kind? = nil
        var testDescription: String { fault.rawValue }
    }

    /// `reboot-mid-commissioning` exits the device's process, so the lab tests cover it.
    @Test(arguments: [
        FaultCase(fault: .invalidAttestation, step: .deviceAttestation, code: .attestationFailed),
        FaultCase(fault: .cdVendorMismatch, step: .deviceAttestation, code: .attestationFailed),
        FaultCase(fault: .badSigma2Signature, step: .case, code: .caseFailed),
        FaultCase(fault: .dropResponses, step: .readCommissioningInfo, code: .noResponse, exchange: .timeout),
        FaultCase(fault: .slowResponses, step: .readCommissioningInfo, code: .noResponse, exchange: .timeout),
        FaultCase(fault: .closeSession, step: .readCommissioningInfo, code: .sessionClosed, exchange: .closedByPeer),
    ])
    func faultEndsInItsStep(_ c: FaultCase) async throws {
        // The two faults that are about no answer get 1.6 s: below the slow-responses fault's 2 s,
        // and twice what ran out at arm-fail-safe on a loaded machine (800 ms). The others get
        // the harness's 10 s, so a starved CSR or attestation step cannot time out first.
        let silent = c.fault == .dropResponses || c.fault == .slowResponses
        let harness = try await CommissioningHarness.make(faults: [c.fault], responseTimeout: silent ? .milliseconds(1600) : .seconds(10))
        defer { Task { await harness.shutdown() } }
        do {
            _ = try await harness.commissioner.commission(harness.payload, nodeID: 0x43)
            Issue.record("\(c.fault.rawValue): commissioning succeeded")
        } catch {
            #expect(error.step == c.step, "\(error)")
            #expect(error.code == c.code, "\(error)")
            #expect(!error.hint.isEmpty && error.description.contains(error.hint))
            if c.code == .attestationFailed { #expect(error.attestationResult != nil) }
            if let kind = c.exchange {
                guard case .exchangeFailed(let failure)? = error.underlying as? InteractionError else {
                    Issue.record("\(c.fault.rawValue): the error does not carry the exchange failure: \(String(describing: error.underlying))")
                    return
                }
                #expect(failure.kind == kind, "\(failure)")
                #expect(failure.messagingError != nil, "the messaging layer's own error is kept")
            }
        }
        // Disarmed on failure: the device rolled back and holds no fabric of ours.
        #expect(await !harness.device.isFailSafeArmed, "\(c.fault.rawValue): the fail-safe is still armed")
        #expect(await !harness.device.isCommissioned)
    }

    @Test func wrongPasscodeIsNamed() async throws {
        let harness = try await CommissioningHarness.make()
        defer { Task { await harness.shutdown() } }
        var payload = harness.payload
        payload.passcode = 20_202_022
        do {
            _ = try await harness.commissioner.commission(payload, nodeID: 0x44)
            Issue.record("a wrong passcode was accepted")
        } catch {
            #expect(error.step == .pase && error.code == .wrongPasscode && error.isWrongPasscode)
        }
    }

    /// A hub that cannot record the node before AddNOC stops the commissioning there: the
    /// device never gets a certificate the hub does not know.
    @Test func failingToRecordTheNodeStopsBeforeAddNOC() async throws {
        struct StoreDown: Error {}
        let harness = try await CommissioningHarness.make()
        defer { Task { await harness.shutdown() } }
        do {
            _ = try await harness.commissioner.commission(harness.payload, nodeID: 0x45,
                                                          hooks: CommissioningHooks(willAddNOC: { _ in throw StoreDown() }))
            Issue.record("commissioning went on without the node recorded")
        } catch {
            #expect(error.step == .addNOC && error.code == .hubFailure, "\(error)")
        }
        #expect(await !harness.device.isFailSafeArmed)
        #expect(await !harness.device.isCommissioned)
        #expect(await harness.device.fabricIndexes.isEmpty)
    }
}
