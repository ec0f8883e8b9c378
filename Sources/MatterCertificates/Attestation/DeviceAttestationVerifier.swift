import MatterCrypto
import MatterTLV

/// What a device sent in AttestationResponse, plus what the commissioner knows about it.
public struct AttestationInformation: Sendable, Hashable {
    /// attestation_elements exactly as received (the signed bytes).
    public var attestationElements: [UInt8]
    /// The 16-byte attestation challenge of the PASE/CASE session.
    public var attestationChallenge: [UInt8]
    /// The DAC's signature over elements || challenge, raw r||s (64 bytes).
    public var attestationSignature: [UInt8]
    /// The nonce the commissioner sent in AttestationRequest.
    public var attestationNonce: [UInt8]
    public var dac: [UInt8]
    public var pai: [UInt8]
    /// VendorID and ProductID from the device's Basic Information cluster.
    public var vendorID: UInt16
    public var productID: UInt16

    public init(attestationElements: [UInt8], attestationChallenge: [UInt8], attestationSignature: [UInt8],
                attestationNonce: [UInt8], dac: [UInt8], pai: [UInt8], vendorID: UInt16, productID: UInt16) {
        self.attestationElements = attestationElements
        self.attestationChallenge = attestationChallenge
        self.attestationSignature = attestationSignature
        self.attestationNonce = attestationNonce
        self.dac = dac
        self.pai = pai
        self.vendorID = vendorID
        self.productID = productID
    }
}

/// The verdict of device attestation, with what was learned about the device.
public struct AttestationVerification: Sendable, Hashable {
    public var result: AttestationVerificationResult
    /// Technical detail for logs (the rule's specifics); never secret.
    public var detail: String?
    /// The device's identity as attested, when the chain was checked.
    public var vendorID: UInt16?
    public var productID: UInt16?
    /// The PAA's subject common name and key identifier, when it was found.
    public var paaName: String?
    public var paaSubjectKeyIdentifier: [UInt8]?
    /// The decoded certification declaration, when it was checked.
    public var certificationDeclaration: CertificationElements?
    /// True when any test credential (PAA, CD key, certification type 0) was involved.
    public var usesTestCredentials: Bool = false
    /// What the user should know even though attestation succeeded (e.g. a stale CRL).
    public var warnings: [String] = []

    public var isSuccess: Bool { result.isSuccess }
}

/// Device attestation as a commissioner performs it (Matter Core 6.2.3 and 6.3, 11.18.4.7),
/// following the checks and their order in the SDK's `DefaultDACVerifier`:
///
/// 1. The response's size limits; the PAI is present.
/// 2. The DAC and PAI follow their certificate profiles.
/// 3. VID/PID: the PAI's VID is the DAC's; the DAC has a PID; a PAI PID equals the DAC's.
/// 4. The DAC signs attestation_elements || attestation_challenge.
/// 5. The PAA is the trusted certificate whose SKID is the PAI's AKID; its VID (if any) is the
///    PAI's; it has no PID; test PAAs only with `allowTestDevices`.
/// 6. The DAC is valid at the current time (the PAI may expire before the DAC).
/// 7. The chain PAA -> PAI -> DAC: names, key identifiers and signatures, and the PAA and PAI
///    valid at the DAC's notBefore (they must have been valid when the DAC was issued).
/// 8. attestation_elements decode and echo the nonce.
/// 9. The CD is signed by a trusted CSA key (the test key only with `allowTestDevices`) and its
///    content matches the device: format version, certification type, VID, PID, DAC origin,
///    authorized PAAs.
/// 10. Neither DAC nor PAI is in the revocation set nor on a CRL of its issuer; a CRL of the
///     chain past its nextUpdate by more than `crlStaleAfterSeconds` gives a warning.
public struct DeviceAttestationVerifier: Sendable {
    public var trustStore: PAATrustStore
    public var cdSigningKeys: CDSigningKeyStore
    public var revocationSet: RevocationSet?
    /// CRLs of PAAs and PAIs (from the DCL's revocation distribution points).
    public var crls: [AttestationCRL]
    /// How long past its nextUpdate a CRL may be before attestation warns that it is stale.
    public var crlStaleAfterSeconds: Int64 = 7 * 86_400
    /// Accept test PAAs, the CSA test CD key and development/test certification declarations.
    public var allowTestDevices: Bool

