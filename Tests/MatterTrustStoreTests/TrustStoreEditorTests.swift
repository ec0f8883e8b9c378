import Foundation
import MatterCertificates
import MatterCrypto
import MatterTrustStore
import Testing
import TestSupport

/// `add`, `remove` and the offline `import` of a folder, and `update` against a DCL stand-in on
/// loopback: what is added, what is refused and why, and that a failing DCL changes nothing.
@Suite struct TrustStoreEditorTests {
    typealias Builder = AttestationChainBuilder
    static let now: Int64 = 1_780_272_000  // 2026-06-01
    static let storeFile = "/trust-store/store.json"

    struct Fixture {
        let state: String
        let editor: TrustStoreEditor
        init() throws {
            state = try TrustStoreTests.temporaryDirectory()
            editor = TrustStoreEditor(stateDirectory: state, clock: { TrustStoreEditorTests.now })
        }
        func store() throws -> TrustStore { try TrustStore.load(stateDirectory: state) }
        func storeBytes() -> Data? { FileManager.default.contents(atPath: state + TrustStoreEditorTests.storeFile) }
        func cleanup() { try? FileManager.default.removeItem(atPath: state) }
    }

    static func dcl(_ standIn: DCLStandIn) -> DCLClient {
        DCLClient(base: standIn.url, http: HTTPClientFetcher(timeout: 5))
    }

    // MARK: - add / remove / import

    @Test func addThenRemoveAStoredPAA() throws {
        let f = try Fixture()
        defer { f.cleanup() }
        let paa = try Builder.chain(vid: 0x1234, pid: 1).paa
        let report = try f.editor.add(fileContents: Array(DCLStandIn.pem(paa.der).utf8), origin: "file acme.pem")
        #expect(report.added.map(\.subjectKeyID) == [TrustStoreHex.encode(paa.keyID)])
        #expect(try f.store().count == 60)
        #expect(try f.store().paas.last?.origin == "file acme.pem")
        // Adding it again changes nothing.
        #expect(try f.editor.add(fileContents: paa.der, origin: "file acme.der").unchanged.count == 1)

        let removed = try f.editor.remove(subjectKeyID: DCLStandIn.colonHex(paa.keyID))
        #expect(removed.count == 1)
        #expect(try f.store().count == 59)
        #expect(throws: TrustStoreError.self) { try f.editor.remove(subjectKeyID: TrustStoreHex.encode(paa.keyID)) }
    }

    @Test func removingABundledRootDistrustsIt() throws {
        let f = try Fixture()
        defer { f.cleanup() }
        let ikea = "6B:31:8C:FC:E9:99:20:D7:32:8F:5F:43:6D:5E:A3:32:B8:B7:5D:9A"
        #expect(try f.editor.remove(subjectKeyID: ikea).first?.origin == "bundled")
        let store = try f.store()
        #expect(store.count == 58)
        #expect(store.paa(subjectKeyIdentifier: TrustStoreHex.decode(ikea)!).isEmpty)
    }

