/// One certificate extension as received (RFC 5280 4.1.2.9).
public struct X509Extension: Hashable, Sendable {
    public let oid: ASN1ObjectIdentifier
    public let isCritical: Bool
    /// Whether `critical` was written out as FALSE (DER forbids encoding a DEFAULT value).
    public let criticalExplicitlyFalse: Bool
    /// The contents of extnValue: the DER encoding of the extension's own value.
    public let value: [UInt8]
    /// The whole Extension SEQUENCE as received.
    public let encoded: [UInt8]

    /// Parses an Extension: SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING }.
    public init(derNode node: DERNode) throws(CertificateError) {
        let parts = try node.sequence("Extension")
        guard parts.count == 2 || parts.count == 3 else { throw .invalidExtension("?", "wrong number of fields") }
        oid = try parts[0].objectIdentifier()
        if parts.count == 3 {
            isCritical = try parts[1].boolean()
            criticalExplicitlyFalse = !isCritical
        } else {
            isCritical = false
            criticalExplicitlyFalse = false
        }
        value = try parts[parts.count - 1].octetString()
        encoded = node.encoded
    }
}

/// Basic constraints (RFC 5280 4.2.1.9).
public struct BasicConstraints: Hashable, Sendable {
    public var isCA: Bool
    public var pathLengthConstraint: Int?
    /// Whether `cA` was written out as FALSE (a DEFAULT value DER would omit).
    public var caExplicitlyFalse: Bool = false

    public init(isCA: Bool, pathLengthConstraint: Int? = nil) {
        self.isCA = isCA
        self.pathLengthConstraint = pathLengthConstraint
    }

    /// Parses the extension value: SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLen INTEGER (0..MAX) OPTIONAL }.
    public init(extensionValue: [UInt8]) throws(CertificateError) {
        let parts = try DER.parse(extensionValue).sequence("BasicConstraints")
        var i = 0
        isCA = false
        if i < parts.count, parts[i].tag == .boolean {
            isCA = try parts[i].boolean()
            caExplicitlyFalse = !isCA
            i += 1
        }
        if i < parts.count, parts[i].tag == .integer {
            let v = try parts[i].integer()
            guard (0...255).contains(v) else {
                throw .invalidExtension("basicConstraints", "path length \(v) out of range")
            }
            pathLengthConstraint = Int(v)
            i += 1
        }
        guard i == parts.count else { throw .invalidExtension("basicConstraints", "unexpected field") }
    }

    /// The DER extension value, omitting DEFAULT fields.
    public var derValue: [UInt8] {
        var members: [[UInt8]] = []
        if isCA { members.append(DERWriter.boolean(true)) }
        if let p = pathLengthConstraint { members.append(DERWriter.integer(Int64(p))) }
        return DERWriter.sequence(members)
    }
}

/// Key usage bits (RFC 5280 4.2.1.3). Bit i of the DER named-bit string is `1 << i`, which is
/// also the Matter TLV encoding of the extension (Matter Core 6.5.11.2).
public struct KeyUsage: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let digitalSignature = KeyUsage(rawValue: 1 << 0)
    public static let nonRepudiation = KeyUsage(rawValue: 1 << 1)
    public static let keyEncipherment = KeyUsage(rawValue: 1 << 2)
    public static let dataEncipherment = KeyUsage(rawValue: 1 << 3)
    public static let keyAgreement = KeyUsage(rawValue: 1 << 4)
    public static let keyCertSign = KeyUsage(rawValue: 1 << 5)
    public static let cRLSign = KeyUsage(rawValue: 1 << 6)
    public static let encipherOnly = KeyUsage(rawValue: 1 << 7)
    public static let decipherOnly = KeyUsage(rawValue: 1 << 8)

    /// Parses the extension value (a named-bit BIT STRING with no bits beyond decipherOnly).
    public init(extensionValue: [UInt8]) throws(CertificateError) {
        let bits = try DER.parse(extensionValue).namedBits()
        guard bits <= 0x1FF else { throw .invalidExtension("keyUsage", "undefined key usage bit") }
        self.init(rawValue: UInt16(bits))
    }

    public var derValue: [UInt8] { DERWriter.namedBitString(UInt32(rawValue)) }

    /// Names of the set bits, in bit order.
    public var names: [String] {
        let all = ["digitalSignature", "nonRepudiation", "keyEncipherment", "dataEncipherment", "keyAgreement",
                   "keyCertSign", "cRLSign", "encipherOnly", "decipherOnly"]
        return all.indices.filter { rawValue & (1 << UInt16($0)) != 0 }.map { all[$0] }
    }
}

/// Authority key identifier (RFC 5280 4.2.1.1).
public struct AuthorityKeyIdentifier: Hashable, Sendable {
    public var keyIdentifier: [UInt8]?
    /// Whether authorityCertIssuer or authorityCertSerialNumber were present as well.
    public var hasIssuerAndSerial: Bool

    public init(keyIdentifier: [UInt8]) {
        self.keyIdentifier = keyIdentifier
        self.hasIssuerAndSerial = false
    }

    /// Parses SEQUENCE { [0] KeyIdentifier OPTIONAL, [1] GeneralNames OPTIONAL, [2] INTEGER OPTIONAL }.
    public init(extensionValue: [UInt8]) throws(CertificateError) {
        let parts = try DER.parse(extensionValue).sequence("AuthorityKeyIdentifier")
        keyIdentifier = nil
        hasIssuerAndSerial = false
        var lastTag: UInt32 = 0
        for (i, p) in parts.enumerated() {
            guard p.tag.tagClass == .contextSpecific, p.tag.number <= 2, i == 0 || p.tag.number > lastTag else {
                throw .invalidExtension("authorityKeyIdentifier", "unexpected field \(p.tag)")
            }
            lastTag = p.tag.number
            switch p.tag.number {
            case 0:
                guard !p.tag.isConstructed else { throw .invalidExtension("authorityKeyIdentifier", "keyIdentifier must be primitive") }
                keyIdentifier = Array(p.value)
            case 1:
                guard p.tag.isConstructed else { throw .invalidExtension("authorityKeyIdentifier", "authorityCertIssuer must be constructed") }
                hasIssuerAndSerial = true
            default:
                guard !p.tag.isConstructed else { throw .invalidExtension("authorityKeyIdentifier", "serial must be primitive") }
                hasIssuerAndSerial = true
            }
        }
    }

    /// The DER extension value with the key identifier only.
    public var derValue: [UInt8] {
        DERWriter.sequence([DERWriter.element(.context(0, constructed: false), keyIdentifier ?? [])])
    }
}

/// Parsers for the extension values that have no struct of their own.
public enum X509ExtensionValue {
    /// Parses an extended key usage value: SEQUENCE SIZE (1..MAX) OF KeyPurposeId.
    public static func extendedKeyUsage(_ extensionValue: [UInt8]) throws(CertificateError) -> [ASN1ObjectIdentifier] {
        let parts = try DER.parse(extensionValue).sequence("ExtKeyUsageSyntax")
        guard !parts.isEmpty else { throw .invalidExtension("extKeyUsage", "empty") }
        var out: [ASN1ObjectIdentifier] = []
        for p in parts { out.append(try p.objectIdentifier()) }
        return out
    }

    /// Parses a subject key identifier value: OCTET STRING.
    public static func subjectKeyIdentifier(_ extensionValue: [UInt8]) throws(CertificateError) -> [UInt8] {
        try DER.parse(extensionValue).octetString()
    }
}
