#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import MatterCrypto
import MatterJSON

/// One software version of a product as the DCL's model module publishes it
/// (`GET /dcl/model/versions/{vid}/{pid}/{softwareVersion}`, field `modelVersion`): where its OTA
/// image is, how large it is, its checksum, and which installed versions it may update.
public struct DCLModelVersion: Sendable, Hashable {
    public var vendorID: UInt16
    public var productID: UInt16
    public var softwareVersion: UInt32
    public var softwareVersionString: String
    public var firmwareInformation: String?
    /// The vendor may withdraw a version (false): it is never offered.
    public var softwareVersionValid: Bool
    public var otaURL: String?
    public var otaFileSize: UInt64?
    /// Base64 of the image's digest, of the kind `otaChecksumType` names (IANA's hash function
    /// registry: 1 is SHA-256).
    public var otaChecksum: String?
    public var otaChecksumType: Int?
    public var minApplicableSoftwareVersion: UInt32
    public var maxApplicableSoftwareVersion: UInt32
    public var releaseNotesURL: String?

    public init(vendorID: UInt16, productID: UInt16, softwareVersion: UInt32, softwareVersionString: String, firmwareInformation: String?,
                softwareVersionValid: Bool, otaURL: String?, otaFileSize: UInt64?, otaChecksum: String?, otaChecksumType: Int?,
                minApplicableSoftwareVersion: UInt32, maxApplicableSoftwareVersion: UInt32, releaseNotesURL: String?) {
        self.vendorID = vendorID
        self.productID = productID
        self.softwareVersion = softwareVersion
        self.softwareVersionString = softwareVersionString
        self.firmwareInformation = firmwareInformation
        self.softwareVersionValid = softwareVersionValid
        self.otaURL = otaURL
        self.otaFileSize = otaFileSize
        self.otaChecksum = otaChecksum
        self.otaChecksumType = otaChecksumType
        self.minApplicableSoftwareVersion = minApplicableSoftwareVersion
        self.maxApplicableSoftwareVersion = maxApplicableSoftwareVersion
        self.releaseNotesURL = releaseNotesURL
    }

    /// Whether a node running `current` may install this version (python-matter-server's rule:
    /// valid, `current` within min...max, and an image to fetch).
    public func applies(to current: UInt32) -> Bool {
        softwareVersionValid && otaURL?.isEmpty == false && softwareVersion > current
            && minApplicableSoftwareVersion <= current && current <= maxApplicableSoftwareVersion
    }
}

extension DCLClient {
    /// The largest OTA image fetched from a DCL `otaUrl` (the largest Matter images are tens of MB).
    public static let otaImageLimit = 256 << 20
    static let modelLimit = 256 << 10

    /// The software versions the ledger lists for a product (`modelVersions.softwareVersions`);
    /// empty when it has none (404, as for most products of small vendors).
    public func softwareVersions(vendorID: UInt16, productID: UInt16) async throws(TrustStoreError) -> [UInt32] {
        let url = try url("/dcl/model/versions/\(vendorID)/\(productID)")
        let doc: JSONObject
        do { doc = try await json(url, limit: Self.modelLimit) } catch where error.code == .notFound { return [] }
        guard let list = doc["modelVersions"]?["softwareVersions"]?.array else {
            if doc["code"] != nil { return [] }  // the gateway's "not found" error object
            throw TrustStoreError(.responseInvalid, "\(url.absoluteString) has no modelVersions.softwareVersions list")
        }
        return list.compactMap { UInt32(exactly: Self.int($0)) }
    }

