import Foundation
import MatterCertificates
import MatterCrypto
import TestSupport

/// A stand-in for the DCL's REST API on loopback: the documents it serves have the shape of the
/// ledger's (`approvedRootCertificates`, `approvedCertificates`, `PkiRevocationDistributionPoint`),
/// filled with generated PAAs and CRLs.
final class DCLStandIn: @unchecked Sendable {
    typealias Builder = AttestationChainBuilder
    let server: LoopbackHTTPServer
    private var roots: [[String: Any]] = []
    private var points: [[String: Any]] = []

    init() throws {
        server = try LoopbackHTTPServer()
        commit()
    }

    deinit { server.stop() }

    var url: URL { URL(string: server.baseURL)! }

    static func pem(_ der: [UInt8]) -> String {
        let b64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(b64)\n-----END CERTIFICATE-----\n"
    }

    static func colonHex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: ":")
    }

    /// Lists a root and serves its certificate document. `approved: false` lists it but
    /// answers the certificate query with an empty approved list (proposed, not approved).
    func publish(_ der: [UInt8], subject: [UInt8], keyID: [UInt8], approved: Bool = true, isRoot: Bool = true,
                 pemCert: String? = nil) {
        let subjectB64 = Data(subject).base64EncodedString()
        let skid = Self.colonHex(keyID)
        roots.append(["subject": subjectB64, "subjectKeyId": skid])
        let cert: [String: Any] = ["pemCert": pemCert ?? Self.pem(der), "serialNumber": "1", "issuer": subjectB64,
                                   "authorityKeyId": skid, "rootSubject": subjectB64, "rootSubjectKeyId": skid,
                                   "isRoot": isRoot, "owner": "dcl1xyz", "subject": subjectB64, "subjectKeyId": skid,
                                   "approvals": [], "subjectAsText": "CN=generated", "rejects": [], "vid": 0x1234]
        let doc: [String: Any] = ["approvedCertificates": ["subject": subjectB64, "subjectKeyId": skid,
                                                           "certs": approved ? [cert] : [], "schemaVersion": 0]]
        server.route("/dcl/pki/certificates/\(subjectB64)/\(skid)", .ok(Self.json(doc)))
        commit()
    }

    func publish(_ issued: Builder.Issued, approved: Bool = true, isRoot: Bool = true) {
        publish(issued.der, subject: issued.subject, keyID: issued.keyID, approved: approved, isRoot: isRoot)
    }

    /// A revocation point whose CRL is served at `/crl/<name>.crl`.
    func revocationPoint(label: String, vid: Int, isPAA: Bool, signer: Builder.Issued, crl: LoopbackHTTPServer.Response,
                         name: String) {
        let path = "/crl/\(name).crl"
        server.route(path, crl)
        points.append(["vid": vid, "label": label, "issuerSubjectKeyID": Self.colonHex(signer.keyID).replacingOccurrences(of: ":", with: ""),
                       "pid": 0, "isPAA": isPAA, "crlSignerCertificate": Self.pem(signer.der), "dataURL": server.baseURL + path,
                       "dataFileSize": "0", "dataDigest": "", "dataDigestType": 0, "revocationType": 1, "schemaVersion": 0,
                       "crlSignerDelegator": ""])
        commit()
    }

    /// A CRL signed by `issuer`, listing `serials`, with nextUpdate `next` (Unix seconds).
    static func crl(by issuer: Builder.Issued, serials: [[UInt8]], now: Int64, next: Int64) throws -> [UInt8] {
        try CertificateRevocationList.issue(signedBy: issuer.key, issuerName: issuer.subject, thisUpdate: now - 3600,
                                            nextUpdate: next, revokedSerialNumbers: serials, authorityKeyIdentifier: issuer.keyID)
    }

    private func commit() {
        server.route("/dcl/pki/root-certificates",
                     .ok(Self.json(["approvedRootCertificates": ["schemaVersion": 0, "certs": roots]])))
        server.route("/dcl/pki/revocation-points",
                     .ok(Self.json(["PkiRevocationDistributionPoint": points, "pagination": ["next_key": NSNull(), "total": "\(points.count)"]])))
    }

    static func json(_ object: Any) -> [UInt8] {
        [UInt8]((try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }
}
