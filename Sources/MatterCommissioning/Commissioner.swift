import MatterCertificates
import MatterCrypto
import MatterDiscovery
import MatterInteraction
import MatterMessaging
import MatterSecureChannel
import MatterSetupPayload
import MatterTLV

/// A commissioned node, with how it went.
public struct CommissioningResult: Sendable {
    public var nodeID: UInt64
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

/// Commissions one device onto the commissioner's fabric over IP (Matter Core 5.5), step by step:
///
/// 1. discovery: `_matterc._udp` by the code's long or short discriminator, candidates in turn;
/// 2. PASE with the code's passcode;
/// 3. read commissioning info (vendor, product, fail-safe limits, location capability);
/// 4. ArmFailSafe; 5. SetRegulatoryConfig;
/// 6. device attestation: PAI and DAC certificates, AttestationRequest with a random nonce,
///    full verification against the PAA trust store (strict unless test devices are allowed);
/// 7. CSRRequest with a random nonce, NOCSR verification; the NOC is issued for its key;
/// 8. AddTrustedRootCertificate; 9. AddNOC (IPK, CaseAdminSubject, AdminVendorId);
/// 10. operational discovery (the PASE address is tried first; `_matter._tcp` otherwise);
/// 11. CASE; 12. CommissioningComplete over CASE.
///
/// On any failure after the fail-safe is armed it is disarmed (ArmFailSafe 0), which makes the
/// device roll back what was installed; the error names the step, the device and what to try.
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

    public func commission(_ payload: SetupPayload, nodeID: UInt64,
                           onStep: @escaping @Sendable (StepTiming) -> Void = { _ in }) async throws(CommissioningError) -> CommissioningResult {
        let run = Run(commissioner: self, payload: payload, nodeID: nodeID, onStep: onStep)
        do {
            return try await run.perform()
        } catch {
            await run.abort()
            throw error
        }
    }
}

/// The state of one commissioning attempt (one task owns it).
final class Run {
    let commissioner: Commissioner
    let payload: SetupPayload
    let nodeID: UInt64
    let onStep: @Sendable (StepTiming) -> Void
    var timings: [StepTiming] = []
    var device: DeviceCandidate?
    var paseSession: SessionHandle?
    var failSafeArmed = false
    var warnings: [String] = []
    let clock = ContinuousClock()

    init(commissioner: Commissioner, payload: SetupPayload, nodeID: UInt64, onStep: @escaping @Sendable (StepTiming) -> Void) {
        self.commissioner = commissioner
        self.payload = payload
        self.nodeID = nodeID
        self.onStep = onStep
    }

    var manager: ExchangeManager { commissioner.manager }
    var identity: CommissionerIdentity { commissioner.identity }
    var options: CommissioningOptions { commissioner.options }
    var label: String { device.map { "\($0)" } ?? PASEOnlyCommissioning.label(payload) }

    func fail(_ step: CommissioningStep, _ reason: String, _ hint: String) -> CommissioningError {
        CommissioningError(step: step, device: label, reason: reason, hint: hint)
    }

    func timed<T>(_ step: CommissioningStep, _ body: () async throws(CommissioningError) -> T) async throws(CommissioningError) -> T {
        let start = clock.now
        let value = try await body()
        let t = StepTiming(step: step, milliseconds: PASEOnlyCommissioning.ms(clock.now - start))
        timings.append(t)
        onStep(t)
        return value
    }

    /// Runs an IM interaction of a step, turning its errors into the step's error.
    func im<T>(_ step: CommissioningStep, _ body: () async throws -> T) async throws(CommissioningError) -> T {
        do {
            return try await body()
        } catch let e as InteractionError {
            throw fail(step, e.description, "The device refused or did not answer; retry, or reset the device if it keeps failing.")
        } catch {
            throw fail(step, "\(error)", "Check that the device is still reachable and retry.")
        }
    }

