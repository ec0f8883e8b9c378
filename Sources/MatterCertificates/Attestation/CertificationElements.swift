import MatterTLV

/// The content of a certification declaration (Matter Core 6.3.1): the TLV structure the CSA
/// signs, saying which vendor's products are certified and how.
public struct CertificationElements: Sendable, Hashable {
    /// Context tags of the CD structure.
    public enum Tag {
        public static let formatVersion: UInt8 = 0
        public static let vendorID: UInt8 = 1
        public static let productIDArray: UInt8 = 2
        public static let deviceTypeID: UInt8 = 3
        public static let certificateID: UInt8 = 4
        public static let securityLevel: UInt8 = 5
        public static let securityInformation: UInt8 = 6
        public static let versionNumber: UInt8 = 7
        public static let certificationType: UInt8 = 8
        public static let dacOriginVendorID: UInt8 = 9
        public static let dacOriginProductID: UInt8 = 10
        public static let authorizedPAAList: UInt8 = 11
    }

    /// certification_type values (Matter Core 6.3.1); 3 and above are reserved.
    public enum CertificationType: UInt8, Sendable {
        case developmentAndTest = 0
        case provisional = 1
        case official = 2
    }

    /// certificate_id is always 19 characters.
    public static let certificateIDLength = 19
    /// Each authorized PAA is a 20-byte subject key identifier.
    public static let keyIdentifierLength = 20
    /// Limits the SDK applies; larger lists are rejected.
    public static let maxProductIDs = 100
    public static let maxAuthorizedPAAs = 10

    public var formatVersion: UInt8
    public var vendorID: UInt16
    public var productIDs: [UInt16]
    public var deviceTypeID: UInt32
    public var certificateID: String
    public var securityLevel: UInt8
    public var securityInformation: UInt16
    public var versionNumber: UInt16
    /// The raw value: reserved values are kept so the verifier can name them.
    public var certificationType: UInt8
    public var dacOriginVendorID: UInt16?
    public var dacOriginProductID: UInt16?
    /// nil when the optional list is absent; present but empty is kept as [] (no PAA authorized).
    public var authorizedPAAs: [[UInt8]]?

    public init(formatVersion: UInt8 = 1, vendorID: UInt16, productIDs: [UInt16], deviceTypeID: UInt32,
                certificateID: String, securityLevel: UInt8 = 0, securityInformation: UInt16 = 0,
                versionNumber: UInt16, certificationType: UInt8, dacOriginVendorID: UInt16? = nil,
                dacOriginProductID: UInt16? = nil, authorizedPAAs: [[UInt8]]? = nil) {
        self.formatVersion = formatVersion
        self.vendorID = vendorID
        self.productIDs = productIDs
        self.deviceTypeID = deviceTypeID
        self.certificateID = certificateID
        self.securityLevel = securityLevel
        self.securityInformation = securityInformation
        self.versionNumber = versionNumber
        self.certificationType = certificationType
        self.dacOriginVendorID = dacOriginVendorID
        self.dacOriginProductID = dacOriginProductID
        self.authorizedPAAs = authorizedPAAs
    }

    /// The TLV encoding, fields in tag order.
    public var tlvEncoded: [UInt8] {
        var m: [TLVElement] = [
            .unsigned(.context(Tag.formatVersion), formatVersion),
            .unsigned(.context(Tag.vendorID), vendorID),
            .array(.context(Tag.productIDArray), productIDs.map { .unsigned(.anonymous, $0) }),
            .unsigned(.context(Tag.deviceTypeID), deviceTypeID),
            .utf8(.context(Tag.certificateID), certificateID),
            .unsigned(.context(Tag.securityLevel), securityLevel),
            .unsigned(.context(Tag.securityInformation), securityInformation),
            .unsigned(.context(Tag.versionNumber), versionNumber),
            .unsigned(.context(Tag.certificationType), certificationType),
        ]
        if let v = dacOriginVendorID { m.append(.unsigned(.context(Tag.dacOriginVendorID), v)) }
        if let p = dacOriginProductID { m.append(.unsigned(.context(Tag.dacOriginProductID), p)) }
        if let list = authorizedPAAs { m.append(.array(.context(Tag.authorizedPAAList), list.map { .bytes(.anonymous, $0) })) }
        return TLVWriter.encode(.structure(.anonymous, m))
    }

