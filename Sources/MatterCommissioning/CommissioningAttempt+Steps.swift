import MatterCertificates
import MatterClusters
import MatterCrypto
import MatterInteraction
import MatterInteractionMessaging
import MatterMessaging
import MatterSecureChannel
import MatterTLV

/// The steps after PASE, each as Matter Core 5.5 describes it. The loop in
/// `CommissioningAttempt.perform` times them and maps their failures; each step stores what it
/// learns on the attempt for the steps after it.
extension CommissioningAttempt {
    typealias GC = Clusters.GeneralCommissioning
    typealias OC = Clusters.OperationalCredentials

    /// Step 6 (after PASE): vendor, product, fail-safe limits and location capability, and
    /// the NetworkCommissioning interfaces (whether steps 16-17 are needed, and with what).
    func readCommissioningInfo() async throws(CommissioningError) {
        let client = commissioningClient
        info = try await im(.readCommissioningInfo) { try await DeviceInfo.read(client) }
        networkInterfaces = try await im(.readCommissioningInfo) { try await NetworkInterfaces.read(client) }
        try planNetwork()
    }

    /// Step 7: ArmFailSafe, for the shorter of what we want and what the device allows.
    func armFailSafe() async throws(CommissioningError) {
        let seconds = min(options.failSafeSeconds, max(info?.failSafeExpiryLengthSeconds ?? options.failSafeSeconds, 1))
        let client = commissioningClient
        let response = try await im(.armFailSafe) {
            try await client.invoke(GC.ArmFailSafe(expiryLengthSeconds: seconds, breadcrumb: UInt64(CommissioningStep.armFailSafe.specNumber)),
                                    endpoint: 0)
        }
        guard response.errorCode == .ok else {
            throw fail(.armFailSafe, .deviceRefused, "the device answered \(response.errorCode.rawValue) \(response.debugText)",
                       "Another administrator may be commissioning it; wait and retry.")
        }
        failSafe = FailSafeTimer(seconds: seconds, maxCumulativeSeconds: info?.maxCumulativeFailsafeSeconds, armedAt: clock.now)
    }

    /// Step 8: SetRegulatoryConfig, keeping what the device can do.
    func configureRegulatory() async throws(CommissioningError) {
        let location = info?.locationCapability.map { GC.RegulatoryLocationType(rawValue: $0) } ?? .indoor
        let client = commissioningClient
        let countryCode = options.countryCode
        let response = try await im(.regulatoryConfig) {
            try await client.invoke(GC.SetRegulatoryConfig(
                newRegulatoryConfig: location == .indoorOutdoor ? .indoor : location, countryCode: countryCode,
                breadcrumb: UInt64(CommissioningStep.regulatoryConfig.specNumber)), endpoint: 0)
        }
        guard response.errorCode == .ok else {
            throw fail(.regulatoryConfig, .deviceRefused, "the device answered \(response.errorCode.rawValue) \(response.debugText)", "Retry.")
        }
    }

    /// The attestation challenge of the PASE session (Matter Core 6.2.3).
    func attestationChallenge() async -> [UInt8] {
        guard let session = pase?.session else { return [] }
        return await manager.secureSession(session)?.attestationChallenge.bytes ?? []
    }

    /// Step 10: PAI and DAC, AttestationRequest, and the verifier's verdict.
    func attest() async throws(CommissioningError) {
        guard let info else { preconditionFailure("attestation before the commissioning info") }
        let client = commissioningClient
        let pai = try await im(.deviceAttestation) { try await client.invoke(OC.CertificateChainRequest(certificateType: .pai), endpoint: 0) }
        let dac = try await im(.deviceAttestation) { try await client.invoke(OC.CertificateChainRequest(certificateType: .dac), endpoint: 0) }
        let nonce = SecureRandom.bytes(32)
        let response = try await im(.deviceAttestation) { try await client.invoke(OC.AttestationRequest(attestationNonce: nonce), endpoint: 0) }
        let verifier = DeviceAttestationVerifier(trustStore: options.trustStore, revocationSet: options.revocationSet,
                                                 crls: options.crls, allowTestDevices: options.allowTestDevices)
        let now = MatterEpochTime(unixSeconds: options.clock())?.certificateTime ?? .noWellDefinedExpiration
        let verdict = verifier.verify(AttestationInformation(
            attestationElements: response.attestationElements, attestationChallenge: await attestationChallenge(),
            attestationSignature: response.attestationSignature, attestationNonce: nonce, dac: dac.certificate,
            pai: pai.certificate, vendorID: info.vendorID, productID: info.productID), at: now)
        guard verdict.isSuccess else {
            let detail = verdict.detail.map { " (\($0))" } ?? ""
            throw CommissioningError(step: .deviceAttestation, device: label, code: .attestationFailed,
                                     reason: "\(verdict.result.message)\(detail)", hint: verdict.result.remedy,
                                     attestationResult: verdict.result)
        }
        warnings += verdict.warnings.map { "\(label): \($0)" }
        if verdict.usesTestCredentials {
            warnings.append("\(label) uses test or development attestation credentials; it was accepted because test devices are allowed")
        }
        attestation = AttestationOutcome(verification: verdict, dac: dac.certificate)
    }