    func perform() async throws(CommissioningError) -> CommissioningResult {
        // 1-2. Discovery and PASE (the PASE-only flow, which tries each candidate in turn).
        let pase = try await PASEOnlyCommissioning(finder: commissioner.finder, discoveryTimeout: options.discoveryTimeout,
                                                   onStep: onStep).run(payload: payload, manager: manager)
        timings += pase.timings
        device = pase.device
        paseSession = pase.session
        let client = InteractionClient.over(manager, session: pase.session)

        // 3. Commissioning info.
        let info = try await timed(.readCommissioningInfo) { () async throws(CommissioningError) -> DeviceInfo in
            try await im(.readCommissioningInfo) { try await DeviceInfo.read(client) }
        }

        // 4. Arm the fail-safe.
        let failSafe = min(options.failSafeSeconds, max(info.failSafeExpiryLengthSeconds ?? options.failSafeSeconds, 1))
        try await timed(.armFailSafe) { () async throws(CommissioningError) in
            let r = try await im(.armFailSafe) {
                try await client.invoke(Clusters.GeneralCommissioning.ArmFailSafe(expiryLengthSeconds: failSafe, breadcrumb: 1), endpoint: 0)
            }
            guard r.errorCode == .ok else {
                throw fail(.armFailSafe, "the device answered \(r.errorCode.rawValue) \(r.debugText)",
                           "Another administrator may be commissioning it; wait and retry.")
            }
        }
        failSafeArmed = true

        // 5. Regulatory configuration: keep what the device can do.
        try await timed(.regulatoryConfig) { () async throws(CommissioningError) in
            let location = info.locationCapability.map { Clusters.GeneralCommissioning.RegulatoryLocationType(rawValue: $0) } ?? .indoor
            let r = try await im(.regulatoryConfig) {
                try await client.invoke(Clusters.GeneralCommissioning.SetRegulatoryConfig(
                    newRegulatoryConfig: location == .indoorOutdoor ? .indoor : location,
                    countryCode: options.countryCode, breadcrumb: 2), endpoint: 0)
            }
            guard r.errorCode == .ok else {
                throw fail(.regulatoryConfig, "the device answered \(r.errorCode.rawValue) \(r.debugText)", "Retry.")
            }
        }

        // 6. Device attestation.
        let challenge = await manager.secureSession(pase.session)?.attestationChallenge.bytes ?? []
        let attestation = try await timed(.deviceAttestation) { () async throws(CommissioningError) -> (AttestationVerification, [UInt8]) in
            try await attest(client, info: info, challenge: challenge)
        }
        if attestation.0.usesTestCredentials {
            warnings.append("\(label) uses test or development attestation credentials; it was accepted because test devices are allowed")
        }

        // 7. CSR and NOC issuance.
        let noc = try await timed(.csr) { () async throws(CommissioningError) -> IssuedCertificate in
            try await requestNOC(client, dac: attestation.1, challenge: challenge)
        }

        // 8-9. Root certificate and NOC.
        try await timed(.addTrustedRoot) { () async throws(CommissioningError) in
            _ = try await im(.addTrustedRoot) {
                try await client.invoke(Clusters.OperationalCredentials.AddTrustedRootCertificate(
                    rootCACertificate: identity.authority.root.tlv), endpoint: 0)
            }
        }
        try await timed(.addNOC) { () async throws(CommissioningError) in
            let r = try await im(.addNOC) {
                try await client.invoke(Clusters.OperationalCredentials.AddNOC(
                    nocValue: noc.tlv, icacValue: identity.authority.intermediate?.tlv, ipkValue: identity.ipkEpochKey.bytes,
                    caseAdminSubject: identity.caseAdminSubject, adminVendorID: identity.adminVendorID), endpoint: 0)
            }
            guard r.statusCode == .ok else {
                throw fail(.addNOC, "the device refused the operational certificate: \(r.statusCode) \(r.debugText ?? "")",
                           "The device may already belong to the maximum number of fabrics; remove one and retry.")
            }
        }

        // 10-11. Operational discovery and CASE.
        let caseResult = try await operationalSession(pase.address)

        // 12. CommissioningComplete over CASE: commits and disarms the fail-safe.
        let operational = InteractionClient.over(manager, session: caseResult.session)
        try await timed(.commissioningComplete) { () async throws(CommissioningError) in
            let r = try await im(.commissioningComplete) {
                try await operational.invoke(Clusters.GeneralCommissioning.CommissioningComplete(), endpoint: 0)
            }
            guard r.errorCode == .ok else {
                throw fail(.commissioningComplete, "the device answered \(r.errorCode.rawValue) \(r.debugText)", "Retry commissioning.")
            }
        }
        failSafeArmed = false
        await manager.removeSession(pase.session)
        paseSession = nil
        let address = await manager.secureSession(caseResult.session)?.peerAddress ?? pase.address
        return CommissioningResult(nodeID: nodeID, vendorID: info.vendorID, productID: info.productID, device: pase.device,
                                   operationalAddress: address, caseSession: caseResult.session, timings: timings,
                                   attestation: attestation.0, warnings: warnings)
    }

