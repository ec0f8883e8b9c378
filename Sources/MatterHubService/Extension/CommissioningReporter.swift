import FoundationEssentials
import MatterCommissioning
import MatterHome
import MatterServerAPI

/// Turns one commissioning request's progress into `matterhub/commissioning_*` events: started,
/// each step of each device as it finishes, the step that failed, finished.
struct CommissioningReporter: Sendable {
    let requestID = UUID().uuidString.lowercased()
    let start = ContinuousClock.now
    let publish: @Sendable (HubEvent) -> Void

    var elapsed: Int { Int((ContinuousClock.now - start).milliseconds) }

    func started(devices: Int, source: HubEvent.Source) {
        publish(.commissioningStarted(requestID: requestID, devices: devices, source: source))
    }

    /// For `MatterCommissioningRequest.perform(onStep:)`.
    var onStep: @Sendable (Int, StepTiming) -> Void {
        { [self] device, timing in
            publish(.commissioningStep(HubCommissioningStep(
                requestID: requestID, device: device, step: timing.step.rawValue, specNumber: timing.step.specNumber,
                title: timing.step.title, stepMilliseconds: timing.milliseconds, elapsedMilliseconds: elapsed, result: .ok)))
        }
    }

    /// The failed step of each device that failed, then the end of the request.
    func finished(_ results: [Result<CommissionedDevice, CommissioningError>]) -> [HubDeviceOutcome] {
        for (device, result) in results.enumerated() {
            guard case .failure(let e) = result else { continue }
            publish(.commissioningStep(HubCommissioningStep(
                requestID: requestID, device: device, step: e.step.rawValue, specNumber: e.step.specNumber, title: e.step.title,
                stepMilliseconds: 0, elapsedMilliseconds: elapsed, result: .failed, error: HubCommissioningFailure(e))))
        }
        let outcomes = results.enumerated().map { HubDeviceOutcome(device: $0.offset, $0.element) }
        publish(.commissioningFinished(requestID: requestID, results: outcomes))
        return outcomes
    }
}
