import FoundationEssentials
import MatterPlatform
import MatterJSON

/// The parts of the CSA Distributed Compliance Ledger's REST API (the Cosmos gateway of its
/// PKI module) that the trust store reads, with the JSON fields python-matter-server and the
/// SDK's `generate_revocation_set.py` read:
///
/// - `GET /dcl/pki/root-certificates`: `approvedRootCertificates.certs[]`, each `subject`
///   (base64 DER Name) and `subjectKeyId` (colon-separated hex).
/// - `GET /dcl/pki/certificates/{subject}/{subjectKeyId}`: `approvedCertificates.certs[]`,
///   each `pemCert`, `isRoot`, `subjectAsText`, `vid`.
/// - `GET /dcl/pki/revocation-points`: `PkiRevocationDistributionPoint[]`, each `vid`, `pid`,
///   `label`, `isPAA`, `issuerSubjectKeyID` (hex), `crlSignerCertificate` (PEM),
///   `crlSignerDelegator` (PEM or empty), `dataURL`, `revocationType` (1: CRL), paginated by
///   `pagination.next_key` (`?pagination.key=`).
public struct DCLClient: Sendable {
    /// The production ledger's public REST endpoint.
    public static let production = URL(string: "https://on.dcl.csa-iot.org")!
    /// The test net's REST endpoint (test and development PAAs).
    public static let testNet = URL(string: "https://on.test-net.dcl.csa-iot.org")!

    /// Response size limits: a list, one certificate, one CRL.
    public static let listLimit = 4 << 20
    public static let certificateLimit = 64 << 10
    public static let crlLimit = 1 << 20
    /// At most this many roots or revocation points are read (the ledger holds ~150 roots).
    public static let maxItems = 5_000
    static let maxPages = 100

    /// A root the ledger lists as approved.
    public struct RootReference: Sendable, Hashable {
        public var subject: String
        public var subjectKeyID: String
    }

    /// One approved certificate as the ledger returns it.
    public struct ApprovedCertificate: Sendable, Hashable {
        public var pem: String
        public var isRoot: Bool
        public var subjectAsText: String?
        public var subjectKeyID: String?
    }

    /// A revocation distribution point (Matter Core 11.22's DCL schema).
    public struct RevocationPoint: Sendable, Hashable {
        public var vendorID: Int
        public var productID: Int
        public var label: String
        public var isPAA: Bool
        public var issuerSubjectKeyID: String
        public var crlSignerCertificate: String
        public var crlSignerDelegator: String?
        public var dataURL: String
        public var revocationType: Int
    }

    public let base: URL
    let http: any HTTPFetching

    public init(base: URL = DCLClient.production, http: any HTTPFetching = HTTPClientFetcher()) {
        self.base = base
        self.http = http
    }

    func url(_ path: String, query: String? = nil) throws(TrustStoreError) -> URL {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += path
        if let query { text += "?" + query }
        guard let url = URL(string: text) else { throw TrustStoreError(.invalidArgument, "cannot form a URL from \(text)") }
        return url
    }

    func json(_ url: URL, limit: Int) async throws(TrustStoreError) -> JSONObject {
        let body = try await http.get(url, limit: limit)
        guard let object = (try? JSONParser.parse(body))?.objectValue else {
            throw TrustStoreError(.responseInvalid, "\(url.absoluteString) did not answer a JSON object (\(body.count) bytes)")
        }
        return object
    }

    /// The approved root certificates.
    public func approvedRoots() async throws(TrustStoreError) -> [RootReference] {
        let url = try url("/dcl/pki/root-certificates")
        let doc = try await json(url, limit: Self.listLimit)
        guard let certs = doc["approvedRootCertificates"]?["certs"]?.array else {
            throw TrustStoreError(.responseInvalid, "\(url.absoluteString) has no approvedRootCertificates.certs list")
        }
        guard certs.count <= Self.maxItems else {
            throw TrustStoreError(.responseTooLarge, "\(url.absoluteString) lists \(certs.count) roots; the limit is \(Self.maxItems)")
        }
        return try certs.map { item throws(TrustStoreError) in
            guard let subject = item["subject"]?.string, let skid = item["subjectKeyId"]?.string,
                  !subject.isEmpty, !skid.isEmpty else {
                throw TrustStoreError(.responseInvalid, "\(url.absoluteString): a root without subject and subjectKeyId")
            }
            return RootReference(subject: subject, subjectKeyID: skid)
        }
    }

