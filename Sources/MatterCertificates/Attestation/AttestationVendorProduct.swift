/// The vendor and product IDs an attestation certificate (PAA, PAI, DAC) carries in its subject
/// (Matter Core 6.2.2.2): as the Matter attributes 1.3.6.1.4.1.37244.2.1 / 2.2, each exactly four
/// uppercase hex digits, or, for CAs that cannot add custom attributes, inside the common name
/// as `Mvid:FFF1` and `Mpid:8000`. The Matter attributes win when both forms are present.
public struct AttestationVendorProduct: Sendable, Hashable {
    public var vendorID: UInt16?
    public var productID: UInt16?

    public init(vendorID: UInt16? = nil, productID: UInt16? = nil) {
        self.vendorID = vendorID
        self.productID = productID
    }

    public static let vendorIDAttribute = ASN1ObjectIdentifier([1, 3, 6, 1, 4, 1, 37244, 2, 1])
    public static let productIDAttribute = ASN1ObjectIdentifier([1, 3, 6, 1, 4, 1, 37244, 2, 2])
    public static let commonNameAttribute = ASN1ObjectIdentifier([2, 5, 4, 3])

    /// The SDK only searches the first 64 bytes of a common name for the fallback encoding.
    static let maxCommonNameLength = 64

    /// Reads the IDs from subject attributes, in the order they appear. Fails when a Matter
    /// attribute is not four uppercase hex digits or repeats, or when a common name holds
    /// `Mvid:`/`Mpid:` with no valid value after any occurrence.
    public init(subjectAttributes: [(type: ASN1ObjectIdentifier, value: [UInt8])]) throws(CertificateError) {
        var fromMatter = AttestationVendorProduct()
        var fromCommonName = AttestationVendorProduct()
        var commonNameSeen = false
        for (type, value) in subjectAttributes {
            let isVID = type == Self.vendorIDAttribute
            let isPID = type == Self.productIDAttribute
            let isCN = type == Self.commonNameAttribute
            guard isVID || isPID || isCN else { continue }
            guard !value.isEmpty else { throw .invalidName("empty \(isCN ? "common name" : "VID/PID attribute")") }
            if isVID || isPID {
                guard value.count == 4, let id = Self.uppercaseHex16(value[...]) else {
                    throw .invalidName("the Matter \(isVID ? "VID" : "PID") attribute must be 4 uppercase hex digits")
                }
                if isVID {
                    guard fromMatter.vendorID == nil else { throw .invalidName("more than one Matter VID attribute") }
                    fromMatter.vendorID = id
                } else {
                    guard fromMatter.productID == nil else { throw .invalidName("more than one Matter PID attribute") }
                    fromMatter.productID = id
                }
            } else if !commonNameSeen {
                // Like the SDK, only the first common name that yields anything is used; later
                // ones are looked at only while nothing was found.
                let text = value.prefix(Self.maxCommonNameLength)
                fromCommonName.vendorID = try Self.findFallback(prefix: "Mvid:", in: text)
                fromCommonName.productID = try Self.findFallback(prefix: "Mpid:", in: text)
                commonNameSeen = fromCommonName.vendorID != nil || fromCommonName.productID != nil
            }
        }
        self = (fromMatter.vendorID != nil || fromMatter.productID != nil) ? fromMatter : fromCommonName
    }

    /// The value after the leftmost `prefix` that is followed by four uppercase hex digits;
    /// nil when the prefix never occurs; an error when it occurs but never with a valid value.
    static func findFallback(prefix: String, in text: ArraySlice<UInt8>) throws(CertificateError) -> UInt16? {
        let p = Array(prefix.utf8)
        var sawPrefix = false
        var i = text.startIndex
        while i + p.count <= text.endIndex {
            if text[i..<(i + p.count)].elementsEqual(p) {
                sawPrefix = true
                let start = i + p.count
                if start + 4 <= text.endIndex, let v = uppercaseHex16(text[start..<(start + 4)]) { return v }
            }
            i += 1
        }
        if sawPrefix { throw .invalidName("'\(prefix)' in the common name is not followed by 4 uppercase hex digits") }
        return nil
    }

    static func uppercaseHex16(_ digits: ArraySlice<UInt8>) -> UInt16? {
        guard digits.count == 4 else { return nil }
        var v: UInt16 = 0
        for c in digits {
            let n: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): n = c - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): n = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            v = v << 4 | UInt16(n)
        }
        return v
    }
}