    /// PAI and DAC, AttestationRequest, and the verifier's verdict. Returns it and the DAC.
    func attest(_ client: InteractionClient, info: DeviceInfo, challenge: [UInt8]) async throws(CommissioningError)
        -> (AttestationVerification, [UInt8]) {
        typealias OC = Clusters.OperationalCredentials
        let pai = try await im(.deviceAttestation) { try await client.invoke(OC.CertificateChainRequest(certificateType: .pai), endpoint: 0) }
        let dac = try await im(.deviceAttestation) { try await client.invoke(OC.CertificateChainRequest(certificateType: .dac), endpoint: 0) }
        let nonce = SecureRandom.bytes(32)
        let response = try await im(.deviceAttestation) { try await client.invoke(OC.AttestationRequest(attestationNonce: nonce), endpoint: 0) }
        let verifier = DeviceAttestationVerifier(trustStore: options.trustStore, revocationSet: options.revocationSet,
                                                 allowTestDevices: options.allowTestDevices)
        let now = MatterEpochTime(unixSeconds: options.clock())?.certificateTime ?? .noWellDefinedExpiration
        let verdict = verifier.verify(AttestationInformation(
            attestationElements: response.attestationElements, attestationChallenge: challenge,
            attestationSignature: response.attestationSignature, attestationNonce: nonce, dac: dac.certificate,
            pai: pai.certificate, vendorID: info.vendorID, productID: info.productID), at: now)
        guard verdict.isSuccess else {
            let detail = verdict.detail.map { " (\($0))" } ?? ""
            throw CommissioningError(step: .deviceAttestation, device: label,
                                     reason: "\(verdict.result.message)\(detail)", hint: verdict.result.remedy)
        }
        return (verdict, dac.certificate)
    }

    /// CSRRequest, NOCSR verification with the DAC key, and a NOC for the CSR's key.
    func requestNOC(_ client: InteractionClient, dac: [UInt8], challenge: [UInt8]) async throws(CommissioningError) -> IssuedCertificate {
        let nonce = SecureRandom.bytes(32)
        let response = try await im(.csr) {
            try await client.invoke(Clusters.OperationalCredentials.CSRRequest(csrNonce: nonce), endpoint: 0)
        }
        do {
            let dacKey = try X509Certificate(derEncoded: dac).subjectPublicKeyInfo.publicKey
            let (_, csr) = try NOCSRElements.verify(nocsrElements: response.nocsrElements, attestationSignature: response.attestationSignature,
                                                    attestationChallenge: challenge, dacPublicKey: dacKey, expectedNonce: nonce)
            let now = options.clock()
            let validity = CertificateValidity(notBefore: MatterEpochTime(unixSeconds: now - 3600) ?? MatterEpochTime(0),
                                               notAfter: MatterEpochTime(0))
            return try identity.authority.issueNOC(csr: csr, nodeID: NodeID(nodeID), validity: validity)
        } catch {
            throw fail(.csr, "the device's operational CSR is invalid: \(error)",
                       "The device may be faulty or not genuine; do not add it to your home.")
        }
    }

