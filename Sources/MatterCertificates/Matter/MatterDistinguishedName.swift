/// A DN attribute type of Matter TLV certificates (Matter Core 6.5.6.1). The raw value is the
/// TLV context tag; standard X.509 attributes add 0x80 to the tag when their value is a
/// PrintableString rather than a UTF8String.
import MatterTLV

public struct MatterDNAttributeType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let commonName = Self(rawValue: 1)
    public static let surname = Self(rawValue: 2)
    public static let serialNumber = Self(rawValue: 3)
    public static let countryName = Self(rawValue: 4)
    public static let localityName = Self(rawValue: 5)
    public static let stateOrProvinceName = Self(rawValue: 6)
    public static let organizationName = Self(rawValue: 7)
    public static let organizationalUnitName = Self(rawValue: 8)
    public static let title = Self(rawValue: 9)
    public static let name = Self(rawValue: 10)
    public static let givenName = Self(rawValue: 11)
    public static let initials = Self(rawValue: 12)
    public static let generationQualifier = Self(rawValue: 13)
    public static let dnQualifier = Self(rawValue: 14)
    public static let pseudonym = Self(rawValue: 15)
    public static let domainComponent = Self(rawValue: 16)
    public static let matterNodeID = Self(rawValue: 17)
    public static let matterFirmwareSigningID = Self(rawValue: 18)
    public static let matterICACID = Self(rawValue: 19)
    public static let matterRCACID = Self(rawValue: 20)
    public static let matterFabricID = Self(rawValue: 21)
    public static let matterCASEAuthenticatedTag = Self(rawValue: 22)

    /// The OID, name and whether a PrintableString form exists, for every defined type.
    static let table: [UInt8: (oid: ASN1ObjectIdentifier, name: String)] = [
        1: (ASN1ObjectIdentifier([2, 5, 4, 3]), "CN"),
        2: (ASN1ObjectIdentifier([2, 5, 4, 4]), "SN"),
        3: (ASN1ObjectIdentifier([2, 5, 4, 5]), "serialNumber"),
        4: (ASN1ObjectIdentifier([2, 5, 4, 6]), "C"),
        5: (ASN1ObjectIdentifier([2, 5, 4, 7]), "L"),
        6: (ASN1ObjectIdentifier([2, 5, 4, 8]), "ST"),
        7: (ASN1ObjectIdentifier([2, 5, 4, 10]), "O"),
        8: (ASN1ObjectIdentifier([2, 5, 4, 11]), "OU"),
        9: (ASN1ObjectIdentifier([2, 5, 4, 12]), "title"),
        10: (ASN1ObjectIdentifier([2, 5, 4, 41]), "name"),
        11: (ASN1ObjectIdentifier([2, 5, 4, 42]), "GN"),
        12: (ASN1ObjectIdentifier([2, 5, 4, 43]), "initials"),
        13: (ASN1ObjectIdentifier([2, 5, 4, 44]), "generationQualifier"),
        14: (ASN1ObjectIdentifier([2, 5, 4, 46]), "dnQualifier"),
        15: (ASN1ObjectIdentifier([2, 5, 4, 65]), "pseudonym"),
        16: (ASN1ObjectIdentifier([0, 9, 2342, 19200300, 100, 1, 25]), "DC"),
        17: (.matterDN(1), "matter-node-id"),
        18: (.matterDN(2), "matter-firmware-signing-id"),
        19: (.matterDN(3), "matter-icac-id"),
        20: (.matterDN(4), "matter-rcac-id"),
        21: (.matterDN(5), "matter-fabric-id"),
        22: (.matterDN(6), "matter-noc-cat"),
    ]

    /// The type of an X.509 attribute OID, if Matter defines it.
    public init?(oid: ASN1ObjectIdentifier) {
        guard let entry = Self.table.first(where: { $0.value.oid == oid }) else { return nil }
        rawValue = entry.key
    }

    public var isDefined: Bool { Self.table[rawValue] != nil }
    public var oid: ASN1ObjectIdentifier? { Self.table[rawValue]?.oid }
    /// Matter's own attributes hold integers (64-bit, or 32-bit for CATs); the rest hold text.
    public var isMatterInteger: Bool { (17...22).contains(rawValue) }
    /// Only the standard attributes other than domainComponent (always IA5String) have a
    /// PrintableString variant.
    public var allowsPrintableString: Bool { (1...15).contains(rawValue) }
    public var description: String { Self.table[rawValue]?.name ?? "attribute-\(rawValue)" }
}

