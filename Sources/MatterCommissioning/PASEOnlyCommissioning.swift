import MatterDiscovery
import MatterMessaging
import MatterSecureChannel
import MatterSetupPayload

/// `commission --pase-only`, like chip-tool's `pairing code-paseonly`: find the device, open a
/// PASE session, report what each step took, close.
public struct PASEOnlyCommissioning: Sendable {
    public struct Report: Sendable {
        public var device: DeviceCandidate
        public var address: PeerAddress
        public var timings: [StepTiming]
        public var session: SessionHandle
    }

    public var finder: DeviceFinder
    public var discoveryTimeout: Duration
    public var onStep: @Sendable (StepTiming) -> Void

    public init(finder: DeviceFinder = DeviceFinder(), discoveryTimeout: Duration = .seconds(15),
                onStep: @escaping @Sendable (StepTiming) -> Void = { _ in }) {
        self.finder = finder
        self.discoveryTimeout = discoveryTimeout
        self.onStep = onStep
    }

    /// 1. Discovery: browse `_matterc._udp` by the code's discriminator; 2. PASE with each
    /// candidate address in turn until one answers. A wrong passcode stops the attempt.
    public func run(payload: SetupPayload, manager: ExchangeManager) async throws(CommissioningError) -> Report {
        let label = Self.label(payload)
        let clock = ContinuousClock()
        let start = clock.now
        var discoveryTime: Double?
        var lastError: CommissioningError?
        do {
            for try await candidate in finder.candidates(for: payload, timeout: discoveryTimeout) {
                if discoveryTime == nil {
                    discoveryTime = (clock.now - start).milliseconds
                    onStep(StepTiming(step: .discovery, milliseconds: discoveryTime!))
                }
                for address in candidate.addresses {
                    let paseStart = clock.now
                    do {
                        let session = try await PASEInitiator.establish(manager: manager, peer: address, passcode: payload.passcode,
                                                                        peerMRP: candidate.mrp)
                        let pase = StepTiming(step: .pase, milliseconds: (clock.now - paseStart).milliseconds)
                        onStep(pase)
                        return Report(device: candidate, address: address,
                                      timings: [StepTiming(step: .discovery, milliseconds: discoveryTime!), pase], session: session)
                    } catch {
                        let e = CommissioningError.pase(error, device: "\(label) at \(address)")
                        if e.isWrongPasscode { throw e }
                        lastError = e
                    }
                }
            }
        } catch let e as CommissioningError {
            throw e
        } catch let e as DiscoveryError {
            throw CommissioningError(step: .discovery, device: label, code: .discoveryUnavailable, reason: e.description,
                                     hint: "MatterHub finds devices through avahi-daemon.")
        } catch {
            throw CommissioningError(step: .discovery, device: label, code: .protocolError, reason: "\(error)", hint: "Retry.")
        }
        if let lastError { throw lastError }
        throw CommissioningError(step: .discovery, device: label, code: .deviceNotFound,
                                 reason: "no commissionable device answered within \(discoveryTimeout)",
                                 hint: "Check that the device is powered and on the same network, and put it in pairing mode (a factory reset opens its window again).")
    }

    static func label(_ p: SetupPayload) -> String {
        switch p.discriminator {
        case .long(let d): return "the device with discriminator \(d)"
        case .short(let s): return "the device with short discriminator \(s)"
        }
    }

}
