import Foundation
import MatterCertificates
import MatterTrustStore
import Testing
import TestSupport

/// `matterctl attestation trust-store`, run as a user runs it, against the DCL stand-in.
@Suite struct TrustStoreCommandTests {
    typealias Builder = AttestationChainBuilder

    func matterctl(_ state: String, _ args: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(ProcessRunner.matterctl, ["--state", state, "attestation", "trust-store"] + args)
    }

    func listJSON(_ state: String) throws -> [String: Any] {
        let r = try matterctl(state, ["list", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    @Test func listShowsEveryBundledRootAndTheCDSigningCertificates() throws {
        let state = try TrustStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let json = try listJSON(state)
        let paas = try #require(json["paas"] as? [[String: Any]])
        #expect(paas.count == 59)
        #expect(Set(paas.compactMap { $0["subjectKeyId"] as? String }) == Set(TrustStore.bundled.map(\.subjectKeyIdentifierHex)))
        #expect(paas.allSatisfy { $0["origin"] as? String == "bundled" })
        #expect(paas.contains { $0["subject"] as? String == "IKEA of Sweden Matter PAA G1" && $0["vendorId"] as? Int == 0x117C })
        let cd = try #require(json["cdSigningCertificates"] as? [[String: Any]])
        #expect(cd.count == 6)
        #expect(cd.filter { $0["test"] as? Bool == true }.count == 1)

        let text = try matterctl(state, ["list"])
        #expect(text.stdout.contains("59 PAAs"))
        #expect(text.stdout.contains("6B318CFCE99920D7328F5F436D5EA332B8B75D9A"))
    }

    @Test func updateAddsFromTheDCLAndAnUnreachableDCLChangesNothing() throws {
        let state = try TrustStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let dcl = try DCLStandIn()
        let chain = try Builder.chain(vid: 0x1234, pid: 1)
        let notRoot = try Builder.chain(vid: 0x1235, pid: 1)
        dcl.publish(chain.paa)
        dcl.publish(notRoot.pai)
        dcl.revocationPoint(label: "Acme PAI CRL", vid: 0x1234, isPAA: false, signer: chain.pai,
                            crl: .ok(try DCLStandIn.crl(by: chain.pai, serials: [[3]], now: Int64(Date().timeIntervalSince1970),
                                                        next: Int64(Date().timeIntervalSince1970) + 86_400)),
                            name: "acme")

        let r = try matterctl(state, ["update", "--dcl", dcl.server.baseURL])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("added 1, unchanged 0, skipped 1"), "\(r.stdout)")
        #expect(r.stdout.contains("added    Acme PAA"))
        #expect(r.stdout.contains("not self-signed"))
        #expect(r.stdout.contains("CRLs stored 1"))
        let json = try listJSON(state)
        #expect((json["paas"] as? [[String: Any]])?.count == 60)
        #expect((json["crls"] as? [[String: Any]])?.first?["label"] as? String == "Acme PAI CRL (VID 4660)")

        let before = FileManager.default.contents(atPath: state + "/trust-store/store.json")
        dcl.server.stop()
        let down = try matterctl(state, ["update", "--dcl", dcl.server.baseURL])
        #expect(down.status == 1)
        #expect(down.stderr.contains("cannot fetch"), "\(down.stderr)")
        #expect(down.stderr.contains("the trust store is unchanged"))
        #expect(FileManager.default.contents(atPath: state + "/trust-store/store.json") == before)
    }

    @Test func addRemoveAndImport() throws {
        let state = try TrustStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let chain = try Builder.chain(vid: 0x1234, pid: 1)
        let file = state + "/acme.pem"
        try Data(DCLStandIn.pem(chain.paa.der).utf8).write(to: URL(fileURLWithPath: file))
        let pai = state + "/pai.der"
        try Data(chain.pai.der).write(to: URL(fileURLWithPath: pai))

        #expect(try matterctl(state, ["add", file]).status == 0)
        let refused = try matterctl(state, ["add", pai])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("not self-signed"), "\(refused.stderr)")
        #expect((try listJSON(state)["paas"] as? [[String: Any]])?.contains { $0["origin"] as? String == "file \(file)" } == true)

        let skid = TrustStoreHex.encode(chain.paa.keyID, separator: ":")
        let removed = try matterctl(state, ["remove", skid])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.contains("removed Acme PAA"))
        #expect(try matterctl(state, ["remove", skid]).status == 1)
        #expect(try matterctl(state, ["remove", "zz"]).status == 1)

        let dir = state + "/import"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data(chain.paa.der).write(to: URL(fileURLWithPath: dir + "/a.der"))
        let imported = try matterctl(state, ["update", "--from-dir", dir])
        #expect(imported.status == 0)
        #expect(imported.stdout.contains("added 1"))
        #expect(try matterctl(state, ["update", "--from-dir", dir, "--test-net"]).status == 64)
        #expect(try matterctl(state, ["update", "--dcl", "ftp://x"]).status == 64)
    }
}
