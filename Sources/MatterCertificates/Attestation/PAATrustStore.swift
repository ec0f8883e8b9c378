/// The Product Attestation Authorities a commissioner trusts (Matter Core 6.2.3), found by the
/// subject key identifier a PAI names as its authority key identifier. It is filled from a
/// folder in chip-tool's `--paa-trust-store-path` form (every `*.der` and `*.pem` file) by the
/// caller, which reads the files; this type only parses them.
public struct PAATrustStore: Sendable {
    /// A file that was skipped, and why.
    public struct Skipped: Sendable, Hashable {
        public let file: String
        public let reason: String
    }

    public private(set) var certificates: [X509Certificate]
    /// Files passed to `init(files:)` that held no usable certificate.
    public private(set) var skipped: [Skipped] = []

    public init(certificates: [X509Certificate] = []) {
        self.certificates = certificates
    }

    /// Builds a store from named file contents: names ending in `.der` are one DER certificate,
    /// names ending in `.pem` hold PEM CERTIFICATE blocks; other names are ignored. A file that
    /// does not parse as an X.509 certificate with a subject key identifier is skipped (listed
    /// in `skipped`), as chip-tool skips it.
    public init(files: [(name: String, contents: [UInt8])]) {
        self.init()
        for (name, contents) in files.sorted(by: { $0.name < $1.name }) {
            let lower = name.lowercased()
            let ders: [[UInt8]]
            if lower.hasSuffix(".der") {
                ders = [contents]
            } else if lower.hasSuffix(".pem") {
                ders = AttestationPEM.blocks(in: contents)
                if ders.isEmpty { skipped.append(Skipped(file: name, reason: "no PEM CERTIFICATE block")) }
            } else {
                continue
            }
            for der in ders {
                do {
                    try add(derCertificate: der)
                } catch {
                    skipped.append(Skipped(file: name, reason: error.description))
                }
            }
        }
    }

    /// Adds one PAA certificate (duplicates of an existing certificate are ignored).
    public mutating func add(derCertificate der: [UInt8]) throws(CertificateError) {
        let cert = try X509Certificate(derEncoded: der)
        guard let skid = cert.subjectKeyIdentifier, !skid.isEmpty else {
            throw .invalidExtension("subjectKeyIdentifier", "a PAA needs one to be found by PAIs")
        }
        if !certificates.contains(where: { $0.derBytes == der }) { certificates.append(cert) }
    }

    /// The PAA whose subject key identifier is `keyIdentifier` (a PAI's authority key identifier).
    /// When several share the key (a PAA re-issued under a new name), the one whose subject is
    /// `issuerName` (the PAI's issuer DN, DER) is preferred.
    public func certificate(forSubjectKeyIdentifier keyIdentifier: [UInt8], issuerName: [UInt8]? = nil) -> X509Certificate? {
        let candidates = certificates.filter { $0.subjectKeyIdentifier == keyIdentifier }
        return candidates.first { $0.subject.encoded == issuerName } ?? candidates.first
    }

    public var count: Int { certificates.count }
}
