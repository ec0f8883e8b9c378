import MatterTLV

/// What is wrong with a file offered as a Matter OTA image: the kind, and a sentence that says
/// what failed and what to do.
public struct OTAImageError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// Not an OTA image: the file identifier is not 0x1BEEF11E.
        case notAnImage = "not-an-image"
        /// Shorter or longer than its header says (a cut download, a wrong file).
        case sizeMismatch = "size-mismatch"
        /// The header TLV cannot be read or lacks a required field.
        case malformedHeader = "malformed-header"
        /// A digest type this hub does not check.
        case unsupportedDigest = "unsupported-digest"
        /// The payload does not hash to the header's digest.
        case digestMismatch = "digest-mismatch"
        /// The image is not for this node (vendor, product, version range).
        case notApplicable = "not-applicable"
        /// The file cannot be read.
        case unreadable
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// The header of a Matter OTA Software Image (Matter Core 11.21.7): a 16-byte fixed part
/// (FileIdentifier, TotalSize, HeaderSize, little-endian) and an anonymous TLV structure saying
/// whom the payload is for and how to check it.
public struct OTAImageHeader: Hashable, Sendable {
    public static let fileIdentifier: UInt32 = 0x1BEE_F11E
    /// FileIdentifier (4), TotalSize (8), HeaderSize (4).
    public static let fixedSize = 16
    /// The most header TLV accepted: the largest valid header (a 64-byte version string, a 256-byte
    /// URL, a 64-byte digest) is well under it.
    public static let maxHeaderSize: UInt32 = 1024

    /// IANA Named Information Hash Algorithm values (ImageDigestType).
    public enum DigestType: Hashable, Sendable, CustomStringConvertible {
        case sha256
        case other(UInt8)

        init(_ value: UInt8) { self = value == 1 ? .sha256 : .other(value) }
        public var rawValue: UInt8 { if case .other(let v) = self { v } else { 1 } }
        public var description: String {
            let names: [UInt8: String] = [1: "sha-256", 2: "sha-256-128", 3: "sha-256-120", 4: "sha-256-96", 5: "sha-256-64",
                                          6: "sha-256-32", 7: "sha-384", 8: "sha-512", 9: "sha3-224", 10: "sha3-256",
                                          11: "sha3-384", 12: "sha3-512"]
            return names[rawValue] ?? "digest type \(rawValue)"
        }
    }

    public var vendorID: UInt16
    public var productID: UInt16
    public var softwareVersion: UInt32
    public var softwareVersionString: String
    public var payloadSize: UInt64
    public var minApplicableVersion: UInt32?
    public var maxApplicableVersion: UInt32?
    public var releaseNotesURL: String?
    public var digestType: DigestType
    public var digest: [UInt8]
    /// The whole file's size, as the fixed header gives it.
    public var totalSize: UInt64
    /// Where the payload starts: the fixed part and the header TLV.
    public var payloadOffset: Int

    /// How many bytes of the file's start `parse` needs: the fixed part, then the fixed part and
    /// the header TLV (nil while the fixed part is incomplete).
    public static func headerLength(_ prefix: [UInt8]) -> Int? {
        guard prefix.count >= fixedSize else { return nil }
        return fixedSize + Int(le32(prefix, 12))
    }

