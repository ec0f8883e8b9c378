/// One AttributeTypeAndValue of a distinguished name, kept as received.
public struct X509Attribute: Hashable, Sendable {
    /// The attribute type, e.g. 2.5.4.3 (commonName) or 1.3.6.1.4.1.37244.1.1 (matter-node-id).
    public let type: ASN1ObjectIdentifier
    /// The ASN.1 tag of the value (UTF8String, PrintableString, IA5String, ...).
    public let valueTag: DERTag
    /// The contents octets of the value.
    public let value: [UInt8]

    public init(type: ASN1ObjectIdentifier, valueTag: DERTag, value: [UInt8]) {
        self.type = type
        self.valueTag = valueTag
        self.value = value
    }

    /// The value as text when it is a UTF8String, PrintableString or IA5String.
    public var stringValue: String? {
        switch valueTag {
        case .utf8String: return String(validating: value, as: UTF8.self)
        case .printableString, .ia5String:
            return value.allSatisfy({ $0 < 0x80 }) ? String(decoding: value, as: UTF8.self) : nil
        default: return nil
        }
    }
}

/// A distinguished name (RFC 5280 4.1.2.4): a sequence of relative distinguished names, each
/// a set of attributes. `encoded` is the Name element exactly as received.
public struct X509Name: Hashable, Sendable {
    public let relativeNames: [[X509Attribute]]
    public let encoded: [UInt8]

    /// All attributes in order.
    public var attributes: [X509Attribute] { relativeNames.flatMap { $0 } }

    /// The first attribute of the given type.
    public func first(_ type: ASN1ObjectIdentifier) -> X509Attribute? {
        attributes.first { $0.type == type }
    }

    /// Parses a Name: SEQUENCE OF SET SIZE (1..MAX) OF SEQUENCE { type OID, value ANY }.
    public init(derNode node: DERNode) throws(CertificateError) {
        var rdns: [[X509Attribute]] = []
        for setNode in try node.sequence("Name") {
            let members = try setNode.expect(.set, "RelativeDistinguishedName SET").children
            guard !members.isEmpty else { throw .invalidName("empty relative distinguished name") }
            var rdn: [X509Attribute] = []
            for member in members {
                let parts = try member.sequence("AttributeTypeAndValue")
                guard parts.count == 2 else { throw .invalidName("AttributeTypeAndValue needs a type and a value") }
                let type = try parts[0].objectIdentifier()
                if [DERTag.utf8String, .printableString, .ia5String].contains(parts[1].tag) {
                    _ = try parts[1].string()  // validate the character set
                }
                rdn.append(X509Attribute(type: type, valueTag: parts[1].tag, value: Array(parts[1].value)))
            }
            rdns.append(rdn)
        }
        self.relativeNames = rdns
        self.encoded = node.encoded
    }
}
