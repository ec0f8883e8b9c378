import Foundation
import MatterCertificates
@testable import MatterTrustStore
import Testing
import TestSupport

/// The default trust store: the compiled-in production roots (each decodes, is a self-signed PAA
/// and matches the repository's folder) plus the state directory's trust-store/ folder.
@Suite struct TrustStoreTests {
    static let repository: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trust-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func bundledRootsAreTheRepositoryFolder() throws {
        let folder = Self.repository.appendingPathComponent("credentials/paa-production").path
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".pem") }.sorted()
        #expect(BundledPAARoots.files.map(\.name) == names)
        for (name, pem) in BundledPAARoots.files {
            let file = try #require(FileManager.default.contents(atPath: folder + "/" + name))
            #expect(AttestationPEM.blocks(in: [UInt8](file)) == AttestationPEM.blocks(in: Array(pem.utf8)), "\(name)")
        }
        #expect(names.count == 59)
    }

    /// Every bundled root decodes, verifies its own signature and passes the PAA checks.
    @Test func everyBundledRootIsASelfSignedPAA() throws {
        let bundled = TrustStore.bundled
        #expect(bundled.count == BundledPAARoots.files.count)
        let now = try ASN1Time(year: 2026, month: 12, day: 1, hour: 0, minute: 0, second: 0)
        for paa in bundled {
            let checked = PAACandidate.check(der: paa.certificate.derBytes, at: now)
            #expect((try? checked.get()) != nil, "\(paa.file ?? "?"): \(checked)")
            #expect(paa.subjectKeyIdentifier.count == 20)
        }
        // Distinct certificates, as SOURCE.md says (duplicates were dropped).
        #expect(Set(bundled.map(\.certificate.derBytes)).count == bundled.count)
    }

    @Test func bundledRootsIncludeKnownVendors() throws {
        let bundled = TrustStore.bundled
        let ikea = try #require(bundled.first { $0.commonName == "IKEA of Sweden Matter PAA G1" })
        #expect(ikea.vendorID == 0x117C)
        #expect(ikea.subjectKeyIdentifierHex == "6B318CFCE99920D7328F5F436D5EA332B8B75D9A")
        #expect(bundled.allSatisfy { !$0.isTestPAA })
    }

    @Test func defaultStoreIsBundledPlusTheStateFolder() throws {
        let state = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        #expect(try TrustStore.load(stateDirectory: state).count == 59)

        let chain = try AttestationChainBuilder.chain(vid: 0x1234, pid: 1)
        try FileManager.default.createDirectory(atPath: state + "/trust-store", withIntermediateDirectories: true)
        try Data(chain.paa.der).write(to: URL(fileURLWithPath: state + "/trust-store/acme.der"))
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: state + "/trust-store/junk.pem"))
        let store = try TrustStore.load(stateDirectory: state)
        #expect(store.count == 60)
        #expect(store.paas.last?.origin == "trust-store/acme.der")
        #expect(store.warnings.contains { $0.contains("junk.pem") })
        #expect(store.paaTrustStore.certificate(forSubjectKeyIdentifier: chain.paa.keyID) != nil)
    }

    @Test func aCorruptStoreFileIsAnErrorNotAnEmptyStore() throws {
        let state = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state + "/trust-store", withIntermediateDirectories: true)
        try Data("{\"version\": 1, \"paas\": [".utf8).write(to: URL(fileURLWithPath: state + "/trust-store/store.json"))
        #expect(throws: TrustStoreError.self) { try TrustStore.load(stateDirectory: state) }
    }

    @Test func folderOnlyHasNoBundledRoots() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let chain = try AttestationChainBuilder.chain(vid: 0x1234, pid: 1)
        try Data(chain.paa.der).write(to: URL(fileURLWithPath: dir + "/a.der"))
        let store = try TrustStore.folderOnly(dir)
        #expect(store.count == 1)
        #expect(throws: TrustStoreError.self) { try TrustStore.folderOnly(dir + "/missing") }
    }
}
