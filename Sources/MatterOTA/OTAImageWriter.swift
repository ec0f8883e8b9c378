import MatterCrypto
import MatterTLV

/// Makes a Matter OTA Software Image (Matter Core 11.21.7) as the CHIP SDK's
/// `src/app/ota_image_tool.py create` does: the fixed part, the header TLV (fields in tag order,
/// integers in their shortest form) and the payload, with a sha-256 digest. What device makers
/// hand a hub to test their requestor with (`matterctl ota make`).
public enum OTAImageWriter {
    public struct Fields: Sendable, Hashable {
        public var vendorID: UInt16
        public var productID: UInt16
        public var softwareVersion: UInt32
        public var softwareVersionString: String
        public var minApplicableVersion: UInt32?
        public var maxApplicableVersion: UInt32?
        public var releaseNotesURL: String?

        public init(vendorID: UInt16, productID: UInt16, softwareVersion: UInt32, softwareVersionString: String,
                    minApplicableVersion: UInt32? = nil, maxApplicableVersion: UInt32? = nil, releaseNotesURL: String? = nil) {
            self.vendorID = vendorID
            self.productID = productID
            self.softwareVersion = softwareVersion
            self.softwareVersionString = softwareVersionString
            self.minApplicableVersion = minApplicableVersion
            self.maxApplicableVersion = maxApplicableVersion
            self.releaseNotesURL = releaseNotesURL
        }
    }

    /// The image of `payload` with `fields`; refused when a field breaks the format's limits.
    public static func image(_ fields: Fields, payload: [UInt8]) throws(OTAImageError) -> [UInt8] {
        guard (1...64).contains(fields.softwareVersionString.utf8.count) else {
            throw OTAImageError(.malformedHeader, "the software version string has \(fields.softwareVersionString.utf8.count) bytes; "
                                + "it must have 1 to 64")
        }
        if let url = fields.releaseNotesURL, url.utf8.count > 256 {
            throw OTAImageError(.malformedHeader, "the release notes URL has \(url.utf8.count) bytes; it may have at most 256")
        }
        var members: [TLVElement] = [
            .unsigned(.context(0), fields.vendorID), .unsigned(.context(1), fields.productID),
            .unsigned(.context(2), fields.softwareVersion), .utf8(.context(3), fields.softwareVersionString),
            .unsigned(.context(4), UInt64(payload.count)),
        ]
        if let v = fields.minApplicableVersion { members.append(.unsigned(.context(5), v)) }
        if let v = fields.maxApplicableVersion { members.append(.unsigned(.context(6), v)) }
        if let url = fields.releaseNotesURL { members.append(.utf8(.context(7), url)) }
        members.append(.unsigned(.context(8), OTAImageHeader.DigestType.sha256.rawValue))
        members.append(.bytes(.context(9), SHA256.hash(payload)))
        let header = TLVWriter.encode(.structure(members))
        let total = UInt64(OTAImageHeader.fixedSize + header.count + payload.count)
        var out: [UInt8] = []
        out.reserveCapacity(Int(total))
        appendLittleEndian(OTAImageHeader.fileIdentifier, to: &out)
        appendLittleEndian(total, to: &out)
        appendLittleEndian(UInt32(header.count), to: &out)
        return out + header + payload
    }

    private static func appendLittleEndian<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }
}
