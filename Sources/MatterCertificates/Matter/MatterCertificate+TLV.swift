import MatterTLV

// The Matter TLV form (Matter Core 6.5.2): an anonymous structure whose fields appear in tag
// order, each exactly once (extensions excepted, which are in their own list).

extension MatterCertificate {
    /// Decodes a TLV certificate (or the compact form of a network identity), rejecting
    /// anything outside the Matter profile: trailing
    /// bytes, missing, repeated, unknown or out-of-order fields, wrong types, algorithms other
    /// than ECDSA-SHA256 / P-256, invalid DN values, bad extension contents, more than
    /// `maxTLVLength` bytes, or an X.509 form over `maxDERLength` bytes.
    public init(tlvEncoded bytes: [UInt8]) throws(CertificateError) {
        guard bytes.count <= Self.maxTLVLength else {
            throw .certificateTooLarge(size: bytes.count, limit: Self.maxTLVLength)
        }
        let root: TLVElement
        do { root = try TLVDecoder.decode(bytes) } catch { throw .tlv(error) }
        try self.init(tlv: root)
    }

    /// Decodes a certificate from an already decoded TLV element (an anonymous structure).
    public init(tlv root: TLVElement) throws(CertificateError) {
        guard root.tag == .anonymous else { throw .malformedField("certificate", "must be an anonymous structure") }
        let members = try Self.members(root, .structure, "certificate")
        // A structure that starts with the public key is a compact network identity.
        if members.first?.tag == .context(Tag.publicKey) {
            try self.init(compactNetworkIdentity: members)
        } else {
            try self.init(fullForm: members)
        }
        // The signature is over the X.509 form, so a certificate without one (over 600 bytes of
        // DER) can never be verified.
        _ = try checkedDER()
    }

    /// Decodes the members of the full certificate structure, in tag order.
    private init(fullForm members: [TLVElement]) throws(CertificateError) {
        var fields = FieldCursor(members)

        serialNumber = try Self.bytes(try fields.next(Tag.serialNumber, "serial-num"), "serial-num")
        try Self.checkSerialNumber(serialNumber)
        guard try Self.unsigned(try fields.next(Tag.signatureAlgorithm, "sig-algo"), "sig-algo") == Self.ecdsaWithSHA256ID else {
            throw .unsupportedSignatureAlgorithm("Matter sig-algo other than ecdsa-with-SHA256")
        }
        issuer = try MatterDistinguishedName(tlv: try fields.next(Tag.issuer, "issuer"), field: "issuer")
        notBefore = MatterEpochTime(try Self.uint32(try fields.next(Tag.notBefore, "not-before"), "not-before"))
        notAfter = MatterEpochTime(try Self.uint32(try fields.next(Tag.notAfter, "not-after"), "not-after"))
        subject = try MatterDistinguishedName(tlv: try fields.next(Tag.subject, "subject"), field: "subject")
        guard try Self.unsigned(try fields.next(Tag.publicKeyAlgorithm, "pub-key-algo"), "pub-key-algo") == Self.ecPublicKeyID else {
            throw .unsupportedPublicKeyAlgorithm("Matter pub-key-algo other than id-ecPublicKey")
        }
        guard try Self.unsigned(try fields.next(Tag.ellipticCurve, "ec-curve-id"), "ec-curve-id") == Self.prime256v1ID else {
            throw .unsupportedCurve("Matter ec-curve-id other than prime256v1")
        }
        publicKey = try Self.bytes(try fields.next(Tag.publicKey, "ec-pub-key"), "ec-pub-key")
        guard publicKey.count == 65, publicKey[0] == 0x04 else { throw .invalidPublicKey }
        extensions = try Self.decodeExtensions(try fields.next(Tag.extensions, "extensions"))
        signature = try Self.bytes(try fields.next(Tag.signature, "signature"), "signature")
        guard signature.count == 64 else { throw .malformedField("signature", "must be 64 bytes r||s") }
        try fields.end()
        try checkValidityOrder()
    }