/// One attribute of a Matter distinguished name.
public struct MatterDNAttribute: Hashable, Sendable, CustomStringConvertible {
    public enum Value: Hashable, Sendable {
        case integer(UInt64)
        case string(String)
    }

    public let type: MatterDNAttributeType
    public let value: Value
    /// For standard attributes: whether the X.509 value is a PrintableString (TLV tag + 0x80).
    public let isPrintableString: Bool

    /// Checks the value against the type: integers for Matter attributes (operational node
    /// IDs, non-zero fabric IDs, CATs with a non-zero version), text of the right character
    /// set otherwise.
    public init(type: MatterDNAttributeType, value: Value, isPrintableString: Bool = false) throws(CertificateError) {
        guard type.isDefined else { throw .invalidName("undefined attribute type \(type.rawValue)") }
        switch (type.isMatterInteger, value) {
        case (true, .integer(let v)):
            guard !isPrintableString else { throw .invalidName("\(type) cannot be a PrintableString") }
            switch type {
            case .matterNodeID: guard NodeID(v).isOperational else { throw .invalidNodeID(v) }
            case .matterFabricID: guard v != 0 else { throw .invalidFabricID }
            case .matterCASEAuthenticatedTag:
                guard let cat = UInt32(exactly: v) else { throw .invalidName("matter-noc-cat 0x\(hex64(v)) exceeds 32 bits") }
                guard CASEAuthenticatedTag(cat).isValid else { throw .invalidCASEAuthenticatedTag(cat) }
            default: break
            }
        case (false, .string(let s)):
            if isPrintableString {
                guard type.allowsPrintableString else { throw .invalidName("\(type) has no PrintableString form") }
                guard s.utf8.allSatisfy(DERNode.isPrintableStringCharacter) else {
                    throw .invalidName("\(type) value is not a valid PrintableString")
                }
            }
            if type == .domainComponent && !s.utf8.allSatisfy({ $0 < 0x80 }) {
                throw .invalidName("DC value is not ASCII (IA5String)")
            }
        default:
            throw .invalidName("\(type) has a value of the wrong kind")
        }
        self.type = type
        self.value = value
        self.isPrintableString = isPrintableString
    }

    public static func nodeID(_ v: NodeID) throws(CertificateError) -> Self { try Self(type: .matterNodeID, value: .integer(v.rawValue)) }
    public static func fabricID(_ v: FabricID) throws(CertificateError) -> Self { try Self(type: .matterFabricID, value: .integer(v.rawValue)) }
    public static func rcacID(_ v: UInt64) throws(CertificateError) -> Self { try Self(type: .matterRCACID, value: .integer(v)) }
    public static func icacID(_ v: UInt64) throws(CertificateError) -> Self { try Self(type: .matterICACID, value: .integer(v)) }
    public static func caseAuthenticatedTag(_ v: CASEAuthenticatedTag) throws(CertificateError) -> Self {
        try Self(type: .matterCASEAuthenticatedTag, value: .integer(UInt64(v.rawValue)))
    }
    public static func commonName(_ s: String) throws(CertificateError) -> Self { try Self(type: .commonName, value: .string(s)) }

    /// The X.509 text of the value: 16 (or, for CATs, 8) uppercase hex digits for Matter
    /// attributes.
    public var textValue: String {
        switch value {
        case .integer(let v): return type == .matterCASEAuthenticatedTag ? hex32(UInt32(truncatingIfNeeded: v)) : hex64(v)
        case .string(let s): return s
        }
    }