    /// One version's record; nil when the ledger has none.
    public func modelVersion(vendorID: UInt16, productID: UInt16, softwareVersion: UInt32) async throws(TrustStoreError) -> DCLModelVersion? {
        let url = try url("/dcl/model/versions/\(vendorID)/\(productID)/\(softwareVersion)")
        let doc: JSONObject
        do { doc = try await json(url, limit: Self.modelLimit) } catch where error.code == .notFound { return nil }
        guard let v = doc["modelVersion"]?.objectValue else {
            if doc["code"] != nil { return nil }
            throw TrustStoreError(.responseInvalid, "\(url.absoluteString) has no modelVersion object")
        }
        func text(_ key: String) -> String? { v[key]?.string.flatMap { $0.isEmpty ? nil : $0 } }
        func number(_ key: String) -> Int? { v[key] == nil ? nil : Self.int(v[key]) }
        guard let version = UInt32(exactly: Self.int(v["softwareVersion"])), version == softwareVersion,
              Self.int(v["vid"]) == Int(vendorID), Self.int(v["pid"]) == Int(productID) else {
            throw TrustStoreError(.responseInvalid, "\(url.absoluteString) describes another product or version than the one asked for")
        }
        return DCLModelVersion(
            vendorID: vendorID, productID: productID, softwareVersion: version,
            softwareVersionString: text("softwareVersionString") ?? String(version),
            firmwareInformation: text("firmwareInformation"),
            softwareVersionValid: v["softwareVersionValid"]?.bool ?? false,
            otaURL: text("otaUrl"), otaFileSize: number("otaFileSize").flatMap { UInt64(exactly: $0) },
            otaChecksum: text("otaChecksum"), otaChecksumType: number("otaChecksumType"),
            minApplicableSoftwareVersion: UInt32(clamping: number("minApplicableSoftwareVersion") ?? 0),
            maxApplicableSoftwareVersion: UInt32(clamping: number("maxApplicableSoftwareVersion") ?? Int(UInt32.max)),
            releaseNotesURL: text("releaseNotesUrl"))
    }

    /// The newest version that may update a node of this product running `current`: the newer
    /// versions are tried newest first, as python-matter-server does; nil when none applies.
    public func newestUpdate(vendorID: UInt16, productID: UInt16, currentVersion current: UInt32) async throws(TrustStoreError) -> DCLModelVersion? {
        let newer = try await softwareVersions(vendorID: vendorID, productID: productID).filter { $0 > current }.sorted(by: >)
        for version in newer.prefix(20) {
            if let record = try await modelVersion(vendorID: vendorID, productID: productID, softwareVersion: version),
               record.applies(to: current) {
                return record
            }
        }
        return nil
    }

    /// Downloads the OTA image a version's `otaUrl` points to into `path` (owner-only), checked
    /// against the ledger's size and checksum (SHA-256, the only type the ledger's products use);
    /// an image that does not match is removed and refused. Streamed: a large image is never
    /// held in memory.
    public func otaImage(_ version: DCLModelVersion, toFile path: String) async throws(TrustStoreError) {
        guard let text = version.otaURL, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "https" || scheme == "http" else {
            throw TrustStoreError(.invalidArgument, "version \(version.softwareVersion) has no usable otaUrl on the DCL")
        }
        let limit = version.otaFileSize.map { Int(clamping: $0) } ?? Self.otaImageLimit
        guard limit <= Self.otaImageLimit else {
            throw TrustStoreError(.responseTooLarge, "the DCL gives version \(version.softwareVersion) an image of \(limit) bytes; "
                                  + "the hub fetches at most \(Self.otaImageLimit)")
        }
        if let type = version.otaChecksumType, type != 1, version.otaChecksum != nil {
            throw TrustStoreError(.responseInvalid, "the DCL checks version \(version.softwareVersion) with checksum type \(type); "
                                  + "the hub checks SHA-256 (type 1) only")
        }
        do throws(TrustStoreError) {
            let length = try await http.download(url, toFile: path, limit: limit)
            if let size = version.otaFileSize, length != size {
                throw TrustStoreError(.responseInvalid, "\(text) gave \(length) bytes; the DCL says \(size)")
            }
            if let checksum = version.otaChecksum, try Self.sha256(ofFile: path).base64EncodedString() != checksum {
                throw TrustStoreError(.responseInvalid, "\(text) does not match the DCL's SHA-256 checksum: the download is damaged "
                                      + "or not the published image")
            }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
    }

    static func sha256(ofFile path: String) throws(TrustStoreError) -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TrustStoreError(.storage, "cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var hasher = SHA256.Hasher()
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw TrustStoreError(.storage, "cannot read \(path): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            hasher.update(chunk[..<n])
        }
        return Data(hasher.finalize())
    }
}