    public init(trustStore: PAATrustStore, cdSigningKeys: CDSigningKeyStore = .csa,
                revocationSet: RevocationSet? = nil, crls: [AttestationCRL] = [], allowTestDevices: Bool = false) {
        self.trustStore = trustStore
        self.cdSigningKeys = cdSigningKeys
        self.revocationSet = revocationSet
        self.crls = crls
        self.allowTestDevices = allowTestDevices
    }

    /// Verifies a device's attestation response at time `now` (the commissioner's clock).
    public func verify(_ info: AttestationInformation, at now: ASN1Time) -> AttestationVerification {
        var report = AttestationVerification(result: .success)
        do throws(Failure) {
            guard !info.attestationElements.isEmpty, !info.attestationChallenge.isEmpty,
                  !info.attestationSignature.isEmpty, !info.dac.isEmpty, !info.attestationNonce.isEmpty,
                  info.attestationElements.count <= AttestationElements.maxLength
            else { throw Failure(.invalidArgument) }
            guard !info.pai.isEmpty else { throw Failure(.paiMissing) }

            let parsed = try parseAndProfile(dac: info.dac, pai: info.pai)
            let ids = try vendorProduct(parsed)
            report.vendorID = ids.dac.vendorID
            report.productID = ids.dac.productID

            try checkAttestationSignature(info, dac: parsed.dac)

            let chain = try verifyChain(parsed, ids: ids, at: now, report: &report)

            let elements: AttestationElements
            do { elements = try AttestationElements(tlv: info.attestationElements) } catch {
                throw Failure(.attestationElementsMalformed, error.description)
            }
            guard elements.attestationNonce == info.attestationNonce else { throw Failure(.attestationNonceMismatch) }

            let device = DeviceIdentity(vendorID: info.vendorID, productID: info.productID, ids: ids, chain: chain)
            report.certificationDeclaration = try verifyCertificationDeclaration(elements.certificationDeclaration,
                                                                                 device: device, report: &report)
            try checkRevocation(parsed, chain: chain, at: now, report: &report)
        } catch {
            report.result = error.result
            report.detail = error.detail
        }
        return report
    }

    /// Verifies a DAC/PAI chain and, when given, a CD against the device's VID/PID (taken from
    /// the DAC when not given), without an attestation response: what `matterctl attestation
    /// verify` checks for files on disk.
    public func verifyCredentials(dac: [UInt8], pai: [UInt8], certificationDeclaration cd: [UInt8]?,
                                  vendorID: UInt16? = nil, productID: UInt16? = nil,
                                  at now: ASN1Time) -> AttestationVerification {
        var report = AttestationVerification(result: .success)
        do throws(Failure) {
            guard !dac.isEmpty else { throw Failure(.invalidArgument, "no DAC") }
            guard !pai.isEmpty else { throw Failure(.paiMissing) }
            let parsed = try parseAndProfile(dac: dac, pai: pai)
            let ids = try vendorProduct(parsed)
            report.vendorID = ids.dac.vendorID
            report.productID = ids.dac.productID
            let chain = try verifyChain(parsed, ids: ids, at: now, report: &report)
            if let cd {
                let device = DeviceIdentity(vendorID: vendorID ?? ids.dac.vendorID ?? 0,
                                            productID: productID ?? ids.dac.productID ?? 0, ids: ids, chain: chain)
                report.certificationDeclaration = try verifyCertificationDeclaration(cd, device: device, report: &report)
            }
            try checkRevocation(parsed, chain: chain, at: now, report: &report)
        } catch {
            report.result = error.result
            report.detail = error.detail
        }
        return report
    }

    // MARK: - Steps

    struct Failure: Error {
        let result: AttestationVerificationResult
        let detail: String?
        init(_ result: AttestationVerificationResult, _ detail: String? = nil) {
            self.result = result
            self.detail = detail
        }
    }

    struct ParsedPair {
        let dac: X509Certificate
        let pai: X509Certificate
    }

    struct VendorProducts {
        let dac: AttestationVendorProduct
        let pai: AttestationVendorProduct
    }

    struct Chain {
        let paa: X509Certificate
        let paaVendorID: UInt16?
        let paaSubjectKeyIdentifier: [UInt8]
    }

    /// What the CD is checked against: the Basic Information IDs and the attested IDs.
    struct DeviceIdentity {
        let vendorID: UInt16
        let productID: UInt16
        let ids: VendorProducts
        let chain: Chain
    }