    /// The TLV form: an anonymous structure, shortest encodings.
    public var tlvEncoded: [UInt8] { tlvElement.encoded }

    /// The TLV element tree of this certificate.
    public var tlvElement: TLVElement {
        var ext: [TLVElement] = []
        for e in extensions {
            let tag = TLVTag.context(e.tag)
            switch e {
            case .basicConstraints(let bc):
                var members = [TLVElement.bool(.context(Tag.isCA), bc.isCA)]
                if let p = bc.pathLengthConstraint { members.append(.unsigned(.context(Tag.pathLengthConstraint), UInt64(p))) }
                ext.append(.structure(tag, members))
            case .keyUsage(let ku): ext.append(.unsigned(tag, ku.rawValue))
            case .extendedKeyUsage(let purposes): ext.append(.array(tag, purposes.map { .unsigned(.anonymous, $0.rawValue) }))
            case .subjectKeyIdentifier(let v), .authorityKeyIdentifier(let v), .futureExtension(let v):
                ext.append(.bytes(tag, v))
            }
        }
        return .structure(.anonymous, [
            .bytes(.context(Tag.serialNumber), serialNumber),
            .unsigned(.context(Tag.signatureAlgorithm), Self.ecdsaWithSHA256ID),
            issuer.tlvElement(tag: Tag.issuer),
            .unsigned(.context(Tag.notBefore), notBefore.rawValue),
            .unsigned(.context(Tag.notAfter), notAfter.rawValue),
            subject.tlvElement(tag: Tag.subject),
            .unsigned(.context(Tag.publicKeyAlgorithm), Self.ecPublicKeyID),
            .unsigned(.context(Tag.ellipticCurve), Self.prime256v1ID),
            .bytes(.context(Tag.publicKey), publicKey),
            .list(.context(Tag.extensions), ext),
            .bytes(.context(Tag.signature), signature),
        ])
    }

    // MARK: - Field rules shared by both decoders

    /// A serial number is a positive INTEGER of at most 20 octets, minimally encoded
    /// (RFC 5280 4.1.2.2), so that it converts to DER unchanged.
    static func checkSerialNumber(_ s: [UInt8]) throws(CertificateError) {
        guard (1...20).contains(s.count) else { throw .malformedField("serial-num", "must be 1 to 20 bytes") }
        guard s[0] & 0x80 == 0 else { throw .malformedField("serial-num", "must be a positive integer") }
        guard s.count == 1 || s[0] != 0 || s[1] & 0x80 != 0 else {
            throw .malformedField("serial-num", "has a redundant leading zero byte")
        }
        guard s.contains(where: { $0 != 0 }) else { throw .malformedField("serial-num", "must not be zero") }
    }

    /// not-before must precede not-after, unless not-after is 0 (no expiry).
    func checkValidityOrder() throws(CertificateError) {
        if notAfter.rawValue != 0 && notBefore >= notAfter {
            throw .invalidValidity("not-before \(notBefore) is not before not-after \(notAfter)")
        }
    }