    /// Reads the header from the file's first bytes (at least ``headerLength(_:)``); `fileSize` is
    /// the file's size, which must be the header's TotalSize.
    public init(parsing prefix: [UInt8], fileSize: UInt64) throws(OTAImageError) {
        guard prefix.count >= Self.fixedSize else {
            throw OTAImageError(.sizeMismatch, "the file has \(prefix.count) bytes; an OTA image starts with a 16-byte header")
        }
        let identifier = Self.le32(prefix, 0)
        guard identifier == Self.fileIdentifier else {
            throw OTAImageError(.notAnImage, "not a Matter OTA image: it starts with 0x\(String(identifier, radix: 16, uppercase: true)), "
                                + "not the file identifier 0x1BEEF11E (a vendor's raw firmware must be wrapped with ota_image_tool.py)")
        }
        totalSize = UInt64(Self.le32(prefix, 4)) | UInt64(Self.le32(prefix, 8)) << 32
        let headerSize = Self.le32(prefix, 12)
        guard headerSize <= Self.maxHeaderSize else {
            throw OTAImageError(.malformedHeader, "the header says it has \(headerSize) bytes; a Matter OTA header has at most \(Self.maxHeaderSize)")
        }
        guard totalSize == fileSize else {
            throw OTAImageError(.sizeMismatch, "the header says the image has \(totalSize) bytes but the file has \(fileSize): "
                                + "a cut or altered download; fetch it again")
        }
        payloadOffset = Self.fixedSize + Int(headerSize)
        guard prefix.count >= payloadOffset, UInt64(payloadOffset) <= fileSize else {
            throw OTAImageError(.sizeMismatch, "the file ends inside its \(headerSize)-byte header")
        }
        let fields: TLVElement
        do { fields = try TLVDecoder.decode(Array(prefix[Self.fixedSize..<payloadOffset])) } catch {
            throw OTAImageError(.malformedHeader, "the header TLV cannot be read: \(error)")
        }
        func field<T>(_ tag: UInt8, _ name: String, _ read: (TLVElement) throws(TLVError) -> T) throws(OTAImageError) -> T? {
            guard let e = fields.member(.context(tag)) else { return nil }
            do { return try read(e) } catch {
                throw OTAImageError(.malformedHeader, "the header's \(name) (tag \(tag)) is not valid: \(error)")
            }
        }
        func required<T>(_ tag: UInt8, _ name: String, _ read: (TLVElement) throws(TLVError) -> T) throws(OTAImageError) -> T {
            guard let v = try field(tag, name, read) else {
                throw OTAImageError(.malformedHeader, "the header has no \(name) (tag \(tag))")
            }
            return v
        }
        guard case .container(.structure, _) = fields.value else {
            throw OTAImageError(.malformedHeader, "the header TLV is not a structure")
        }
        vendorID = try required(0, "VendorID") { e throws(TLVError) in try e.unsigned(as: UInt16.self) }
        productID = try required(1, "ProductID") { e throws(TLVError) in try e.unsigned(as: UInt16.self) }
        softwareVersion = try required(2, "SoftwareVersion") { e throws(TLVError) in try e.unsigned(as: UInt32.self) }
        softwareVersionString = try required(3, "SoftwareVersionString") { e throws(TLVError) in try e.utf8() }
        payloadSize = try required(4, "PayloadSize") { e throws(TLVError) in try e.unsigned(as: UInt64.self) }
        minApplicableVersion = try field(5, "MinApplicableSoftwareVersion") { e throws(TLVError) in try e.unsigned(as: UInt32.self) }
        maxApplicableVersion = try field(6, "MaxApplicableSoftwareVersion") { e throws(TLVError) in try e.unsigned(as: UInt32.self) }
        releaseNotesURL = try field(7, "ReleaseNotesURL") { e throws(TLVError) in try e.utf8() }
        digestType = DigestType(try required(8, "ImageDigestType") { e throws(TLVError) in try e.unsigned(as: UInt8.self) })
        digest = try required(9, "ImageDigest") { e throws(TLVError) in try e.bytes() }
        guard (1...64).contains(softwareVersionString.utf8.count) else {
            throw OTAImageError(.malformedHeader, "the SoftwareVersionString has \(softwareVersionString.utf8.count) bytes; it must have 1 to 64")
        }
        guard UInt64(payloadOffset) + payloadSize == totalSize else {
            throw OTAImageError(.sizeMismatch, "the header says the payload has \(payloadSize) bytes but the file holds "
                                + "\(totalSize - UInt64(payloadOffset)) after the header")
        }
        if case .sha256 = digestType, digest.count != 32 {
            throw OTAImageError(.malformedHeader, "the sha-256 ImageDigest has \(digest.count) bytes, not 32")
        }
    }

    /// Why this image cannot update a node running `version` of vendor and product (nil when it can).
    public func refusal(vendorID: UInt16, productID: UInt16, currentVersion version: UInt32) -> OTAImageError? {
        func hex(_ v: UInt16) -> String { "0x" + String(v, radix: 16, uppercase: true) }
        if vendorID != self.vendorID || productID != self.productID {
            return OTAImageError(.notApplicable, "the image is for vendor \(hex(self.vendorID)) product \(hex(self.productID)), "
                                 + "the node is vendor \(hex(vendorID)) product \(hex(productID))")
        }
        if softwareVersion <= version {
            return OTAImageError(.notApplicable, "the image has software version \(softwareVersion) (\(softwareVersionString)); "
                                 + "the node already runs \(version)")
        }
        if let min = minApplicableVersion, version < min {
            return OTAImageError(.notApplicable, "the image applies from version \(min); the node runs \(version): update it in steps")
        }
        if let max = maxApplicableVersion, version > max {
            return OTAImageError(.notApplicable, "the image applies up to version \(max); the node runs \(version)")
        }
        return nil
    }

    static func le32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }
}