    @Test func addRefusesNonPAAs() throws {
        let f = try Fixture()
        defer { f.cleanup() }
        let chain = try Builder.chain(vid: 0x1234, pid: 1)
        let expired = try Builder.issue(.paa, cn: "Old PAA", vid: 0x1234, pid: nil, issuer: nil, serial: 1,
                                        notBefore: try ASN1Time(year: 2020, month: 1, day: 1, hour: 0, minute: 0, second: 0),
                                        notAfter: try ASN1Time(year: 2025, month: 1, day: 1, hour: 0, minute: 0, second: 0))
        let cases: [([UInt8], String)] = [
            (chain.pai.der, "not self-signed"),
            (chain.dac.der, "not self-signed"),
            (expired.der, "expired"),
            (Array(chain.paa.der.dropLast(3)), "malformed"),
            (Array("-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----".utf8), "no certificate"),
        ]
        for (bytes, reason) in cases {
            #expect {
                try f.editor.add(fileContents: bytes, origin: "file x")
            } throws: { error in
                (error as? TrustStoreError)?.message.contains(reason) == true
            }
        }
        #expect(f.storeBytes() == nil)
    }

    @Test func importDirectoryKeepsOnlyPAAs() throws {
        let f = try Fixture()
        defer { f.cleanup() }
        let dir = try TrustStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let chain = try Builder.chain(vid: 0x1234, pid: 1)
        try Data(chain.paa.der).write(to: URL(fileURLWithPath: dir + "/paa.der"))
        try Data(chain.pai.der).write(to: URL(fileURLWithPath: dir + "/pai.der"))
        try Data(BundledPAARootsSample.firstPEM.utf8).write(to: URL(fileURLWithPath: dir + "/bundled.pem"))
        let report = try f.editor.importDirectory(dir)
        #expect(report.added.count == 1)
        #expect(report.unchanged.count == 1)
        #expect(report.skipped.count == 1)
        #expect(report.skipped.first?.reason?.contains("not self-signed") == true)
        #expect(try f.store().paas.last?.origin == "dir \(dir)")
    }

    // MARK: - update from the DCL stand-in

    @Test func updateAddsApprovedPAAsAndRefusesTheRest() async throws {
        let f = try Fixture()
        defer { f.cleanup() }
        let dcl = try DCLStandIn()
        let good = try Builder.chain(vid: 0x1234, pid: 1)
        let unapproved = try Builder.chain(vid: 0x1235, pid: 1).paa
        let notRoot = try Builder.chain(vid: 0x1236, pid: 1)
        let expired = try Builder.issue(.paa, cn: "Expired PAA", vid: 0x1237, pid: nil, issuer: nil, serial: 1,
                                        notBefore: try ASN1Time(year: 2020, month: 1, day: 1, hour: 0, minute: 0, second: 0),
                                        notAfter: try ASN1Time(year: 2025, month: 1, day: 1, hour: 0, minute: 0, second: 0))
        let profile = try Builder.issue(.pai, cn: "Self-signed PAI", vid: 0x1238, pid: nil, issuer: nil, serial: 1)
        let malformed = try Builder.chain(vid: 0x1239, pid: 1).paa
        dcl.publish(good.paa)
        dcl.publish(unapproved, approved: false)
        dcl.publish(notRoot.pai)  // listed as a root, but it is the PAI: not self-signed
        dcl.publish(expired)
        dcl.publish(profile)  // self-signed but with path length 0: not the PAA profile
        dcl.publish(malformed.der, subject: malformed.subject, keyID: malformed.keyID,
                    pemCert: nil)
        dcl.server.route("/dcl/pki/certificates/\(Data(malformed.subject).base64EncodedString())/\(DCLStandIn.colonHex(malformed.keyID))",
                         .ok(DCLStandIn.json(["approvedCertificates": ["certs": [["pemCert": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----", "isRoot": true]]]])))

        let report = try await f.editor.update(from: Self.dcl(dcl))
        #expect(report.added.map(\.name) == ["Acme PAA"])
        let reasons = Dictionary(report.skipped.map { ($0.subjectKeyID, $0.reason ?? "") }, uniquingKeysWith: { a, _ in a })
        #expect(reasons[TrustStoreHex.encode(unapproved.keyID)]?.contains("not approved") == true)
        #expect(reasons[TrustStoreHex.encode(notRoot.pai.keyID)]?.contains("not self-signed") == true)
        #expect(reasons[TrustStoreHex.encode(expired.keyID)]?.contains("expired") == true)
        #expect(reasons[TrustStoreHex.encode(profile.keyID)]?.contains("PAA profile") == true)
        #expect(reasons[TrustStoreHex.encode(malformed.keyID)]?.contains("malformed") == true)
        #expect(report.skipped.count == 5)

        let store = try f.store()
        #expect(store.count == 60)
        #expect(store.paas.last?.origin == "dcl \(dcl.url.absoluteString)")
        #expect(store.lastUpdate?.source == dcl.url.absoluteString)

        // A second update adds nothing new.
        let again = try await f.editor.update(from: Self.dcl(dcl))
        #expect(again.added.isEmpty)
        #expect(again.unchanged.count == 1)
    }

    @Test func updateStoresCRLsThatVerifyAndTheVerifierUsesThem() async throws {
        let f = try Fixture()
        defer { f.cleanup() }
        let dcl = try DCLStandIn()
        let chain = try Builder.chain(vid: 0x1234, pid: 1)
        let stranger = try Builder.chain(vid: 0x1234, pid: 1)
        dcl.publish(chain.paa)
        let next = Self.now + 30 * 86_400
        dcl.revocationPoint(label: "Acme PAI CRL", vid: 0x1234, isPAA: false, signer: chain.pai,
                            crl: .ok(try DCLStandIn.crl(by: chain.pai, serials: [[3]], now: Self.now, next: next), contentType: "application/pkix-crl"),
                            name: "acme-pai")
        // Signed by a key that is not the signer's: refused.
        let forged = try CertificateRevocationList.issue(signedBy: stranger.pai.key, issuerName: chain.pai.subject,
                                                         thisUpdate: Self.now, nextUpdate: next, revokedSerialNumbers: [[2]],
                                                         authorityKeyIdentifier: chain.pai.keyID)
        dcl.revocationPoint(label: "Forged CRL", vid: 0x1234, isPAA: false, signer: chain.pai, crl: .ok(forged), name: "forged")
        // A PAI that chains to no trusted PAA: refused.
        dcl.revocationPoint(label: "Stranger CRL", vid: 0x1234, isPAA: false, signer: stranger.pai,
                            crl: .ok(try DCLStandIn.crl(by: stranger.pai, serials: [], now: Self.now, next: next)), name: "stranger")
        // A distribution point that is down: skipped, the update still succeeds.
        dcl.revocationPoint(label: "Down CRL", vid: 0x1234, isPAA: true, signer: chain.paa, crl: .status(503), name: "down")

        let report = try await f.editor.update(from: Self.dcl(dcl))
        #expect(report.crlsStored.map(\.name) == ["Acme PAI CRL (VID 4660)"])
        #expect(Set(report.crlsSkipped.map(\.name)) == ["Forged CRL (VID 4660)", "Stranger CRL (VID 4660)", "Down CRL (VID 4660)"])

        let store = try f.store()
        #expect(store.crls.count == 1)
        #expect(store.crls.first?.crl.nextUpdate == next)
        let verifier = DeviceAttestationVerifier(trustStore: store.paaTrustStore, crls: store.crls)
        let outcome = verifier.verifyCredentials(dac: chain.dac.der, pai: chain.pai.der, certificationDeclaration: nil,
                                                 at: try ASN1Time(unixSeconds: Self.now))
        #expect(outcome.result == .dacRevoked)
        #expect(outcome.detail?.contains("Acme PAI CRL") == true)
        #expect(outcome.detail?.contains(dcl.server.baseURL + "/crl/acme-pai.crl") == true)
    }

    /// Hostile, truncated, oversized and unreachable DCL answers: the update throws and the
    /// store file is byte-for-byte what it was.
    @Test(arguments: ["truncated", "oversized", "not json", "wrong shape", "hostile nesting", "bad root entry",
                      "certificate truncated", "certificate 500", "revocation points garbage", "unreachable"])
    func aFailingDCLLeavesTheStoreUnchanged(_ failure: String) async throws {
        let f = try Fixture()
        defer { f.cleanup() }
        let dcl = try DCLStandIn()
        let first = try Builder.chain(vid: 0x1234, pid: 1).paa
        dcl.publish(first)
        _ = try await f.editor.update(from: Self.dcl(dcl))
        let before = try #require(f.storeBytes())

        let second = try Builder.chain(vid: 0x1235, pid: 1).paa
        dcl.publish(second)
        let list = "/dcl/pki/root-certificates"
        let certPath = "/dcl/pki/certificates/\(Data(second.subject).base64EncodedString())/\(DCLStandIn.colonHex(second.keyID))"
        var client = Self.dcl(dcl)
        switch failure {
        case "truncated": dcl.server.route(list, .truncated(Array("{\"approvedRootCertificates\": {\"certs\": [".utf8), declaredLength: 4000))
        case "oversized": dcl.server.route(list, .endless(count: DCLClient.listLimit + 200_000, byte: 0x20))
        case "not json": dcl.server.route(list, .ok(Array("<html>maintenance</html>".utf8)))
        case "wrong shape": dcl.server.route(list, .ok(Array("{\"approvedRootCertificates\": {\"certs\": 7}}".utf8)))
        case "hostile nesting": dcl.server.route(list, .ok(Array((String(repeating: "[", count: 100_000)).utf8)))
        case "bad root entry": dcl.server.route(list, .ok(Array("{\"approvedRootCertificates\": {\"certs\": [{\"subject\": 5}]}}".utf8)))
        case "certificate truncated": dcl.server.route(certPath, .truncated(Array("{\"approvedCertificates\"".utf8), declaredLength: 900))
        case "certificate 500": dcl.server.route(certPath, .status(500))
        case "revocation points garbage": dcl.server.route("/dcl/pki/revocation-points", .ok(Array("{\"PkiRevocationDistributionPoint\": [1]}".utf8)))
        default:
            dcl.server.stop()
            client = DCLClient(base: URL(string: "http://127.0.0.1:\(dcl.server.port)")!, http: HTTPClientFetcher(timeout: 5))
        }
        await #expect(throws: TrustStoreError.self) { try await f.editor.update(from: client) }
        #expect(f.storeBytes() == before)
        #expect(try f.store().paa(subjectKeyIdentifier: second.keyID).isEmpty)
    }
}

/// One bundled root as PEM text, for import tests.
enum BundledPAARootsSample {
    static var firstPEM: String {
        DCLStandIn.pem(TrustStore.bundled[0].certificate.derBytes)
    }
}