    static func checkExtensionSet(_ exts: [MatterCertificateExtension]) throws(CertificateError) {
        guard !exts.isEmpty else { throw .malformedField("extensions", "must not be empty") }
        var seen: Set<UInt8> = []
        for e in exts where e.tag != Tag.futureExtension {
            guard seen.insert(e.tag).inserted else { throw .duplicateExtension(e.name) }
        }
        var futureOIDs: Set<ASN1ObjectIdentifier> = []
        for e in exts {
            switch e {
            case .basicConstraints(let bc):
                if bc.pathLengthConstraint != nil && !bc.isCA {
                    throw .invalidExtension("basicConstraints", "path length without the CA flag")
                }
            case .keyUsage(let ku):
                guard ku.rawValue != 0, ku.rawValue <= 0x1FF else { throw .invalidExtension("keyUsage", "no or undefined bits") }
            case .extendedKeyUsage(let p):
                guard !p.isEmpty, p.allSatisfy({ $0.oid != nil }) else { throw .invalidExtension("extKeyUsage", "empty or undefined purpose") }
            case .subjectKeyIdentifier(let v):
                guard v.count == 20 else { throw .invalidExtension("subjectKeyIdentifier", "must be 20 bytes") }
            case .authorityKeyIdentifier(let v):
                guard v.count == 20 else { throw .invalidExtension("authorityKeyIdentifier", "must be 20 bytes") }
            case .futureExtension(let der):
                let ext = try X509Extension(derNode: try DER.parse(der))
                guard !MatterCertificate.knownExtensionOIDs.contains(ext.oid) else {
                    throw .invalidExtension("future-extension", "carries \(ext.oid), which has its own tag")
                }
                guard !ext.criticalExplicitlyFalse else { throw .invalidExtension("future-extension", "critical FALSE must be omitted") }
                guard futureOIDs.insert(ext.oid).inserted else { throw .duplicateExtension(ext.oid.description) }
            }
        }
    }

    static let knownExtensionOIDs: Set<ASN1ObjectIdentifier> = [
        .basicConstraints, .keyUsage, .extendedKeyUsage, .subjectKeyIdentifier, .authorityKeyIdentifier,
    ]

    // MARK: - TLV helpers

    private static func decodeExtensions(_ element: TLVElement) throws(CertificateError) -> [MatterCertificateExtension] {
        var out: [MatterCertificateExtension] = []
        for m in try members(element, .list, "extensions") {
            guard case .context(let tag) = m.tag else { throw .malformedField("extensions", "member without a context tag") }
            switch tag {
            case Tag.basicConstraints:
                var f = FieldCursor(try members(m, .structure, "basic-constraints"))
                guard let caElement = f.peek(Tag.isCA) else { throw .malformedField("basic-constraints", "is-ca is missing") }
                _ = try f.next(Tag.isCA, "is-ca")
                var bc = BasicConstraints(isCA: try bool(caElement, "is-ca"))
                if let p = f.peek(Tag.pathLengthConstraint) {
                    _ = try f.next(Tag.pathLengthConstraint, "path-len-constraint")
                    let v = try unsigned(p, "path-len-constraint")
                    guard v <= 255 else { throw .malformedField("path-len-constraint", "exceeds 255") }
                    bc.pathLengthConstraint = Int(v)
                }
                try f.end()
                out.append(.basicConstraints(bc))
            case Tag.keyUsage:
                let v = try unsigned(m, "key-usage")
                guard let bits = UInt16(exactly: v) else { throw .malformedField("key-usage", "exceeds 16 bits") }
                out.append(.keyUsage(KeyUsage(rawValue: bits)))
            case Tag.extendedKeyUsage:
                var purposes: [KeyPurpose] = []
                for p in try members(m, .array, "ext-key-usage") {
                    guard let v = UInt8(exactly: try unsigned(p, "key-purpose-id")) else {
                        throw .malformedField("key-purpose-id", "exceeds 8 bits")
                    }
                    purposes.append(KeyPurpose(rawValue: v))
                }
                out.append(.extendedKeyUsage(purposes))
            case Tag.subjectKeyIdentifier: out.append(.subjectKeyIdentifier(try bytes(m, "subject-key-id")))
            case Tag.authorityKeyIdentifier: out.append(.authorityKeyIdentifier(try bytes(m, "authority-key-id")))
            case Tag.futureExtension: out.append(.futureExtension(try bytes(m, "future-extension")))
            default: throw .malformedField("extensions", "unknown extension tag \(tag)")
            }
        }
        try checkExtensionSet(out)
        return out
    }

    static func members(_ e: TLVElement, _ kind: TLVContainerKind, _ field: String) throws(CertificateError) -> [TLVElement] {
        guard case .container(let k, let m) = e.value, k == kind else { throw .malformedField(field, "must be a \(kind)") }
        return m
    }

