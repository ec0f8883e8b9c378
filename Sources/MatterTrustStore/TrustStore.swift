import FoundationEssentials
import MatterCertificates

/// The PAAs and CRLs a commissioner trusts. The default store is the production PAA roots
/// compiled into the binary (the CSA's DCL mirror, `credentials/paa-production/`) plus the
/// `trust-store/` folder of the hub's state directory: its `store.json` (what `trust-store
/// add` and `update` keep) and any `*.pem`/`*.der` file put there by hand. A `--paa-store
/// DIR` replaces it with that folder alone, as chip-tool's `--paa-trust-store-path` does.
///
/// The roots are compiled in rather than shipped as resource files so that an installed
/// `matterctl` works from any path with nothing beside it; `update` refreshes them from the DCL.
public struct TrustStore: Sendable {
    /// The folder in the state directory.
    public static let folderName = "trust-store"

    /// The trust-store folder this store reads and writes, when it has one.
    public let folder: String?
    public private(set) var paas: [TrustedPAA] = []
    public private(set) var crls: [AttestationCRL] = []
    /// Files or entries that were not loaded, and why.
    public private(set) var warnings: [String] = []
    /// When `update` last ran, and against what.
    public private(set) var lastUpdate: (source: String, at: Int64)?

    /// The production roots compiled into the binary.
    public static var bundled: [TrustedPAA] {
        BundledPAARoots.files.compactMap { file in
            guard let der = AttestationPEM.blocks(in: Array(file.pem.utf8)).first,
                  let cert = try? X509Certificate(derEncoded: der) else { return nil }
            return TrustedPAA(certificate: cert, origin: "bundled", file: file.name)
        }
    }

    /// The default store: bundled roots plus `<stateDirectory>/trust-store/`.
    public static func load(stateDirectory: String) throws(TrustStoreError) -> TrustStore {
        try load(folder: stateDirectory + "/" + folderName, includeBundled: true)
    }

    /// The store of a folder; with `includeBundled`, on top of the compiled-in roots.
    public static func load(folder: String, includeBundled: Bool) throws(TrustStoreError) -> TrustStore {
        var store = TrustStore(folder: folder)
        let doc = try TrustStoreDocument.read(folder: folder)
        let distrusted = Set(doc.distrusted)
        if includeBundled {
            for paa in bundled where !distrusted.contains(paa.subjectKeyIdentifierHex) { store.insert(paa) }
        }
        for entry in doc.paas {
            guard let der = AttestationPEM.blocks(in: Array(entry.pem.utf8)).first,
                  let cert = try? X509Certificate(derEncoded: der) else {
                store.warnings.append("\(folder)/\(TrustStoreDocument.fileName): an entry from \(entry.origin) does not parse; skipped")
                continue
            }
            store.insert(TrustedPAA(certificate: cert, origin: entry.origin, file: nil))
        }
        store.loadLooseFiles()
        store.lastUpdate = doc.lastUpdate.map { ($0.source, $0.at) }
        store.loadCRLs(doc.crls)
        return store
    }

    /// A folder of PAA files only (`--paa-store`): no bundled roots, no CRLs.
    public static func folderOnly(_ folder: String) throws(TrustStoreError) -> TrustStore {
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory else {
            throw TrustStoreError(.storage, "the PAA trust store folder \(folder) does not exist")
        }
        var store = TrustStore(folder: nil)
        store.loadLooseFiles(from: folder, origin: folder)
        return store
    }

    init(folder: String?) {
        self.folder = folder
    }

    /// The verifier's view: every PAA.
    public var paaTrustStore: PAATrustStore {
        PAATrustStore(certificates: paas.map(\.certificate))
    }

    public var count: Int { paas.count }

    /// The PAA with this subject key identifier.
    public func paa(subjectKeyIdentifier: [UInt8]) -> [TrustedPAA] {
        paas.filter { $0.subjectKeyIdentifier == subjectKeyIdentifier }
    }

    /// Adds a PAA unless the same certificate is already present (the first origin wins).
    mutating func insert(_ paa: TrustedPAA) {
        if !paas.contains(where: { $0.certificate.derBytes == paa.certificate.derBytes }) { paas.append(paa) }
    }

    /// `*.pem` and `*.der` files put in the folder by hand (chip-tool's folder form).
    private mutating func loadLooseFiles(from directory: String? = nil, origin: String? = nil) {
        guard let directory = directory ?? folder,
              let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        var files: [(name: String, contents: [UInt8])] = []
        for name in names.sorted() where name.lowercased().hasSuffix(".pem") || name.lowercased().hasSuffix(".der") {
            if let data = FileManager.default.contents(atPath: directory + "/" + name) { files.append((name, [UInt8](data))) }
        }
        let parsed = PAATrustStore(files: files)
        for skipped in parsed.skipped { warnings.append("\(directory)/\(skipped.file): \(skipped.reason); skipped") }
        for cert in parsed.certificates {
            // PAATrustStore keeps file order; name the file that holds each certificate.
            let file = files.first { PAACandidate.certificates(inFile: $0.contents).contains(cert.derBytes) }?.name
            let where_ = origin.map { "\($0)/\(file ?? "?")" } ?? "\(Self.folderName)/\(file ?? "?")"
            insert(TrustedPAA(certificate: cert, origin: where_, file: file))
        }
    }

    /// CRLs are re-checked at every load against the PAAs now trusted.
    private mutating func loadCRLs(_ entries: [TrustStoreDocument.CRL]) {
        let trust = paaTrustStore
        for entry in entries {
            do throws(CertificateError) {
                guard let der = AttestationPEM.base64Decode(Array(entry.der.utf8)),
                      let signer = AttestationPEM.blocks(in: Array(entry.signer.utf8)).first else {
                    throw .invalidArgument("its stored bytes are not base64/PEM")
                }
                let delegator = entry.delegator.flatMap { AttestationPEM.blocks(in: Array($0.utf8)).first }
                crls.append(try AttestationCRL(crlDER: der, signerCertificate: signer, delegatorCertificate: delegator,
                                               issuerSubjectKeyIdentifier: TrustStoreHex.decode(entry.issuerSubjectKeyID),
                                               label: entry.label, url: entry.url, trustStore: trust))
            } catch {
                warnings.append("the stored CRL '\(entry.label)' (\(entry.url)) is not usable: \(error); skipped")
            }
        }
    }
}
