import MatterMessaging
import MatterSetupPayload

/// Commissioning a device known only by its setup PIN: a device shared from another ecosystem,
/// whose app shows the passcode and no QR code (Home Assistant's "shared device" screen and its
/// Android app send `commission_on_network` with the PIN alone, sometimes with an address).
///
/// Every device whose commissioning window is open (`_CM`) is a candidate, tried as it is found,
/// by its own long discriminator from its TXT record (the one at `address` only, when given).
/// A candidate that fails discovery or PASE is not the device (a wrong PIN fails in one PASE
/// round trip) and the next is tried; the first that passes PASE is the device, so whatever
/// happens after that is the answer. Candidates are tried one at a time: a hub holds one
/// commissioning session.
public struct PINOnlySearch: Sendable {
    /// How long an attempt may look for a candidate again by its discriminator (the advert was
    /// there a moment ago, so avahi answers from its cache; a device commissioned meanwhile has
    /// withdrawn it, and an attempt with the whole discovery timeout waited 15 s for it).
    public static let rediscoveryTimeout: Duration = .seconds(2)

    /// `options` for one attempt: discovery bounded by ``rediscoveryTimeout``.
    public static func attemptOptions(_ options: CommissioningOptions) -> CommissioningOptions {
        var bounded = options
        bounded.discoveryTimeout = min(options.discoveryTimeout, rediscoveryTimeout)
        return bounded
    }

    public let pin: UInt32
    /// The address the device must have (the IPv4 or IPv6 bytes), or nil for any.
    public let address: [UInt8]?
    let addressText: String?
    /// What the device must advertise besides (python-matter-server's filter types 3 and 4).
    public enum Filter: Sendable, Equatable {
        case vendorID(UInt16)
        case deviceType(UInt32)
    }
    public let filter: Filter?

    /// Checks the PIN (Matter Core 5.1.7.1 forbids some) and the address before any search.
    public init(pin: UInt32, address: String? = nil, filter: Filter? = nil) throws(CommissioningError) {
        self.filter = filter
        guard Passcode.isValid(pin) else {
            throw CommissioningError(step: .discovery, device: "the device with that PIN",
                                     code: .deviceNotFound, reason: "the PIN is not a valid setup passcode",
                                     hint: "Check the 8 digits the sharing app shows (repeated and sequential digits are never valid).")
        }
        self.pin = pin
        if let address {
            // A scope (fe80::1%eth0) names the interface, which discovery already knows.
            let bare = String(address.split(separator: "%", maxSplits: 1).first ?? "")
            guard let parsed = PeerAddress(bare, port: 0) else {
                throw CommissioningError(step: .discovery, device: "the device at \(address)", code: .deviceNotFound,
                                         reason: "'\(address)' is not an IPv4 or IPv6 address",
                                         hint: "Give the device's address as 192.0.2.7 or fe80::1, or leave it out to try every device in commissioning mode.")
            }
            self.address = parsed.ip
            addressText = bare
        } else {
            self.address = nil
            addressText = nil
        }
    }

    /// The setup code that names `candidate` with this PIN (its long discriminator, vendor and product).
    public func setupCode(for candidate: DeviceCandidate) -> String? {
        guard let d = candidate.discriminator, d < 4096 else { return nil }
        let payload = SetupPayload(kind: .qrCode, vendorID: candidate.vendorID ?? 0, productID: candidate.productID ?? 0,
                                   commissioningFlow: .standard, discoveryCapabilities: .onNetwork,
                                   discriminator: .long(d), passcode: pin)
        return try? QRCode.encode([payload])
    }

    /// Tries `attempt` with each candidate's setup code until one passes PASE, and returns what
    /// that attempt returned. When none does, the error names every device tried and why, or
    /// says that none was found within `timeout`. An error `attempt` throws ends the search.
    public func run<T: Sendable, E: Error>(
        finder: DeviceFinder, timeout: Duration,
        _ attempt: @Sendable (_ setupCode: String, DeviceCandidate) async throws(E) -> Result<T, CommissioningError>
    ) async throws(E) -> Result<T, CommissioningError> {
        var refusals: [(DeviceCandidate, CommissioningError)] = []
        var tried = Set<String>()
        var candidates = finder.candidatesInCommissioningMode(timeout: timeout).makeAsyncIterator()
        while true {
            let next: DeviceCandidate?
            do { next = try await candidates.next() } catch {
                return .failure(error as? CommissioningError ?? CommissioningError(
                    step: .discovery, device: wanted, code: .discoveryUnavailable, reason: "\(error)",
                    hint: "Check that avahi-daemon is running ('matterctl doctor' says what is missing)."))
            }
            guard let candidate = next else { break }
            // (a device is yielded again when its addresses change: the wanted one may come later)
            if let address, !candidate.addresses.contains(where: { $0.ip == address }) { continue }
            if !passes(candidate) { continue }
            guard !tried.contains(candidate.instanceName), let code = setupCode(for: candidate) else { continue }
            tried.insert(candidate.instanceName)
            let result = try await attempt(code, candidate)
            if case .failure(let error) = result, Self.isNotTheDevice(error) {
                refusals.append((candidate, error))
                continue
            }
            return result
        }
        return .failure(noneAccepted(refusals, timeout: timeout))
    }

    /// Whether `candidate` advertises what the filter asks for (one that says nothing does not).
    func passes(_ candidate: DeviceCandidate) -> Bool {
        switch filter {
        case nil: true
        case .vendorID(let v)?: candidate.vendorID == v
        case .deviceType(let t)?: candidate.deviceType == t
        }
    }

    /// Failures before a PASE session exists: this candidate is not the device the PIN opens.
    static func isNotTheDevice(_ error: CommissioningError) -> Bool {
        error.step == .discovery || error.step == .pase
    }

    var wanted: String {
        let kind = switch filter {
        case nil: ""
        case .vendorID(let v)?: " of vendor \(v)"
        case .deviceType(let t)?: " of device type \(t)"
        }
        return "a device\(kind) in commissioning mode" + (addressText.map { " at \($0)" } ?? "")
    }

    func noneAccepted(_ refusals: [(DeviceCandidate, CommissioningError)], timeout: Duration) -> CommissioningError {
        guard let last = refusals.last else {
            return CommissioningError(step: .discovery, device: wanted, code: .deviceNotFound,
                                      reason: "none was found within \(timeout)",
                                      hint: "Open the device's commissioning window (share it from the app it is in) and retry within its time.")
        }
        let wrongPIN = refusals.allSatisfy { $0.1.isWrongPasscode }
        let tried = refusals.map { "\($0.0): \($0.1.reason)" }.joined(separator: "; ")
        return CommissioningError(step: .pase, device: wanted, code: wrongPIN ? .wrongPasscode : last.1.code,
                                  reason: "no device accepted the PIN; tried \(tried)",
                                  hint: wrongPIN ? "Check the PIN the sharing app shows; it changes each time a window is opened."
                                      : last.1.hint)
    }
}
