import FoundationEssentials
import MatterPlatform
#if canImport(Glibc)
import Glibc
#endif

/// `<state>/trust-store/store.json`: what `trust-store add`, `remove` and `update` manage (PAAs
/// with their origin, CRLs with their signer and nextUpdate, bundled roots the user removed).
/// It is one file so that every change replaces it atomically (a temporary file renamed over
/// it): a failed or interrupted update leaves the previous store whole.
struct TrustStoreDocument: Codable, Sendable, Equatable {
    static let fileName = "store.json"
    static let currentVersion = 1

    struct PAA: Codable, Sendable, Equatable {
        /// The certificate, PEM.
        var pem: String
        var origin: String
        /// Unix seconds when it was added.
        var added: Int64
    }

    struct CRL: Codable, Sendable, Equatable {
        /// The CRL, base64 DER, as fetched.
        var der: String
        /// The CRL signer certificate and its delegator, PEM, from the revocation point.
        var signer: String
        var delegator: String?
        /// The revocation point's issuer key identifier, uppercase hex.
        var issuerSubjectKeyID: String
        var label: String
        var vendorID: Int
        var url: String
        var nextUpdate: Int64?
        /// Unix seconds when it was fetched.
        var fetched: Int64
    }

    struct LastUpdate: Codable, Sendable, Equatable {
        var source: String
        var at: Int64
    }

    var version: Int = currentVersion
    var paas: [PAA] = []
    var crls: [CRL] = []
    /// Subject key identifiers (uppercase hex) of bundled roots the user removed.
    var distrusted: [String] = []
    var lastUpdate: LastUpdate?

    /// The document in `folder`, or an empty one when the file does not exist.
    static func read(folder: String) throws(TrustStoreError) -> TrustStoreDocument {
        let path = folder + "/" + fileName
        guard FileManager.default.fileExists(atPath: path) else { return TrustStoreDocument() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TrustStoreError(.storage, "cannot read \(path)")
        }
        let doc: TrustStoreDocument
        do { doc = try JSONDecoder().decode(TrustStoreDocument.self, from: data) } catch {
            throw TrustStoreError(.storage, "\(path) is not a valid trust store file (\(error)); "
                                  + "move it away and run 'matterctl attestation trust-store update' to rebuild it")
        }
        guard doc.version == currentVersion else {
            throw TrustStoreError(.storage, "\(path) has version \(doc.version); this matterctl reads version \(currentVersion)")
        }
        return doc
    }

    /// Replaces the file in `folder` atomically (write a temporary file, fsync, rename).
    func write(folder: String) throws(TrustStoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do { data = try encoder.encode(self) } catch { throw TrustStoreError(.storage, "cannot encode the trust store: \(error)") }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw TrustStoreError(.storage, "cannot create \(folder): \(errorText(error))")
        }
        let path = folder + "/" + Self.fileName
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw TrustStoreError(.storage, "cannot write \(temporary): \(errnoText(errno))")
        }
        let written = FileDescriptorIO.writeAll(fd, [UInt8](data)) && fsync(fd) == 0
        let reason = errnoText(errno)
        if close(fd) != 0 || !written {
            unlink(temporary)
            throw TrustStoreError(.storage, "cannot write \(temporary): \(written ? errnoText(errno) : reason)")
        }
        guard rename(temporary, path) == 0 else {
            let reason = errnoText(errno)
            try? FileManager.default.removeItem(atPath: temporary)
            throw TrustStoreError(.storage, "cannot replace \(path): \(reason)")
        }
    }
}