    private func parseAndProfile(dac dacBytes: [UInt8], pai paiBytes: [UInt8]) throws(Failure) -> ParsedPair {
        let pai: X509Certificate
        do {
            pai = try X509Certificate(derEncoded: paiBytes)
            try AttestationCertificateRole.pai.checkProfile(pai)
        } catch { throw Failure(.paiFormatInvalid, error.description) }
        let dac: X509Certificate
        do {
            dac = try X509Certificate(derEncoded: dacBytes)
            try AttestationCertificateRole.dac.checkProfile(dac)
        } catch { throw Failure(.dacFormatInvalid, error.description) }
        return ParsedPair(dac: dac, pai: pai)
    }

    private func vendorProduct(_ p: ParsedPair) throws(Failure) -> VendorProducts {
        let dacIDs: AttestationVendorProduct
        do { dacIDs = try Self.ids(of: p.dac) } catch { throw Failure(.dacFormatInvalid, error.description) }
        let paiIDs: AttestationVendorProduct
        do { paiIDs = try Self.ids(of: p.pai) } catch { throw Failure(.paiFormatInvalid, error.description) }
        guard let paiVID = paiIDs.vendorID, paiVID == dacIDs.vendorID else {
            throw Failure(.dacVendorIdMismatch, "DAC VID \(Self.hex(dacIDs.vendorID)), PAI VID \(Self.hex(paiIDs.vendorID))")
        }
        guard dacIDs.productID != nil else { throw Failure(.dacProductIdMismatch, "the DAC has no product ID") }
        if let paiPID = paiIDs.productID, paiPID != dacIDs.productID {
            throw Failure(.dacProductIdMismatch, "DAC PID \(Self.hex(dacIDs.productID)), PAI PID \(Self.hex(paiPID))")
        }
        return VendorProducts(dac: dacIDs, pai: paiIDs)
    }

    private func checkAttestationSignature(_ info: AttestationInformation, dac: X509Certificate) throws(Failure) {
        let key: P256PublicKey
        do { key = try P256PublicKey(x962Representation: try dac.subjectPublicKeyInfo.p256PublicKey()) } catch {
            throw Failure(.dacFormatInvalid, "the DAC's public key is not a P-256 point")
        }
        guard info.attestationSignature.count == 64,
              let signature = try? P256Signature(rawRepresentation: info.attestationSignature)
        else { throw Failure(.attestationSignatureInvalidFormat, "\(info.attestationSignature.count) bytes") }
        guard key.isValidSignature(signature, for: info.attestationElements + info.attestationChallenge) else {
            throw Failure(.attestationSignatureInvalid)
        }
    }

    private func verifyChain(_ p: ParsedPair, ids: VendorProducts, at now: ASN1Time,
                             report: inout AttestationVerification) throws(Failure) -> Chain {
        guard let paiAKID = p.pai.authorityKeyIdentifier?.keyIdentifier else {
            throw Failure(.paiFormatInvalid, "the PAI has no authority key identifier")
        }
        guard let paa = trustStore.certificate(forSubjectKeyIdentifier: paiAKID, issuerName: p.pai.issuer.encoded) else {
            throw Failure(.paaNotFound, Self.missingPAADescription(pai: p.pai, keyIdentifier: paiAKID))
        }
        report.paaName = paa.subject.first(AttestationVendorProduct.commonNameAttribute)?.stringValue
        report.paaSubjectKeyIdentifier = paiAKID

        let paaIDs: AttestationVendorProduct
        do { paaIDs = try Self.ids(of: paa) } catch { throw Failure(.paaFormatInvalid, error.description) }
        if let paaVID = paaIDs.vendorID, paaVID != ids.pai.vendorID {
            throw Failure(.paiVendorIdMismatch, "PAA VID \(Self.hex(paaVID)), PAI VID \(Self.hex(ids.pai.vendorID))")
        }
        guard paaIDs.productID == nil else { throw Failure(.paaFormatInvalid, "a PAA must not carry a product ID") }
        do { try AttestationCertificateRole.paa.checkProfile(paa) } catch {
            throw Failure(.paaFormatInvalid, error.description)
        }
        if paa.issuer.encoded == paa.subject.encoded, !AttestationSignatures.verify(paa, signedBy: paa) {
            throw Failure(.paaSignatureInvalid)
        }
        if AttestationTestCredentials.isTestPAA(paa, vendorID: paaIDs.vendorID) {
            report.usesTestCredentials = true
            guard allowTestDevices else {
                throw Failure(.testPAARejected, "PAA '\(report.paaName ?? "?")' (\(Self.hex(paiAKID))) is a test PAA")
            }
        }

        // The DAC at the commissioner's time; the PAI is not checked against it, since a DAC
        // may legitimately outlive the PAI that issued it.
        guard now >= p.dac.notBefore else { throw Failure(.dacNotYetValid, "notBefore \(p.dac.notBefore.iso8601)") }
        guard now <= p.dac.notAfter else { throw Failure(.dacExpired, "notAfter \(p.dac.notAfter.iso8601)") }

        // The chain at the DAC's issuance (the SDK validates the chain at the DAC's notBefore).
        let issuance = p.dac.notBefore
        guard p.pai.issuer.encoded == paa.subject.encoded else { throw Failure(.paiNotIssuedByPAA) }
        guard AttestationSignatures.verify(p.pai, signedBy: paa) else { throw Failure(.paiSignatureInvalid) }
        guard p.dac.issuer.encoded == p.pai.subject.encoded,
              p.dac.authorityKeyIdentifier?.keyIdentifier == p.pai.subjectKeyIdentifier
        else { throw Failure(.dacNotIssuedByPAI) }
        guard AttestationSignatures.verify(p.dac, signedBy: p.pai) else { throw Failure(.dacSignatureInvalid) }
        guard paa.notBefore <= issuance, issuance <= paa.notAfter else {
            throw Failure(.paaNotValidAtDACIssuance, "PAA \(paa.notBefore.iso8601)...\(paa.notAfter.iso8601), DAC issued \(issuance.iso8601)")
        }
        guard p.pai.notBefore <= issuance, issuance <= p.pai.notAfter else {
            throw Failure(.paiNotValidAtDACIssuance, "PAI \(p.pai.notBefore.iso8601)...\(p.pai.notAfter.iso8601), DAC issued \(issuance.iso8601)")
        }
        return Chain(paa: paa, paaVendorID: paaIDs.vendorID, paaSubjectKeyIdentifier: paiAKID)
    }

