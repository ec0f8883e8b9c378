/// The class bits of an ASN.1 identifier octet (X.690 8.1.2.2).
public enum DERTagClass: UInt8, Hashable, Sendable {
    case universal = 0
    case application = 1
    case contextSpecific = 2
    case `private` = 3
}

/// An ASN.1 tag: class, constructed bit and tag number.
public struct DERTag: Hashable, Sendable {
    public var tagClass: DERTagClass
    public var isConstructed: Bool
    public var number: UInt32

    public init(_ tagClass: DERTagClass, constructed: Bool, _ number: UInt32) {
        self.tagClass = tagClass
        self.isConstructed = constructed
        self.number = number
    }

    public static let boolean = DERTag(.universal, constructed: false, 1)
    public static let integer = DERTag(.universal, constructed: false, 2)
    public static let bitString = DERTag(.universal, constructed: false, 3)
    public static let octetString = DERTag(.universal, constructed: false, 4)
    public static let null = DERTag(.universal, constructed: false, 5)
    public static let objectIdentifier = DERTag(.universal, constructed: false, 6)
    public static let utf8String = DERTag(.universal, constructed: false, 12)
    public static let printableString = DERTag(.universal, constructed: false, 19)
    public static let ia5String = DERTag(.universal, constructed: false, 22)
    public static let utcTime = DERTag(.universal, constructed: false, 23)
    public static let generalizedTime = DERTag(.universal, constructed: false, 24)
    public static let sequence = DERTag(.universal, constructed: true, 16)
    public static let set = DERTag(.universal, constructed: true, 17)

    /// `[n]` context-specific, constructed (EXPLICIT tagging) or primitive (IMPLICIT of a primitive).
    public static func context(_ n: UInt32, constructed: Bool) -> DERTag {
        DERTag(.contextSpecific, constructed: constructed, n)
    }
}

extension DERTag: CustomStringConvertible {
    public var description: String {
        switch (tagClass, number) {
        case (.universal, 1): return "BOOLEAN"
        case (.universal, 2): return "INTEGER"
        case (.universal, 3): return "BIT STRING"
        case (.universal, 4): return "OCTET STRING"
        case (.universal, 5): return "NULL"
        case (.universal, 6): return "OBJECT IDENTIFIER"
        case (.universal, 12): return "UTF8String"
        case (.universal, 16): return "SEQUENCE"
        case (.universal, 17): return "SET"
        case (.universal, 19): return "PrintableString"
        case (.universal, 22): return "IA5String"
        case (.universal, 23): return "UTCTime"
        case (.universal, 24): return "GeneralizedTime"
        case (.contextSpecific, let n): return "[\(n)]\(isConstructed ? "" : " IMPLICIT")"
        default: return "\(tagClass) tag \(number)"
        }
    }
}

/// One DER element as received: its tag, its exact encoded bytes and, for constructed
/// elements, its children. Keeping `encoded` lets signatures be checked over the bytes that
/// were actually signed (e.g. a certificate's tbsCertificate), never over a re-encoding.
public struct DERNode: Hashable, Sendable {
    public let tag: DERTag
    /// The whole element: identifier, length and contents octets.
    public let encoded: [UInt8]
    /// Where the contents octets start inside `encoded`.
    public let headerLength: Int
    /// Offset of this element in the buffer it was parsed from (for error messages).
    public let offset: Int
    /// The parsed members of a constructed element; empty for a primitive one.
    public let children: [DERNode]

    /// The contents octets.
    public var value: ArraySlice<UInt8> { encoded[headerLength...] }
}

extension DERNode {
    /// Two nodes are equal when their encodings are; where they were found does not matter.
    public static func == (a: DERNode, b: DERNode) -> Bool { a.encoded == b.encoded }
    public func hash(into hasher: inout Hasher) { hasher.combine(encoded) }

    /// Fails unless the node has the given tag.
    public func expect(_ tag: DERTag, _ what: String? = nil) throws(CertificateError) -> DERNode {
        guard self.tag == tag else {
            throw .derUnexpectedElement(expected: what ?? tag.description, found: self.tag.description)
        }
        return self
    }

    /// The children of a SEQUENCE, failing if this is something else.
    public func sequence(_ what: String = "SEQUENCE") throws(CertificateError) -> [DERNode] {
        try expect(.sequence, what).children
    }
}
