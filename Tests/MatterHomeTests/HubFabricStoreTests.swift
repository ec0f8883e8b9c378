import Foundation
import MatterCertificates
import MatterCrypto
@testable import MatterHome
import Testing

/// The fabric: creation, restore from disk, NOCs that chain to the stored root, file modes,
/// and that key material never shows up in errors or descriptions.
@Suite struct HubFabricStoreTests {
    @Test(arguments: [true, false])
    func restoredAuthorityIssuesNOCsThatChainToTheStoredRoot(useIntermediate: Bool) throws {
        let dir = TemporaryStateDirectory()
        defer { dir.cleanup() }
        let created = try HubStore(directory: dir.path).createFabricIfNeeded(FabricCreationOptions(useIntermediate: useIntermediate))
        #expect(created.vendorID == 0xFFF1 && created.fabricID.isValid && created.controllerNodeID.isOperational)
        #expect(created.ipkEpochKey.count == 16)

        let store = try HubStore(directory: dir.path)
        let fabric = try #require(try store.fabric())
        #expect(try store.createFabricIfNeeded().fabricID == created.fabricID)  // idempotent
        #expect(fabric.fabricID == created.fabricID && fabric.controllerNodeID == created.controllerNodeID)
        #expect(fabric.rootCertificate == created.rootCertificate && fabric.intermediateCertificate == created.intermediateCertificate)
        #expect((fabric.intermediateCertificate != nil) == useIntermediate)
        #expect(fabric.ipkEpochKey == created.ipkEpochKey && fabric.createdAt == created.createdAt)
        #expect(fabric.controllerNOCDER == created.controllerNOCDER)
        #expect(fabric.certificateAuthority.rootKey.publicKey == created.certificateAuthority.rootKey.publicKey)
        #expect(try fabric.compressedFabricID() == created.compressedFabricID())

        // The stored RCAC (TLV and DER forms) is what the restored CA chains to.
        let storedRCAC = try store.withDatabase { db throws(StoreError) in
            try db.queryOne("SELECT rcac_tlv, rcac_der FROM fabric") { ($0.blob(0), $0.blob(1)) }
        }
        let (rcacTLV, rcacDER) = try #require(storedRCAC)
        let rcac = try MatterCertificate(anyEncoding: rcacTLV)
        #expect(try rcac.derEncoded() == rcacDER)

        let deviceKey = P256PrivateKey()
        let deviceID = try store.allocateNodeID()
        let now = try #require(MatterEpochTime(unixSeconds: Int64(Date().timeIntervalSince1970)))
        let noc = try fabric.certificateAuthority.issueNOC(publicKey: deviceKey.publicKey.x962Representation, nodeID: deviceID,
                                                           validity: CertificateValidity(from: now, days: 365))
        let identity = try MatterCertificateValidator.validateChain(noc: noc.certificate, icac: fabric.intermediateCertificate?.certificate,
                                                                    rcac: rcac, now: now)
        #expect(identity.nodeID == deviceID && identity.fabricID == fabric.fabricID)
        let controller = try MatterCertificateValidator.validateChain(noc: fabric.controllerNOC, icac: fabric.intermediateCertificate?.certificate,
                                                                      rcac: rcac, now: now)
        #expect(controller.nodeID == fabric.controllerNodeID)
        #expect(fabric.controllerNOC.publicKey == fabric.controllerKey.publicKey.x962Representation)
    }

    @Test func stateDirectoryDatabaseWALAndKeyFilesArePrivate() throws {
        let dir = TemporaryStateDirectory()
        defer { dir.cleanup() }
        let store = try HubStore(directory: dir.path)
        _ = try store.createFabricIfNeeded()
        _ = try store.addRoom(name: "Hall")  // a write, so the WAL exists
        let keyFiles = SecureFiles.entries(store.keysDirectory)
        #expect(keyFiles.count == 3)
        #expect(mode(dir.path) == 0o700 && mode(store.keysDirectory) == 0o700)
        for path in [store.databasePath, store.databasePath + "-wal", store.databasePath + "-shm"]
            + keyFiles.map({ store.keysDirectory + "/" + $0 }) {
            #expect(mode(path) == 0o600, "\(path)")
        }
        let session = try store.beginCommissioningSession()
        #expect(mode(store.commissioningLockPath) == 0o600)
        try session.finish(.cancelled)
        // An existing, too open directory is tightened on open.
        chmod(dir.path, 0o755)
        _ = try HubStore(directory: dir.path)
        #expect(mode(dir.path) == 0o700)
    }

    @Test func keyMaterialNeverAppearsInErrorsOrDescriptions() throws {
        let dir = TemporaryStateDirectory()
        defer { dir.cleanup() }
        let store = try HubStore(directory: dir.path)
        let fabric = try store.createFabricIfNeeded()
        let rootFile = try #require(SecureFiles.entries(store.keysDirectory).first { $0.hasPrefix("root-") })
        let rootPath = store.keysDirectory + "/" + rootFile
        let rootBytes = try SecureFiles.read(rootPath)
        let secrets = [rootBytes, fabric.certificateAuthority.rootKey.rawRepresentation.bytes, fabric.ipkEpochKey.bytes,
                       fabric.controllerKey.rawRepresentation.bytes]

        var texts = [fabric.description, String(describing: fabric), String(reflecting: fabric), "\(fabric.ipkEpochKey)"]
        // A root key file that belongs to another key, one that is garbage, and a missing one.
        let other = P256PrivateKey().pkcs8DERRepresentation.bytes
        for replacement in [other, Array(rootBytes.prefix(40)), rootBytes.reversed()] {
            try Data(replacement).write(to: URL(fileURLWithPath: rootPath))
            do {
                _ = try store.fabric()
                Issue.record("a wrong root key file was accepted")
            } catch {
                guard case .corruptFabric = error else { Issue.record("unexpected \(error)"); continue }
                texts += [error.description, String(reflecting: error), error.recoverySuggestion]
                for secret in [replacement] { #expect(!contains(texts, secret)) }
            }
        }
        unlink(rootPath)
        #expect(throws: StoreError.self) { _ = try store.fabric() }
        do { _ = try store.fabric() } catch { texts.append(error.description) }
        for secret in secrets { #expect(!contains(texts, secret)) }
    }

    /// True when any text holds the bytes in hex (either case), base64 or as raw characters.
    private func contains(_ texts: [String], _ secret: [UInt8]) -> Bool {
        let hex = secret.map { String(format: "%02x", $0) }.joined()
        let base64 = Data(secret).base64EncodedString()
        let decimal = secret.map(String.init).joined(separator: ", ")
        return texts.contains { t in
            t.lowercased().contains(hex) || t.contains(base64.prefix(24)) || t.contains(decimal)
        }
    }
}

/// Permission bits of a path (lstat).
func mode(_ path: String) -> mode_t {
    var info = stat()
    guard lstat(path, &info) == 0 else { return 0 }
    return info.st_mode & 0o7777
}
