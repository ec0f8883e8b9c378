import FoundationEssentials
import MatterCertificates

/// What an `add`, `update` or `import` did: every certificate and CRL it considered, kept or not.
public struct TrustStoreReport: Sendable, Hashable {
    public struct Item: Sendable, Hashable {
        /// The certificate's subject (common name) or the CRL's label.
        public var name: String
        /// Subject key identifier (hex) of the PAA, or of the CRL's issuer.
        public var subjectKeyID: String
        /// Why it was skipped; nil when it was added.
        public var reason: String?
    }

    public var added: [Item] = []
    /// Already in the store (bundled or stored), unchanged.
    public var unchanged: [Item] = []
    public var skipped: [Item] = []
    public var crlsStored: [Item] = []
    public var crlsSkipped: [Item] = []
}

/// Changes `<state>/trust-store/store.json`. Each operation reads the document, computes the
/// new one completely (every download and check first) and only then replaces the file, so a
/// failure at any point leaves the store as it was.
public struct TrustStoreEditor: Sendable {
    public let folder: String
    /// Unix seconds now (injected for tests).
    public var clock: @Sendable () -> Int64

    public init(stateDirectory: String, clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.folder = stateDirectory + "/" + TrustStore.folderName
        self.clock = clock
    }

    var now: ASN1Time {
        (try? ASN1Time(unixSeconds: clock())) ?? .noWellDefinedExpiration
    }

    func current() throws(TrustStoreError) -> (TrustStoreDocument, TrustStore) {
        (try TrustStoreDocument.read(folder: folder), try TrustStore.load(folder: folder, includeBundled: true))
    }

    // MARK: - add / remove

    /// Adds every PAA in a file's contents (PEM or DER); refuses the file when none passes.
    public func add(fileContents: [UInt8], origin: String) throws(TrustStoreError) -> TrustStoreReport {
        var (doc, store) = try current()
        let ders = PAACandidate.certificates(inFile: fileContents)
        guard !ders.isEmpty else { throw TrustStoreError(.invalidCertificate, "\(origin) holds no certificate (PEM or DER)") }
        var report = TrustStoreReport()
        consider(ders, origin: origin, doc: &doc, store: &store, report: &report)
        guard report.skipped.isEmpty || !report.added.isEmpty || !report.unchanged.isEmpty else {
            throw TrustStoreError(.invalidCertificate, "\(origin): " + report.skipped.map { $0.reason ?? "" }.joined(separator: "; "))
        }
        if !report.added.isEmpty { try doc.write(folder: folder) }
        return report
    }

    /// Removes the PAA(s) with this subject key identifier: stored ones are deleted, bundled
    /// ones are marked distrusted. Files put in the folder by hand must be deleted by hand.
    public func remove(subjectKeyID text: String) throws(TrustStoreError) -> [TrustedPAA] {
        guard let skid = TrustStoreHex.decode(text) else {
            throw TrustStoreError(.invalidArgument, "'\(text)' is not a subject key identifier (hex, colons allowed)")
        }
        var doc = try TrustStoreDocument.read(folder: folder)
        let store = try TrustStore.load(folder: folder, includeBundled: true)
        let matches = store.paa(subjectKeyIdentifier: skid)
        guard !matches.isEmpty else {
            throw TrustStoreError(.notFound, "no PAA in the trust store has subject key ID \(TrustStoreHex.encode(skid, separator: ":"))")
        }
        if let loose = matches.first(where: { $0.origin.hasPrefix(TrustStore.folderName + "/") }) {
            throw TrustStoreError(.storage, "the PAA is the file \(folder)/\(loose.file ?? "?"); delete that file to remove it")
        }
        doc.paas.removeAll { entry in
            AttestationPEM.blocks(in: Array(entry.pem.utf8)).first.flatMap { try? X509Certificate(derEncoded: $0) }?
                .subjectKeyIdentifier == skid
        }
        let hex = TrustStoreHex.encode(skid)
        if matches.contains(where: { $0.origin == "bundled" }), !doc.distrusted.contains(hex) { doc.distrusted.append(hex) }
        try doc.write(folder: folder)
        return matches
    }

    // MARK: - import a folder

    /// Imports every `*.pem`/`*.der` of a folder (e.g. the SDK's paa-root-certs), each checked
    /// as a PAA. Nothing is written when nothing is added.
    public func importDirectory(_ path: String) throws(TrustStoreError) -> TrustStoreReport {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            throw TrustStoreError(.storage, "cannot list the folder \(path)")
        }
        var (doc, store) = try current()
        var report = TrustStoreReport()
        for name in names.sorted() where name.lowercased().hasSuffix(".pem") || name.lowercased().hasSuffix(".der") {
            guard let data = FileManager.default.contents(atPath: path + "/" + name) else {
                report.skipped.append(.init(name: name, subjectKeyID: "", reason: "cannot read the file"))
                continue
            }
            let ders = PAACandidate.certificates(inFile: [UInt8](data))
            if ders.isEmpty { report.skipped.append(.init(name: name, subjectKeyID: "", reason: "no certificate in the file")) }
            consider(ders, origin: "dir \(path)", doc: &doc, store: &store, report: &report, fileName: name)
        }
        if !report.added.isEmpty { try doc.write(folder: folder) }
        return report
    }

    /// Checks candidate certificates and records each as added, unchanged or skipped.
    func consider(_ ders: [[UInt8]], origin: String, doc: inout TrustStoreDocument, store: inout TrustStore,
                  report: inout TrustStoreReport, fileName: String? = nil) {
        for der in ders {
            switch PAACandidate.check(der: der, at: now) {
            case .failure(let refusal):
                let name = (try? X509Certificate(derEncoded: der)).flatMap(Self.commonName) ?? fileName ?? "(unparsable)"
                let skid = (try? X509Certificate(derEncoded: der))?.subjectKeyIdentifier.map { TrustStoreHex.encode($0) } ?? ""
                report.skipped.append(.init(name: name, subjectKeyID: skid, reason: refusal.reason))
            case .success(let cert):
                let item = TrustStoreReport.Item(name: Self.commonName(cert) ?? "(no common name)",
                                                 subjectKeyID: TrustStoreHex.encode(cert.subjectKeyIdentifier ?? []), reason: nil)
                if store.paas.contains(where: { $0.certificate.derBytes == cert.derBytes }) {
                    report.unchanged.append(item)
                } else {
                    doc.paas.append(.init(pem: Self.pem(cert.derBytes), origin: origin, added: clock()))
                    doc.distrusted.removeAll { $0 == item.subjectKeyID }
                    store.insert(TrustedPAA(certificate: cert, origin: origin, file: fileName))
                    report.added.append(item)
                }
            }
        }
    }

    static func commonName(_ cert: X509Certificate) -> String? {
        cert.subject.first(AttestationVendorProduct.commonNameAttribute)?.stringValue
    }

    static func pem(_ der: [UInt8]) -> String {
        let b64 = Data(der).base64EncodedString()
        var lines = ["-----BEGIN CERTIFICATE-----"]
        var i = b64.startIndex
        while i < b64.endIndex {
            let j = b64.index(i, offsetBy: 64, limitedBy: b64.endIndex) ?? b64.endIndex
            lines.append(String(b64[i..<j]))
            i = j
        }
        lines.append("-----END CERTIFICATE-----")
        return lines.joined(separator: "\n") + "\n"
    }
}
