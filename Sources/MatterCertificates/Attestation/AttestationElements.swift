import MatterTLV

/// A vendor-reserved element of attestation elements: an octet string under a fully qualified
/// profile tag (Matter Core 11.18.4.7).
public struct VendorReservedElement: Sendable, Hashable {
    public var vendorID: UInt16
    public var profile: UInt16
    public var tag: UInt32
    public var data: [UInt8]

    public init(vendorID: UInt16, profile: UInt16, tag: UInt32, data: [UInt8]) {
        self.vendorID = vendorID
        self.profile = profile
        self.tag = tag
        self.data = data
    }
}

/// The `attestation_elements` a device returns in AttestationResponse (Matter Core 11.18.4.7):
/// its certification declaration, the commissioner's nonce echoed back, a timestamp, optional
/// firmware information and vendor-reserved elements. The DAC signs these bytes followed by the
/// session's attestation challenge.
public struct AttestationElements: Sendable, Hashable {
    /// Context tags of the structure's fields.
    public enum Tag {
        public static let certificationDeclaration: UInt8 = 1
        public static let attestationNonce: UInt8 = 2
        public static let timestamp: UInt8 = 3
        public static let firmwareInformation: UInt8 = 4
    }

    /// RESP_MAX (Matter Core 11.18.4.7): the largest attestation_elements a device may send.
    public static let maxLength = 900
    /// The attestation nonce is 32 random bytes chosen by the commissioner.
    public static let nonceLength = 32

    public var certificationDeclaration: [UInt8]
    public var attestationNonce: [UInt8]
    public var timestamp: UInt32
    /// Absent when empty.
    public var firmwareInformation: [UInt8]
    public var vendorReserved: [VendorReservedElement]

    public init(certificationDeclaration: [UInt8], attestationNonce: [UInt8], timestamp: UInt32,
                firmwareInformation: [UInt8] = [], vendorReserved: [VendorReservedElement] = []) {
        self.certificationDeclaration = certificationDeclaration
        self.attestationNonce = attestationNonce
        self.timestamp = timestamp
        self.firmwareInformation = firmwareInformation
        self.vendorReserved = vendorReserved
    }

    /// The TLV encoding, fields in tag order, vendor-reserved elements last.
    public var tlvEncoded: [UInt8] {
        var members: [TLVElement] = [
            .bytes(.context(Tag.certificationDeclaration), certificationDeclaration),
            .bytes(.context(Tag.attestationNonce), attestationNonce),
            .unsigned(.context(Tag.timestamp), timestamp),
        ]
        if !firmwareInformation.isEmpty {
            members.append(.bytes(.context(Tag.firmwareInformation), firmwareInformation))
        }
        for v in vendorReserved {
            members.append(.bytes(.fullyQualified(vendorID: v.vendorID, profile: v.profile, tag: v.tag), v.data))
        }
        return TLVWriter.encode(.structure(.anonymous, members))
    }

    /// Decodes attestation elements. Known fields must appear once each, in tag order (as the
    /// SDK's deconstructor requires); unknown context tags are skipped; profile-tagged
    /// elements are vendor-reserved octet strings.
    public init(tlv bytes: [UInt8]) throws(CertificateError) {
        guard bytes.count <= Self.maxLength else { throw .invalidArgument("attestation elements are \(bytes.count) bytes, more than 900") }
        let root: TLVElement
        do { root = try TLVDecoder.decode(bytes, maxDepth: 2) } catch { throw .tlv(error) }
        guard root.tag == .anonymous, case .container(.structure, let members) = root.value else {
            throw .malformedField("attestation_elements", "not an anonymous TLV structure")
        }
        var cd: [UInt8]?, nonce: [UInt8]?, timestamp: UInt32?, firmware: [UInt8] = []
        var vendor: [VendorReservedElement] = []
        var lastKnown: UInt8 = 0
        do {
            for m in members {
                switch m.tag {
                case .context(let t) where (Tag.certificationDeclaration...Tag.firmwareInformation).contains(t):
                    guard t > lastKnown else { throw CertificateError.malformedField("attestation_elements", "context tag \(t) out of order") }
                    lastKnown = t
                    switch t {
                    case Tag.certificationDeclaration: cd = try m.bytes()
                    case Tag.attestationNonce: nonce = try m.bytes()
                    case Tag.timestamp: timestamp = try m.unsigned(as: UInt32.self)
                    default: firmware = try m.bytes()
                    }
                case .context:
                    continue  // unknown field of a later revision
                case .fullyQualified(let vid, let profile, let tag):
                    vendor.append(VendorReservedElement(vendorID: vid, profile: profile, tag: tag, data: try m.bytes()))
                default:
                    throw CertificateError.malformedField("attestation_elements", "tag \(m.tag) is not allowed")
                }
            }
        } catch let e as CertificateError {
            throw e
        } catch let e as TLVError {
            throw .tlv(e)
        } catch {
            throw .malformedField("attestation_elements", "\(error)")
        }
        guard let cd else { throw .malformedField("certification_declaration", "missing") }
        guard let nonce else { throw .malformedField("attestation_nonce", "missing") }
        guard let timestamp else { throw .malformedField("timestamp", "missing") }
        guard nonce.count == Self.nonceLength else { throw .malformedField("attestation_nonce", "\(nonce.count) bytes, not 32") }
        self.init(certificationDeclaration: cd, attestationNonce: nonce, timestamp: timestamp,
                  firmwareInformation: firmware, vendorReserved: vendor)
    }
}

