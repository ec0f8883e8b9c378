import MatterCertificates
import MatterClusters
import MatterCrypto
import MatterInteraction
import MatterSecureChannel
import MatterTLV

typealias GC = Clusters.GeneralCommissioning
typealias OC = Clusters.OperationalCredentials
typealias AC = Clusters.AdministratorCommissioning

extension DeviceCore {
    private func decode<T: CommandFields>(_ type: T.Type, _ fields: TLVElement?) -> T? {
        guard let fields else { return nil }
        return try? T(element: fields)
    }

    private static let invalidCommand = CommandOutcome.status(StatusIB(.invalidCommand))

    // MARK: General Commissioning (Matter Core 11.10)

    func generalCommissioning(_ command: CommandID, _ fields: TLVElement?, _ c: IMSessionContext) async -> CommandOutcome {
        func reply<M>(_ r: GC.ErrorCodeResponse<M>) -> CommandOutcome { .response(M.command, r.fields) }
        switch command {
        case GC.Command.armFailSafe:
            guard let req = decode(GC.ArmFailSafe.self, fields) else { return Self.invalidCommand }
            let fabric = accessingFabric(c)
            if let fs = failSafe {
                // Only the administrator that armed it may extend or disarm it.
                if fs.armingFabric != nil && fs.armingFabric != fabric || fs.armingFabric == nil && c.authMode != .pase {
                    return reply(GC.ArmFailSafeResponse(errorCode: .busyWithOtherAdmin, debugText: "armed by another administrator"))
                }
            } else if window != nil && c.authMode == .case {
                return reply(GC.ArmFailSafeResponse(errorCode: .busyWithOtherAdmin, debugText: "a commissioning window is open"))
            }
            if req.expiryLengthSeconds == 0 {
                await rollBack()
            } else {
                arm(seconds: req.expiryLengthSeconds, fabric: failSafe?.armingFabric ?? fabric)
                setBreadcrumb(req.breadcrumb)
            }
            return reply(GC.ArmFailSafeResponse(errorCode: .ok))

        case GC.Command.setRegulatoryConfig:
            guard let req = decode(GC.SetRegulatoryConfig.self, fields) else { return Self.invalidCommand }
            guard req.newRegulatoryConfig.rawValue <= GC.RegulatoryLocationType.indoorOutdoor.rawValue else {
                return reply(GC.SetRegulatoryConfigResponse(errorCode: .valueOutsideRange, debugText: "unknown location type"))
            }
            setRegulatory(req.newRegulatoryConfig.rawValue, req.countryCode)
            setBreadcrumb(req.breadcrumb)
            return reply(GC.SetRegulatoryConfigResponse(errorCode: .ok))

        case GC.Command.commissioningComplete:
            guard let fs = failSafe else {
                return reply(GC.CommissioningCompleteResponse(errorCode: .noFailSafe, debugText: "the fail-safe is not armed"))
            }
            // Only over CASE, from the fabric the fail-safe is committing (Matter Core 11.10.7.6).
            guard c.authMode == .case, let fabric = c.fabricIndex, fabric == (fs.addedFabric ?? fs.armingFabric) else {
                return reply(GC.CommissioningCompleteResponse(errorCode: .invalidAuthentication,
                                                              debugText: "must be sent over CASE on the fabric being commissioned"))
            }
            await commit()
            return reply(GC.CommissioningCompleteResponse(errorCode: .ok))

        default:
            return .status(StatusIB(.unsupportedCommand))
        }
    }

    // MARK: Operational Credentials (Matter Core 11.18)