    public var description: String { "\(type)=\(textValue)" }
}

/// The roles a Matter certificate can have, derived from its subject DN.
public enum MatterCertificateType: String, Hashable, Sendable, CustomStringConvertible {
    case root = "RCAC"
    case intermediate = "ICAC"
    case node = "NOC"
    case firmwareSigning = "firmware signing"
    /// A Wi-Fi per-device-credential (PDC) network client identity (Matter Core 11.24): the
    /// self-signed certificate whose subject is exactly `CN=*`.
    case networkIdentity = "network identity"
    public var description: String { rawValue }
}

/// A distinguished name of a Matter certificate: attributes in order, one per RDN.
public struct MatterDistinguishedName: Hashable, Sendable, CustomStringConvertible {
    public let attributes: [MatterDNAttribute]

    public init(_ attributes: [MatterDNAttribute]) {
        self.attributes = attributes
    }

    private func integers(_ type: MatterDNAttributeType) -> [UInt64] {
        attributes.compactMap { a in
            guard a.type == type, case .integer(let v) = a.value else { return nil }
            return v
        }
    }

    /// The first value of a Matter integer attribute.
    public func integer(_ type: MatterDNAttributeType) -> UInt64? { integers(type).first }

    public var nodeID: NodeID? { integer(.matterNodeID).map(NodeID.init(rawValue:)) }
    public var fabricID: FabricID? { integer(.matterFabricID).map(FabricID.init(rawValue:)) }
    public var caseAuthenticatedTags: [CASEAuthenticatedTag] {
        integers(.matterCASEAuthenticatedTag).map { CASEAuthenticatedTag(UInt32(truncatingIfNeeded: $0)) }
    }

    /// The certificate type this subject DN denotes (the SDK's GetCertType rules, Matter Core
    /// 6.5.6): exactly one of rcac-id, icac-id, node-id or firmware-signing-id; at most one
    /// fabric-id; a node certificate needs a fabric-id; CATs only in node certificates.
    public func certificateType() throws(CertificateError) -> MatterCertificateType {
        if self == .networkIdentity { return .networkIdentity }
        var type: MatterCertificateType?
        var fabricIDs = 0
        var cats = 0
        for a in attributes {
            let role: MatterCertificateType?
            switch a.type {
            case .matterRCACID: role = .root
            case .matterICACID: role = .intermediate
            case .matterNodeID: role = .node
            case .matterFirmwareSigningID: role = .firmwareSigning
            case .matterFabricID: role = nil; fabricIDs += 1
            case .matterCASEAuthenticatedTag: role = nil; cats += 1
            default: role = nil
            }
            if let role {
                guard type == nil else { throw .invalidCertificateType("more than one Matter identifier attribute") }
                type = role
            }
        }
        guard let type else { throw .invalidCertificateType("no matter-rcac-id, icac-id, node-id or firmware-signing-id") }
        guard fabricIDs <= 1 else { throw .invalidCertificateType("more than one matter-fabric-id") }
        if type == .node {
            guard fabricIDs == 1 else { throw .invalidCertificateType("a node certificate needs a matter-fabric-id") }
            guard cats <= 3 else { throw .invalidCertificateType("more than 3 CASE Authenticated Tags") }
            let ids = caseAuthenticatedTags.map(\.identifier)
            guard Set(ids).count == ids.count else {
                throw .invalidCertificateType("two CASE Authenticated Tags with the same identifier")
            }
        } else {
            guard cats == 0 else { throw .invalidCertificateType("CASE Authenticated Tags are only allowed in node certificates") }
        }
        return type
    }

    public var description: String { attributes.map(\.description).joined(separator: ", ") }

    /// `CN=*`, the subject and issuer of every network client identity.
    public static let networkIdentity = MatterDistinguishedName([try! .commonName("*")])
}