    /// Step 11: CSRRequest, NOCSR verification with the DAC's key, and a NOC for the CSR's key.
    func requestNOC() async throws(CommissioningError) {
        guard let attestation else { preconditionFailure("CSR before attestation") }
        let nonce = SecureRandom.bytes(32)
        let client = commissioningClient
        let response = try await im(.csr) { try await client.invoke(OC.CSRRequest(csrNonce: nonce), endpoint: 0) }
        let challenge = await attestationChallenge()
        do {
            let dacKey = try X509Certificate(derEncoded: attestation.dac).subjectPublicKeyInfo.publicKey
            let (_, csr) = try NOCSRElements.verify(nocsrElements: response.nocsrElements, attestationSignature: response.attestationSignature,
                                                    attestationChallenge: challenge, dacPublicKey: dacKey, expectedNonce: nonce)
            let now = options.clock()
            let validity = CertificateValidity(notBefore: MatterEpochTime(unixSeconds: now - 3600) ?? MatterEpochTime(0),
                                               notAfter: MatterEpochTime(0))
            noc = try identity.authority.issueNOC(csr: csr, nodeID: nodeID, validity: validity)
        } catch {
            throw fail(.csr, .invalidCSR, "the device's operational CSR is invalid: \(error)",
                       "The device may be faulty or not genuine; do not add it to your home.")
        }
    }

    /// Step 12: AddTrustedRootCertificate.
    func addTrustedRoot() async throws(CommissioningError) {
        let client = commissioningClient
        let root = identity.authority.root.tlv
        _ = try await im(.addTrustedRoot) { try await client.invoke(OC.AddTrustedRootCertificate(rootCACertificate: root), endpoint: 0) }
    }

    /// Step 13: AddNOC, after the caller has recorded the node (`CommissioningHooks.willAddNOC`).
    func addNOC() async throws(CommissioningError) {
        guard let noc, let info, let pase else { preconditionFailure("AddNOC before the NOC was issued") }
        let installation = NOCInstallation(nodeID: nodeID, noc: noc, vendorID: info.vendorID, productID: info.productID,
                                           address: pase.address)
        do { try await hooks.willAddNOC(installation) } catch {
            throw fail(.addNOC, .hubFailure, "the hub could not record the node before installing its certificate: \(error)",
                       "Check that the hub's state directory is writable, then retry.")
        }
        let client = commissioningClient
        let identity = self.identity
        let response = try await im(.addNOC) {
            try await client.invoke(OC.AddNOC(
                nocValue: noc.tlv, icacValue: identity.authority.intermediate?.tlv, ipkValue: identity.ipkEpochKey.bytes,
                caseAdminSubject: identity.caseAdminSubject, adminVendorID: identity.adminVendorID), endpoint: 0)
        }
        guard response.statusCode == .ok else {
            throw fail(.addNOC, .deviceRefused, "the device refused the operational certificate: \(response.statusCode) \(response.debugText ?? "")",
                       "The device may already belong to the maximum number of fabrics; remove one and retry.")
        }
    }

    /// Steps 18 and 19: CASE to the new node, first at the address PASE used (the same
    /// device), then wherever operational discovery finds `<CFID>-<NodeID>`.
    func reachOperationalNode() async throws(CommissioningError) {
        guard let pase else { preconditionFailure("no PASE session") }
        let fabric = identity.controller
        let mrp = pase.device.mrp
        let direct = clock.now
        do {
            operational = try await CASEInitiator.establish(manager: manager, peer: pase.address, fabric: fabric, peerNodeID: nodeID.rawValue,
                                                            peerMRP: mrp, timeout: .seconds(5))
            record(.case, since: direct)
            return
        } catch .noResponse {
            // Not (or no longer) at the PASE address: find it on the operational network.
        } catch {
            // The device answered and the handshake failed: another address would not help.
            throw fail(.case, .caseFailed, error.description,
                       "The device took its certificate but CASE with it failed; it will roll back when its fail-safe expires. Retry, or reset the device if it keeps failing.")
        }
        let cfid: UInt64
        do { cfid = try identity.compressedFabricID().rawValue } catch {
            throw fail(.operationalDiscovery, .protocolError, "\(error)", "Retry.")
        }
        let discoveryStart = clock.now
        let found = try await findOperational(cfid: cfid)
        record(.operationalDiscovery, since: discoveryStart)
        var lastError: SecureChannelError?
        let caseStart = clock.now
        for address in found {
            do {
                operational = try await CASEInitiator.establish(manager: manager, peer: address, fabric: fabric, peerNodeID: nodeID.rawValue,
                                                                peerMRP: mrp)
                record(.case, since: caseStart)
                return
            } catch {
                lastError = error
            }
        }
        throw fail(.case, .caseFailed, lastError?.description ?? "no address answered",
                   "The device took its certificate but CASE failed; it will roll back when its fail-safe expires. Retry.")
    }

    func findOperational(cfid: UInt64) async throws(CommissioningError) -> [PeerAddress] {
        let timeout = options.operationalDiscoveryTimeout
        guard let result = await commissioner.finder.operationalAddresses(compressedFabricID: cfid, nodeID: nodeID, timeout: timeout)
        else {
            throw fail(.operationalDiscovery, .operationalNotFound,
                       "the device did not announce itself on the operational network within \(timeout)",
                       "Check that the device stayed on this network; it will roll back when its fail-safe expires.")
        }
        return result
    }

    /// Step 20: CommissioningComplete over CASE, which commits the fabric and disarms the
    /// fail-safe.
    func complete() async throws(CommissioningError) {
        guard let operational else { preconditionFailure("CommissioningComplete before CASE") }
        let client = InteractionClient.over(manager, session: operational.session, timeout: options.responseTimeout)
        let response = try await im(.commissioningComplete) { try await client.invoke(GC.CommissioningComplete(), endpoint: 0) }
        guard response.errorCode == .ok else {
            throw fail(.commissioningComplete, .deviceRefused, "the device answered \(response.errorCode.rawValue) \(response.debugText)",
                       "Retry commissioning.")
        }
        failSafe = nil
    }
}