    func operationalCredentials(_ command: CommandID, _ fields: TLVElement?, _ c: IMSessionContext) async -> CommandOutcome {
        switch command {
        case OC.Command.certificateChainRequest:
            guard let req = decode(OC.CertificateChainRequest.self, fields) else { return Self.invalidCommand }
            let cert = req.certificateType == .dac ? credentials.dac : credentials.pai
            return .response(OC.Command.certificateChainResponse, OC.CertificateChainResponse(certificate: cert).fields)

        case OC.Command.attestationRequest:
            guard let req = decode(OC.AttestationRequest.self, fields), req.attestationNonce.count == 32 else {
                return Self.invalidCommand
            }
            guard let challenge = await challenge(c) else { return .status(StatusIB(.failure)) }
            let elements = AttestationElements(certificationDeclaration: credentials.certificationDeclaration,
                                               attestationNonce: req.attestationNonce, timestamp: 0).tlvEncoded
            // The invalid-attestation fault signs the elements without the challenge.
            let tbs = faults.contains(.invalidAttestation) ? elements : elements + challenge
            guard let signature = try? credentials.dacKey.signature(for: tbs).rawRepresentation else {
                return .status(StatusIB(.failure))
            }
            return .response(OC.Command.attestationResponse,
                             OC.AttestationResponse(attestationElements: elements, attestationSignature: signature).fields)

        case OC.Command.csrRequest:
            guard let req = decode(OC.CSRRequest.self, fields), req.csrNonce.count == 32, req.isForUpdateNOC != true else {
                return Self.invalidCommand
            }
            guard failSafe != nil else { return .status(StatusIB(.failsafeRequired)) }
            guard failSafe?.addedFabric == nil else { return .status(StatusIB(.constraintError)) }
            guard let challenge = await challenge(c) else { return .status(StatusIB(.failure)) }
            let key = P256PrivateKey()
            guard let csr = try? CertificateSigningRequest.create(privateKey: key) else { return .status(StatusIB(.failure)) }
            let elements = NOCSRElements(csr: csr.derBytes, csrNonce: req.csrNonce).tlvEncoded
            guard let signature = try? credentials.dacKey.signature(for: elements + challenge).rawRepresentation else {
                return .status(StatusIB(.failure))
            }
            setPendingKey(key)
            return .response(OC.Command.csrResponse, OC.CSRResponse(nocsrElements: elements, attestationSignature: signature).fields)

        case OC.Command.addTrustedRootCertificate:
            guard let req = decode(OC.AddTrustedRootCertificate.self, fields) else { return Self.invalidCommand }
            guard let fs = failSafe else { return .status(StatusIB(.failsafeRequired)) }
            guard fs.pendingRoot == nil, fs.addedFabric == nil else { return .status(StatusIB(.constraintError)) }
            guard (try? MatterCertificateValidator.validateRoot(encoded: req.rootCACertificate)) != nil else {
                return Self.invalidCommand
            }
            setPendingRoot(req.rootCACertificate)
            bump(0, .operationalCredentials)
            return .status(.success)

        case OC.Command.addNOC:
            guard let req = decode(OC.AddNOC.self, fields) else { return Self.invalidCommand }
            return await addNOC(req, c)

        case OC.Command.updateFabricLabel:
            guard let req = decode(OC.UpdateFabricLabel.self, fields) else { return Self.invalidCommand }
            guard req.label.utf8.count <= 32 else { return .status(StatusIB(.constraintError)) }
            guard let fabric = accessingFabric(c), let i = state.fabrics.firstIndex(where: { $0.index == fabric }) else {
                return nocResponse(.invalidFabricIndex)
            }
            if !req.label.isEmpty && state.fabrics.contains(where: { $0.index != fabric && $0.label == req.label }) {
                return nocResponse(.labelConflict)
            }
            updateFabric(at: i) { $0.label = req.label }
            return nocResponse(.ok, fabric)

        case OC.Command.removeFabric:
            guard let req = decode(OC.RemoveFabric.self, fields) else { return Self.invalidCommand }
            guard state.fabrics.contains(where: { $0.index == req.fabricIndex }) else { return nocResponse(.invalidFabricIndex) }
            await removeFabric(req.fabricIndex)
            return nocResponse(.ok, req.fabricIndex)

        default:
            return .status(StatusIB(.unsupportedCommand))
        }
    }

    private func nocResponse(_ s: OC.NodeOperationalCertStatus, _ index: UInt8? = nil, _ debug: String? = nil) -> CommandOutcome {
        .response(OC.Command.nocResponse, OC.NOCResponse(statusCode: s, fabricIndex: index, debugText: debug).fields)
    }

    private func challenge(_ c: IMSessionContext) async -> [UInt8]? {
        guard let id = c.sessionID else { return nil }
        return await hooksChallenge(id)
    }

