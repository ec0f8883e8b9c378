import FoundationEssentials
import MatterCertificates

extension TrustStoreEditor {
    /// Refreshes the store from the DCL:
    ///
    /// 1. Reads the list of approved root certificates; then each one by subject and subject
    ///    key ID. A root the ledger lists but holds no approved certificate for, one that is not
    ///    marked a root, or one that fails the PAA checks (`PAACandidate`) or whose key ID is
    ///    not the listed one, is skipped with the reason.
    /// 2. Reads the revocation distribution points; fetches each CRL of an issuer that chains
    ///    to a trusted PAA and keeps it when `AttestationCRL` accepts it (signer, signature).
    ///    An unreachable CRL keeps the one stored before, if any.
    /// 3. Replaces `store.json` once, at the end. Any failure of the DCL itself (unreachable,
    ///    truncated, oversized or malformed answer) throws before anything is written.
    public func update(from dcl: DCLClient) async throws(TrustStoreError) -> TrustStoreReport {
        var (doc, store) = try current()
        var report = TrustStoreReport()
        let origin = "dcl \(dcl.base.absoluteString)"

        for root in try await dcl.approvedRoots() {
            let listedKeyID = TrustStoreHex.decode(root.subjectKeyID)
            let certificates = try await dcl.approvedCertificates(root)
            let roots = certificates.filter(\.isRoot)
            if certificates.isEmpty || roots.isEmpty {
                report.skipped.append(.init(name: Self.subjectName(root.subject), subjectKeyID: TrustStoreHex.encode(listedKeyID ?? []),
                                            reason: certificates.isEmpty ? "not approved: the DCL holds no approved certificate for it"
                                                                         : "not a root certificate (isRoot is false)"))
                continue
            }
            for approved in roots {
                let ders = AttestationPEM.blocks(in: Array(approved.pem.utf8))
                guard ders.count == 1 else {
                    report.skipped.append(.init(name: approved.subjectAsText ?? Self.subjectName(root.subject),
                                                subjectKeyID: TrustStoreHex.encode(listedKeyID ?? []),
                                                reason: "malformed: pemCert holds \(ders.count) PEM certificates"))
                    continue
                }
                let cert: X509Certificate
                do { cert = try X509Certificate(derEncoded: ders[0]) } catch {
                    report.skipped.append(.init(name: approved.subjectAsText ?? Self.subjectName(root.subject),
                                                subjectKeyID: TrustStoreHex.encode(listedKeyID ?? []),
                                                reason: "malformed certificate: \(error)"))
                    continue
                }
                if cert.subjectKeyIdentifier != listedKeyID || Data(base64Encoded: root.subject).map({ [UInt8]($0) }) != cert.subject.encoded {
                    report.skipped.append(.init(name: Self.commonName(cert) ?? "(no common name)",
                                                subjectKeyID: TrustStoreHex.encode(cert.subjectKeyIdentifier ?? []),
                                                reason: "its subject or subject key ID is not the one the DCL lists"))
                    continue
                }
                consider(ders, origin: origin, doc: &doc, store: &store, report: &report)
            }
        }

        try await refreshCRLs(from: dcl, doc: &doc, store: store, report: &report)
        doc.lastUpdate = .init(source: dcl.base.absoluteString, at: clock())
        try doc.write(folder: folder)
        return report
    }

    private func refreshCRLs(from dcl: DCLClient, doc: inout TrustStoreDocument, store: TrustStore,
                             report: inout TrustStoreReport) async throws(TrustStoreError) {
        let trust = store.paaTrustStore
        var kept: [TrustStoreDocument.CRL] = []
        for point in try await dcl.revocationPoints() {
            let name = "\(point.label) (VID \(point.vendorID))"
            func skip(_ reason: String) {
                report.crlsSkipped.append(.init(name: name, subjectKeyID: point.issuerSubjectKeyID, reason: reason))
                // Keep what an earlier update stored for this point.
                if let old = doc.crls.first(where: { $0.url == point.dataURL && $0.issuerSubjectKeyID == TrustStoreHex.decode(point.issuerSubjectKeyID).map({ TrustStoreHex.encode($0) }) }) {
                    kept.append(old)
                }
            }
            guard point.revocationType == 1 else { skip("revocation type \(point.revocationType) is not a CRL"); continue }
            guard let signer = AttestationPEM.blocks(in: Array(point.crlSignerCertificate.utf8)).first else {
                skip("crlSignerCertificate is not PEM"); continue
            }
            let delegator = point.crlSignerDelegator.flatMap { AttestationPEM.blocks(in: Array($0.utf8)).first }
            if point.crlSignerDelegator != nil, delegator == nil { skip("crlSignerDelegator is not PEM"); continue }
            let der: [UInt8]
            do { der = try await dcl.crl(point) } catch { skip(error.message); continue }
            let crl: AttestationCRL
            do {
                crl = try AttestationCRL(crlDER: der, signerCertificate: signer, delegatorCertificate: delegator,
                                         issuerSubjectKeyIdentifier: TrustStoreHex.decode(point.issuerSubjectKeyID),
                                         label: name, url: point.dataURL, trustStore: trust)
            } catch {
                skip("\(error)"); continue
            }
            kept.append(.init(der: Data(der).base64EncodedString(), signer: Self.pem(signer), delegator: delegator.map(Self.pem),
                              issuerSubjectKeyID: TrustStoreHex.encode(crl.issuerSubjectKeyIdentifier), label: name,
                              vendorID: point.vendorID, url: point.dataURL, nextUpdate: crl.crl.nextUpdate, fetched: clock()))
            report.crlsStored.append(.init(name: name, subjectKeyID: TrustStoreHex.encode(crl.issuerSubjectKeyIdentifier), reason: nil))
        }
        doc.crls = kept
    }

    /// The common name of a base64 DER Name, for messages.
    static func subjectName(_ base64: String) -> String {
        guard let der = Data(base64Encoded: base64), let node = try? DER.parse([UInt8](der)),
              let name = try? X509Name(derNode: node) else { return "(subject \(base64.prefix(24))…)" }
        return name.first(AttestationVendorProduct.commonNameAttribute)?.stringValue ?? "(no common name)"
    }
}