    private func verifyCertificationDeclaration(_ bytes: [UInt8], device: DeviceIdentity,
                                                report: inout AttestationVerification) throws(Failure) -> CertificationElements {
        let cd: CertificationDeclaration
        do { cd = try CertificationDeclaration(cms: bytes) } catch { throw Failure(.cdFormatInvalid, error.description) }
        guard let key = cdSigningKeys.key(forSubjectKeyIdentifier: cd.signerKeyIdentifier) else {
            throw Failure(.cdSignerNotFound, "signer key identifier \(Self.hex(cd.signerKeyIdentifier))")
        }
        if key.isTestKey {
            report.usesTestCredentials = true
            guard allowTestDevices else { throw Failure(.testCDSigningKeyRejected) }
        }
        guard cd.isSignatureValid(publicKey: key.publicKey) else { throw Failure(.cdSignatureInvalid) }
        let content: CertificationElements
        do { content = try cd.elements() } catch { throw Failure(.cdFormatInvalid, error.description) }

        // security_level, security_information and version_number are ignored (Matter Core 6.3.1).
        guard content.formatVersion == 1 else { throw Failure(.cdFormatVersionUnsupported, "format_version \(content.formatVersion)") }
        guard let type = CertificationElements.CertificationType(rawValue: content.certificationType) else {
            throw Failure(.cdCertificationTypeInvalid, "certification_type \(content.certificationType)")
        }
        // The test key may only sign development/test CDs.
        if key.isTestKey, type != .developmentAndTest {
            throw Failure(.cdTestKeyNotAllowedForCertificationType, "certification_type \(content.certificationType)")
        }
        if type == .developmentAndTest {
            report.usesTestCredentials = true
            guard allowTestDevices else { throw Failure(.certificationTypeTestRejected) }
        }

        guard content.vendorID == device.vendorID else {
            throw Failure(.cdVendorIdMismatch, "CD VID \(Self.hex(content.vendorID)), device VID \(Self.hex(device.vendorID))")
        }
        guard content.productIDs.contains(device.productID) else {
            throw Failure(.cdProductIdNotInList, "device PID \(Self.hex(device.productID)) not in \(content.productIDs.map { Self.hex($0) })")
        }
        let dacVID = device.ids.dac.vendorID, dacPID = device.ids.dac.productID
        let paiVID = device.ids.pai.vendorID, paiPID = device.ids.pai.productID
        if let originVID = content.dacOriginVendorID, let originPID = content.dacOriginProductID {
            // A CD for a product built on another vendor's certified module.
            guard dacVID == originVID, paiVID == originVID else {
                throw Failure(.cdDACOriginMismatch, "dac_origin_vendor_id \(Self.hex(originVID)), DAC VID \(Self.hex(dacVID)), PAI VID \(Self.hex(paiVID))")
            }
            guard dacPID == originPID, paiPID == nil || paiPID == originPID else {
                throw Failure(.cdDACOriginMismatch, "dac_origin_product_id \(Self.hex(originPID)), DAC PID \(Self.hex(dacPID)), PAI PID \(Self.hex(paiPID))")
            }
        } else {
            guard dacVID == content.vendorID, paiVID == content.vendorID else {
                throw Failure(.cdVendorIdMismatch, "CD VID \(Self.hex(content.vendorID)), DAC VID \(Self.hex(dacVID)), PAI VID \(Self.hex(paiVID))")
            }
            guard let dacPID, content.productIDs.contains(dacPID) else {
                throw Failure(.cdProductIdNotInList, "DAC PID \(Self.hex(dacPID)) not in the CD")
            }
            if let paiPID, !content.productIDs.contains(paiPID) {
                throw Failure(.cdProductIdNotInList, "PAI PID \(Self.hex(paiPID)) not in the CD")
            }
        }
        if let authorized = content.authorizedPAAs, !authorized.contains(device.chain.paaSubjectKeyIdentifier) {
            throw Failure(.cdPAANotAuthorized, "PAA \(Self.hex(device.chain.paaSubjectKeyIdentifier))")
        }
        return content
    }