    /// Decodes CD content. Fields must appear in tag order (the SDK decodes them in sequence);
    /// integers must fit their field; dac_origin_vendor_id and dac_origin_product_id come
    /// together; unknown context tags after the known ones are skipped.
    public init(tlv bytes: [UInt8]) throws(CertificateError) {
        let root: TLVElement
        do { root = try TLVDecoder.decode(bytes, maxDepth: 3) } catch { throw .tlv(error) }
        guard root.tag == .anonymous, case .container(.structure, let members) = root.value else {
            throw .malformedField("certification_declaration", "content is not an anonymous TLV structure")
        }
        var fields: [UInt8: TLVElement] = [:]
        var last = -1
        for m in members {
            guard case .context(let t) = m.tag else { throw .malformedField("certification_declaration", "tag \(m.tag) is not allowed in a CD") }
            guard t <= Tag.authorizedPAAList else { continue }
            guard Int(t) > last else { throw .malformedField("certification_declaration", "field \(t) is out of order or repeated") }
            last = Int(t)
            fields[t] = m
        }
        let names: [(UInt8, String)] = [
            (Tag.formatVersion, "format_version"), (Tag.vendorID, "vendor_id"),
            (Tag.productIDArray, "product_id_array"), (Tag.deviceTypeID, "device_type_id"),
            (Tag.certificateID, "certificate_id"), (Tag.securityLevel, "security_level"),
            (Tag.securityInformation, "security_information"), (Tag.versionNumber, "version_number"),
            (Tag.certificationType, "certification_type"),
        ]
        for (tag, name) in names where fields[tag] == nil { throw .malformedField(name, "missing") }
        func field(_ tag: UInt8) -> TLVElement { fields[tag] ?? .null(.anonymous) }
        do throws(TLVError) {
            formatVersion = try field(Tag.formatVersion).unsignedField(as: UInt8.self)
            vendorID = try field(Tag.vendorID).unsignedField(as: UInt16.self)
            productIDs = try field(Tag.productIDArray).members(of: .array)
                .map { (e: TLVElement) throws(TLVError) -> UInt16 in try e.unsignedField(as: UInt16.self) }
            deviceTypeID = try field(Tag.deviceTypeID).unsignedField(as: UInt32.self)
            certificateID = try field(Tag.certificateID).utf8()
            securityLevel = try field(Tag.securityLevel).unsignedField(as: UInt8.self)
            securityInformation = try field(Tag.securityInformation).unsignedField(as: UInt16.self)
            versionNumber = try field(Tag.versionNumber).unsignedField(as: UInt16.self)
            certificationType = try field(Tag.certificationType).unsignedField(as: UInt8.self)
            dacOriginVendorID = try fields[Tag.dacOriginVendorID]?.unsignedField(as: UInt16.self)
            dacOriginProductID = try fields[Tag.dacOriginProductID]?.unsignedField(as: UInt16.self)
            authorizedPAAs = try fields[Tag.authorizedPAAList]?.members(of: .array)
                .map { (e: TLVElement) throws(TLVError) -> [UInt8] in try e.bytes() }
        } catch {
            throw .tlv(error)
        }
        guard !productIDs.isEmpty, productIDs.count <= Self.maxProductIDs else {
            throw .malformedField("certification_declaration", "product_id_array holds \(productIDs.count) IDs (1...\(Self.maxProductIDs) allowed)")
        }
        guard certificateID.utf8.count == Self.certificateIDLength else {
            throw .malformedField("certification_declaration", "certificate_id is \(certificateID.utf8.count) characters, not 19")
        }
        guard (dacOriginVendorID == nil) == (dacOriginProductID == nil) else {
            throw .malformedField("certification_declaration", "dac_origin_vendor_id and dac_origin_product_id must be present together")
        }
        if let list = authorizedPAAs {
            guard list.count <= Self.maxAuthorizedPAAs else {
                throw .malformedField("certification_declaration", "authorized_paa_list holds \(list.count) entries (at most 10)")
            }
            guard list.allSatisfy({ $0.count == Self.keyIdentifierLength }) else {
                throw .malformedField("certification_declaration", "authorized_paa_list entries must be 20-byte key identifiers")
            }
        }
    }
}

extension TLVElement {
    /// An unsigned integer field: only the unsigned TLV type is accepted, and it must fit `T`.
    fileprivate func unsignedField<T: FixedWidthInteger & UnsignedInteger>(as _: T.Type) throws(TLVError) -> T {
        guard case .unsigned = value else {
            throw TLVError.wrongType(tag: tag, expected: "unsigned integer", found: "\(value)")
        }
        return try unsigned(as: T.self)
    }
}