    /// The approved certificates with this subject and key identifier (usually one); empty when
    /// the ledger has none approved.
    public func approvedCertificates(_ root: RootReference) async throws(TrustStoreError) -> [ApprovedCertificate] {
        // The subject is base64 (A-Z a-z 0-9 + / =) and goes into the path as the references send it.
        let url = try url("/dcl/pki/certificates/\(root.subject)/\(root.subjectKeyID)")
        let doc: JSONObject
        do { doc = try await json(url, limit: Self.certificateLimit) } catch where error.code == .notFound {
            return []
        }
        guard let approved = doc["approvedCertificates"]?.objectValue else {
            if doc["code"] != nil { return [] }  // the gateway's "not found" error object
            throw TrustStoreError(.responseInvalid, "\(url.absoluteString) has no approvedCertificates object")
        }
        guard let certs = approved["certs"]?.array else {
            throw TrustStoreError(.responseInvalid, "\(url.absoluteString) has no approvedCertificates.certs list")
        }
        return try certs.map { item throws(TrustStoreError) in
            guard let pem = item["pemCert"]?.string else {
                throw TrustStoreError(.responseInvalid, "\(url.absoluteString): a certificate without pemCert")
            }
            return ApprovedCertificate(pem: pem, isRoot: item["isRoot"]?.bool ?? false,
                                       subjectAsText: item["subjectAsText"]?.string, subjectKeyID: item["subjectKeyId"]?.string)
        }
    }

    /// Every revocation distribution point, following pagination.
    public func revocationPoints() async throws(TrustStoreError) -> [RevocationPoint] {
        var points: [RevocationPoint] = []
        var key: String?
        for _ in 0..<Self.maxPages {
            let query = key.map { "pagination.key=" + $0.percentEncodedAlphanumerics }
            let url = try url("/dcl/pki/revocation-points", query: query)
            let doc = try await json(url, limit: Self.listLimit)
            guard let list = doc["PkiRevocationDistributionPoint"]?.array else {
                throw TrustStoreError(.responseInvalid, "\(url.absoluteString) has no PkiRevocationDistributionPoint list")
            }
            for item in list {
                guard let p = item.objectValue, let label = p["label"]?.string,
                      let skid = p["issuerSubjectKeyID"]?.string, let signer = p["crlSignerCertificate"]?.string,
                      let dataURL = p["dataURL"]?.string else {
                    throw TrustStoreError(.responseInvalid, "\(url.absoluteString): a revocation point without label, "
                                          + "issuerSubjectKeyID, crlSignerCertificate or dataURL")
                }
                let delegator = p["crlSignerDelegator"]?.string.flatMap { $0.isEmpty ? nil : $0 }
                points.append(RevocationPoint(vendorID: Self.int(p["vid"]), productID: Self.int(p["pid"]), label: label,
                                              isPAA: p["isPAA"]?.bool ?? false, issuerSubjectKeyID: skid,
                                              crlSignerCertificate: signer, crlSignerDelegator: delegator, dataURL: dataURL,
                                              revocationType: Self.int(p["revocationType"])))
            }
            guard points.count <= Self.maxItems else {
                throw TrustStoreError(.responseTooLarge, "the DCL lists more than \(Self.maxItems) revocation points")
            }
            let next = doc["pagination"]?["next_key"]?.string
            guard let next, !next.isEmpty else { return points }
            key = next
        }
        throw TrustStoreError(.responseInvalid, "the DCL's revocation points span more than \(Self.maxPages) pages")
    }

    /// A CRL from a distribution point (DER).
    public func crl(_ point: RevocationPoint) async throws(TrustStoreError) -> [UInt8] {
        guard let url = URL(string: point.dataURL) else {
            throw TrustStoreError(.invalidArgument, "revocation point '\(point.label)' has an invalid dataURL")
        }
        return try await http.get(url, limit: Self.crlLimit)
    }

    /// The ledger writes numbers as JSON numbers or, in Cosmos style, as strings.
    static func int(_ value: JSONValue?) -> Int {
        if let n = value?.int64, let i = Int(exactly: n) { return i }
        if let s = value?.string, let n = Int(s) { return n }
        return 0
    }
}