    /// AddNOC (Matter Core 11.18.6.8): validates the chain against the staged root and the CSR
    /// key, then adds the fabric and its Administer ACL entry for CaseAdminSubject.
    private func addNOC(_ req: OC.AddNOC, _ c: IMSessionContext) async -> CommandOutcome {
        guard let fs = failSafe else { return .status(StatusIB(.failsafeRequired)) }
        guard fs.addedFabric == nil else { return .status(StatusIB(.constraintError)) }
        guard let root = fs.pendingRoot else { return nocResponse(.invalidNOC, nil, "no trusted root was added") }
        guard let key = fs.pendingKey else { return nocResponse(.missingCsr, nil, "no CSRRequest preceded AddNOC") }
        guard state.fabrics.count < Self.supportedFabrics, let index = freeFabricIndex() else { return nocResponse(.tableFull) }
        guard req.ipkValue.count == 16 else { return .status(StatusIB(.constraintError)) }
        let identity: OperationalIdentity
        let rcac: MatterCertificate
        do {
            rcac = try MatterCertificate(tlvEncoded: root)
            let noc = try MatterCertificate(tlvEncoded: req.nocValue)
            let icac = try req.icacValue.map { b throws(CertificateError) in try MatterCertificate(tlvEncoded: b) }
            guard noc.publicKey == key.publicKey.x962Representation else { return nocResponse(.invalidPublicKey) }
            identity = try MatterCertificateValidator.validateChain(noc: noc, icac: icac, rcac: rcac, now: nil)
        } catch {
            return nocResponse(.invalidNOC, nil, "the NOC chain does not validate")
        }
        guard identity.nodeID.isOperational else { return nocResponse(.invalidNodeOpId) }
        if state.fabrics.contains(where: { $0.rootPublicKey == rcac.publicKey && $0.fabricID == identity.fabricID.rawValue }) {
            return nocResponse(.fabricConflict)
        }
        let subject = req.caseAdminSubject
        guard NodeID(subject).isOperational || subject >> 32 == 0xFFFF_FFFD else { return nocResponse(.invalidAdminSubject) }
        guard let cfid = try? CompressedFabricID(rootPublicKey: rcac.publicKey, fabricID: identity.fabricID) else {
            return nocResponse(.invalidNOC)
        }
        let record = FabricRecord(index: index, rcac: root, icac: req.icacValue, noc: req.nocValue,
                                  operationalKey: key.rawRepresentation.bytes, ipkEpochKey: req.ipkValue,
                                  vendorID: req.adminVendorID, label: "", rootPublicKey: rcac.publicKey,
                                  fabricID: identity.fabricID.rawValue, nodeID: identity.nodeID.rawValue,
                                  compressedFabricID: cfid.rawValue)
        addStagedFabric(record, admin: ACLRecord(Clusters.AccessControl.Entry(privilege: .administer, authMode: .case,
                                                                              subjects: [subject], targets: nil),
                                                 fabricIndex: index), session: c.sessionID)
        await fabricsChangedHook()
        await nocAddedHook()
        return nocResponse(.ok, index)
    }

    // MARK: Administrator Commissioning (Matter Core 11.19)

    func administratorCommissioning(_ command: CommandID, _ fields: TLVElement?, _ c: IMSessionContext) async -> CommandOutcome {
        let busy = CommandOutcome.status(StatusIB(.failure, clusterStatus: AC.StatusCode.busy.rawValue))
        switch command {
        case AC.Command.openCommissioningWindow:
            guard let req = decode(AC.OpenCommissioningWindow.self, fields) else { return Self.invalidCommand }
            if window != nil || failSafe != nil { return busy }
            guard (180...900).contains(req.commissioningTimeout), req.discriminator <= 0xFFF else { return Self.invalidCommand }
            guard req.pakePasscodeVerifier.count == 97, (1000...100_000).contains(req.iterations), (16...32).contains(req.salt.count),
                  let verifier = try? PASEVerifier(serialized: req.pakePasscodeVerifier) else {
                return .status(StatusIB(.failure, clusterStatus: AC.StatusCode.pakeParameterError.rawValue))
            }
            let admin = adminOf(c)
            await openWindow(CommissioningWindow(kind: .enhanced, verifier: verifier, salt: req.salt, iterations: req.iterations,
                                                 discriminator: req.discriminator), timeout: req.commissioningTimeout, admin: admin)
            return .status(.success)

        case AC.Command.openBasicCommissioningWindow:
            guard let req = decode(AC.OpenBasicCommissioningWindow.self, fields) else { return Self.invalidCommand }
            if window != nil || failSafe != nil { return busy }
            guard (180...900).contains(req.commissioningTimeout) else { return Self.invalidCommand }
            await openWindow(basicWindow, timeout: req.commissioningTimeout, admin: adminOf(c))
            return .status(.success)

        case AC.Command.revokeCommissioning:
            guard window != nil else { return .status(StatusIB(.failure, clusterStatus: AC.StatusCode.windowNotOpen.rawValue)) }
            await closeWindow()
            if failSafe != nil { await rollBack() }
            return .status(.success)

        default:
            return .status(StatusIB(.unsupportedCommand))
        }
    }

    private func adminOf(_ c: IMSessionContext) -> (fabric: UInt8, vendor: UInt16)? {
        guard let f = accessingFabric(c), let r = state.fabrics.first(where: { $0.index == f }) else { return nil }
        return (f, r.vendorID)
    }
}