    /// CASE to the new node: first at the address PASE used (the same device), then wherever
    /// operational discovery finds `<CFID>-<NodeID>`.
    func operationalSession(_ paseAddress: PeerAddress) async throws(CommissioningError) -> CASEInitiator.Result {
        let fabric = identity.controller
        let nodeID = self.nodeID
        let manager = self.manager
        let mrp = device?.mrp ?? .default
        let start = clock.now
        if let r = try? await CASEInitiator.establish(manager: manager, peer: paseAddress, fabric: fabric, peerNodeID: nodeID,
                                                      peerMRP: mrp, timeout: .seconds(5)) {
            let t = StepTiming(step: .case, milliseconds: PASEOnlyCommissioning.ms(clock.now - start))
            timings.append(t)
            onStep(t)
            return r
        }
        // Operational discovery.
        let cfid: UInt64
        do { cfid = try identity.compressedFabricID().rawValue } catch {
            throw fail(.operationalDiscovery, "\(error)", "Retry.")
        }
        let found = try await timed(.operationalDiscovery) { () async throws(CommissioningError) -> [PeerAddress] in
            try await findOperational(cfid: cfid)
        }
        var lastError: SecureChannelError?
        let caseStart = clock.now
        for address in found {
            do {
                let r = try await CASEInitiator.establish(manager: manager, peer: address, fabric: fabric, peerNodeID: nodeID, peerMRP: mrp)
                let t = StepTiming(step: .case, milliseconds: PASEOnlyCommissioning.ms(clock.now - caseStart))
                timings.append(t)
                onStep(t)
                return r
            } catch {
                lastError = error
            }
        }
        throw fail(.case, lastError?.description ?? "no address answered",
                   "The device took its certificate but CASE failed; it will roll back when its fail-safe expires. Retry.")
    }

    func findOperational(cfid: UInt64) async throws(CommissioningError) -> [PeerAddress] {
        let stream = commissioner.finder.discovery.operationalNodes(compressedFabricID: cfid, nodeID: nodeID)
        let timeout = options.operationalDiscoveryTimeout
        let result: [PeerAddress]? = await withTaskGroup(of: [PeerAddress]?.self) { group in
            group.addTask {
                do {
                    for try await event in stream {
                        guard case .found(let node) = event else { continue }
                        let port = node.service.port
                        let addresses = node.service.addresses.compactMap {
                            PeerAddress($0.ip, port: port, interfaceIndex: UInt32(max(0, $0.interfaceIndex)))
                        }
                        if !addresses.isEmpty { return addresses }
                    }
                } catch {}
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let result else {
            throw fail(.operationalDiscovery, "the device did not announce itself on the operational network within \(timeout)",
                       "Check that the device stayed on this network; it will roll back when its fail-safe expires.")
        }
        return result
    }

    /// Disarms the fail-safe after a failure so the device rolls back, and drops the PASE session.
    func abort() async {
        guard let session = paseSession else { return }
        if failSafeArmed {
            let client = InteractionClient.over(manager, session: session, timeout: .seconds(5))
            _ = try? await client.invoke(Clusters.GeneralCommissioning.ArmFailSafe(expiryLengthSeconds: 0, breadcrumb: 0), endpoint: 0)
            failSafeArmed = false
        }
        await manager.removeSession(session)
        paseSession = nil
    }
}

/// What the commissioner reads before arming the fail-safe (Matter Core 5.5 step 4).
struct DeviceInfo: Sendable {
    var vendorID: UInt16
    var productID: UInt16
    var failSafeExpiryLengthSeconds: UInt16?
    var locationCapability: UInt8?

    static func read(_ client: InteractionClient) async throws -> DeviceInfo {
        typealias B = Clusters.BasicInformation
        typealias G = Clusters.GeneralCommissioning
        let paths = [ConcreteAttributePath(0, B.id, B.Attribute.vendorID), ConcreteAttributePath(0, B.id, B.Attribute.productID),
                     ConcreteAttributePath(0, G.id, G.Attribute.basicCommissioningInfo),
                     ConcreteAttributePath(0, G.id, G.Attribute.locationCapability)]
        let reports = try await client.read(paths: paths.map(\.ib))
        func value(_ p: ConcreteAttributePath) -> TLVElement? {
            for r in reports where r.path == p.ib {
                if case .value(let v) = r.outcome { return v }
            }
            return nil
        }
        guard let vid = try value(paths[0])?.unsigned(as: UInt16.self), let pid = try value(paths[1])?.unsigned(as: UInt16.self) else {
            throw InteractionError.invalidValue(what: "BasicInformation", reason: "the device did not report its vendor and product IDs")
        }
        let failSafe = try value(paths[2])?[context: 0]?.unsigned(as: UInt16.self)
        let location = try value(paths[3])?.unsigned(as: UInt8.self)
        return DeviceInfo(vendorID: vid, productID: pid, failSafeExpiryLengthSeconds: failSafe, locationCapability: location)
    }
}