    private func checkRevocation(_ p: ParsedPair, chain: Chain, at now: ASN1Time,
                                 report: inout AttestationVerification) throws(Failure) {
        let nowSeconds = now.unixSeconds
        for crl in crls where crl.covers(issuer: p.pai) || crl.covers(issuer: chain.paa) {
            let late = crl.secondsPastNextUpdate(at: nowSeconds)
            if late > crlStaleAfterSeconds, let next = crl.crl.nextUpdate {
                let date = (try? ASN1Time(unixSeconds: next))?.iso8601 ?? "\(next)"
                report.warnings.append("the CRL \(crl.name) is \(late / 86_400) days past its nextUpdate (\(date)); "
                                       + "revocations since then are unknown: run 'matterctl attestation trust-store update'")
            }
        }
        let dacCRL = crls.first { $0.revokes(p.dac) }
        let paiCRL = crls.first { $0.revokes(p.pai) }
        let dacInSet = revocationSet?.isRevoked(p.dac) ?? false
        let paiInSet = revocationSet?.isRevoked(p.pai) ?? false
        func source(_ crl: AttestationCRL?) -> String { crl.map { "on the CRL \($0.name)" } ?? "in the revocation set" }
        let dacRevoked = dacCRL != nil || dacInSet, paiRevoked = paiCRL != nil || paiInSet
        let dacText = "DAC serial \(Self.hex(p.dac.serialNumber)) \(source(dacCRL))"
        let paiText = "PAI serial \(Self.hex(p.pai.serialNumber)) \(source(paiCRL))"
        switch (dacRevoked, paiRevoked) {
        case (true, true): throw Failure(.paiAndDacRevoked, dacText + "; " + paiText)
        case (true, false): throw Failure(.dacRevoked, dacText)
        case (false, true): throw Failure(.paiRevoked, paiText)
        case (false, false): return
        }
    }

    /// Names the PAA a PAI chains to when it is not in the trust store: its subject, key
    /// identifier and vendor ID, as the PAI states them, and what to run.
    static func missingPAADescription(pai: X509Certificate, keyIdentifier: [UInt8]) -> String {
        let issuer = pai.issuer
        let cn = issuer.first(AttestationVendorProduct.commonNameAttribute)?.stringValue ?? "(no common name)"
        let vid = (try? AttestationVendorProduct(subjectAttributes: issuer.attributes.map { ($0.type, $0.value) }))?.vendorID
        let colon = Base16.encode(keyIdentifier, uppercase: true, separator: ":")
        return "the device chains to the PAA '\(cn)'\(vid.map { ", vendor ID \(hex($0))" } ?? ""), subject key ID \(colon), "
            + "which is not in the trust store; run 'matterctl attestation trust-store update' to fetch the DCL's PAAs, "
            + "or 'matterctl attestation trust-store add FILE' with the vendor's PAA certificate"
    }

    // MARK: - Helpers

    static func ids(of cert: X509Certificate) throws(CertificateError) -> AttestationVendorProduct {
        try AttestationVendorProduct(subjectAttributes: cert.subject.attributes.map { ($0.type, $0.value) })
    }

    static func hex(_ v: UInt16?) -> String {
        guard let v else { return "none" }
        let s = String(v, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    static func hex(_ bytes: [UInt8]) -> String { Base16.encode(bytes, uppercase: true) }
}