    static func bytes(_ e: TLVElement, _ field: String) throws(CertificateError) -> [UInt8] {
        guard case .bytes(let v) = e.value else { throw .malformedField(field, "must be an octet string") }
        return v
    }

    static func unsigned(_ e: TLVElement, _ field: String) throws(CertificateError) -> UInt64 {
        guard case .unsigned(let v) = e.value else { throw .malformedField(field, "must be an unsigned integer") }
        return v
    }

    static func uint32(_ e: TLVElement, _ field: String) throws(CertificateError) -> UInt32 {
        guard let v = UInt32(exactly: try unsigned(e, field)) else { throw .malformedField(field, "exceeds 32 bits") }
        return v
    }

    static func bool(_ e: TLVElement, _ field: String) throws(CertificateError) -> Bool {
        guard case .bool(let v) = e.value else { throw .malformedField(field, "must be a boolean") }
        return v
    }
}

extension MatterCertificateExtension {
    var name: String {
        switch self {
        case .basicConstraints: return "basicConstraints"
        case .keyUsage: return "keyUsage"
        case .extendedKeyUsage: return "extKeyUsage"
        case .subjectKeyIdentifier: return "subjectKeyIdentifier"
        case .authorityKeyIdentifier: return "authorityKeyIdentifier"
        case .futureExtension: return "future-extension"
        }
    }
}

/// Walks the members of a structure in order, each expected tag at most once.
struct FieldCursor {
    private let members: [TLVElement]
    private var index = 0

    init(_ members: [TLVElement]) { self.members = members }

    /// The next member, which must carry context tag `tag`.
    mutating func next(_ tag: UInt8, _ field: String) throws(CertificateError) -> TLVElement {
        guard index < members.count else { throw .malformedField(field, "is missing") }
        guard members[index].tag == .context(tag) else {
            throw .malformedField(field, "is missing or out of order (found tag \(members[index].tag))")
        }
        defer { index += 1 }
        return members[index]
    }

    /// The next member if it carries `tag`.
    func peek(_ tag: UInt8) -> TLVElement? {
        index < members.count && members[index].tag == .context(tag) ? members[index] : nil
    }

    func end() throws(CertificateError) {
        guard index == members.count else { throw .malformedField("tag \(members[index].tag)", "is not expected here") }
    }
}

// MARK: - Distinguished names in TLV

extension MatterDistinguishedName {
    /// Decodes a DN list (Matter Core 6.5.6): context tag = attribute type (+0x80 for a
    /// PrintableString), unsigned integers for Matter attributes, UTF-8 strings otherwise.
    init(tlv element: TLVElement, field: String) throws(CertificateError) {
        var attrs: [MatterDNAttribute] = []
        for m in try MatterCertificate.members(element, .list, field) {
            guard case .context(let tag) = m.tag else { throw .malformedField(field, "attribute without a context tag") }
            let type = MatterDNAttributeType(rawValue: tag & 0x7F)
            let printable = tag & 0x80 != 0
            let value: MatterDNAttribute.Value
            switch m.value {
            case .unsigned(let v) where type.isMatterInteger: value = .integer(v)
            case .utf8(let s) where !type.isMatterInteger: value = .string(s)
            default: throw .malformedField(field, "attribute \(type) has a value of the wrong type")
            }
            attrs.append(try MatterDNAttribute(type: type, value: value, isPrintableString: printable))
        }
        guard !attrs.isEmpty else { throw .malformedField(field, "must not be empty") }
        self.init(attrs)
    }

    func tlvElement(tag: UInt8) -> TLVElement {
        .list(.context(tag), attributes.map { a in
            let t = TLVTag.context(a.type.rawValue | (a.isPrintableString ? 0x80 : 0))
            switch a.value {
            case .integer(let v): return .unsigned(t, v)
            case .string(let s): return .utf8(t, s)
            }
        })
    }
}
