// Conversion between the Matter TLV form and X.509 DER (Matter Core 6.5.12 and 6.5.13). The
// signature of a Matter certificate is over the DER tbsCertificate, so TLV -> DER must be
// deterministic and DER -> TLV must accept only certificates that convert back byte for byte.

extension MatterCertificate {
    // MARK: TLV -> X.509

    /// Checks every field against the Matter profile (what the TLV decoder enforces), for values
    /// built in code rather than decoded.
    public func checkProfile() throws(CertificateError) {
        try Self.checkSerialNumber(serialNumber)
        guard publicKey.count == 65, publicKey[0] == 0x04 else { throw .invalidPublicKey }
        guard signature.count == 64 else { throw .malformedField("signature", "must be 64 bytes r||s") }
        guard !issuer.attributes.isEmpty else { throw .malformedField("issuer", "must not be empty") }
        guard !subject.attributes.isEmpty else { throw .malformedField("subject", "must not be empty") }
        try Self.checkExtensionSet(extensions)
        try checkValidityOrder()
    }

    /// The DER tbsCertificate: the bytes the signature covers.
    public func tbsDER() throws(CertificateError) -> [UInt8] {
        try checkedDER().tbs
    }

    /// The whole X.509 certificate in DER (at most `maxDERLength` bytes).
    public func derEncoded() throws(CertificateError) -> [UInt8] {
        try checkedDER().certificate
    }

    /// Both DER forms, after the profile check and the size limit.
    func checkedDER() throws(CertificateError) -> (tbs: [UInt8], certificate: [UInt8]) {
        try checkProfile()
        let tbs = tbsDERUnchecked()
        let certificate = DERWriter.sequence([
            tbs,
            DERWriter.sequence([DERWriter.objectIdentifier(.ecdsaWithSHA256)]),
            DERWriter.bitString(try ECDSASignatureEncoding.derFromRaw(signature)),
        ])
        guard certificate.count <= Self.maxDERLength else {
            throw .certificateTooLarge(size: certificate.count, limit: Self.maxDERLength)
        }
        return (tbs, certificate)
    }

    func tbsDERUnchecked() -> [UInt8] {
        DERWriter.sequence([
            DERWriter.explicit(0, [DERWriter.integer(2)]),
            DERWriter.integer(contents: serialNumber),
            DERWriter.sequence([DERWriter.objectIdentifier(.ecdsaWithSHA256)]),
            issuer.derEncoded,
            DERWriter.sequence([notBefore.certificateTime.derEncoded, notAfter.certificateTime.derEncoded]),
            subject.derEncoded,
            DERWriter.sequence([
                DERWriter.sequence([DERWriter.objectIdentifier(.ecPublicKey), DERWriter.objectIdentifier(.prime256v1)]),
                DERWriter.bitString(publicKey),
            ]),
            DERWriter.explicit(3, [DERWriter.sequence(extensions.map(\.derEncoded))]),
        ])
    }

    // MARK: X.509 -> TLV

    /// Converts an X.509 DER certificate to the Matter form. Fails unless the certificate is in
    /// the Matter profile and converting the result back yields exactly `bytes`, so that the
    /// signature stays valid in both forms.
    public init(derEncoded bytes: [UInt8]) throws(CertificateError) {
        guard bytes.count <= Self.maxDERLength else {
            throw .certificateTooLarge(size: bytes.count, limit: Self.maxDERLength)
        }
        try self.init(x509: try X509Certificate(derEncoded: bytes))
    }

    /// Converts a parsed X.509 certificate (see `init(derEncoded:)`).
    public init(x509 cert: X509Certificate) throws(CertificateError) {
        guard cert.signatureAlgorithm.algorithm == .ecdsaWithSHA256 else {
            throw .unsupportedSignatureAlgorithm(cert.signatureAlgorithm.algorithm.description)
        }
        guard cert.signatureAlgorithm.parameters == nil else {
            throw .unsupportedSignatureAlgorithm("ecdsa-with-SHA256 must have no parameters")
        }
        try Self.checkSerialNumber(cert.serialNumber)
        let key = try cert.subjectPublicKeyInfo.p256PublicKey()
        guard cert.subjectPublicKeyInfo.algorithm.parameters?.tag == .objectIdentifier else {
            throw .unsupportedCurve("parameters must be a named curve")
        }
        var exts: [MatterCertificateExtension] = []
        for e in cert.extensions { exts.append(try Self.matterExtension(e)) }

        self.init(serialNumber: cert.serialNumber,
                  issuer: try MatterDistinguishedName(x509: cert.issuer, field: "issuer"),
                  notBefore: try MatterEpochTime(certificateTime: cert.notBefore),
                  notAfter: try MatterEpochTime(certificateTime: cert.notAfter),
                  subject: try MatterDistinguishedName(x509: cert.subject, field: "subject"),
                  publicKey: key, extensions: exts,
                  signature: try ECDSASignatureEncoding.rawFromDER(cert.signature))
        try checkProfile()

        let tlvSize = tlvEncoded.count
        guard tlvSize <= Self.maxTLVLength else { throw .certificateTooLarge(size: tlvSize, limit: Self.maxTLVLength) }
        // The decisive rule: the Matter form must reproduce the signed bytes exactly.
        guard tbsDERUnchecked() == cert.tbsBytes else {
            throw .notMatterCompatible("tbsCertificate is not in the canonical form the Matter TLV encoding reproduces")
        }
        guard (try? derEncoded()) == cert.derBytes else {
            throw .notMatterCompatible("signature encoding is not canonical DER")
        }
    }

    /// One X.509 extension in its Matter form, enforcing Matter's criticality rules.
    static func matterExtension(_ e: X509Extension) throws(CertificateError) -> MatterCertificateExtension {
        func requireCritical(_ critical: Bool, _ name: String) throws(CertificateError) {
            guard e.isCritical == critical else {
                throw .invalidExtension(name, critical ? "must be marked critical" : "must not be marked critical")
            }
        }
        guard !e.criticalExplicitlyFalse else {
            throw .invalidExtension(e.oid.description, "critical FALSE must be omitted in DER")
        }
        switch e.oid {
        case .basicConstraints:
            try requireCritical(true, "basicConstraints")
            let bc = try BasicConstraints(extensionValue: e.value)
            guard !bc.caExplicitlyFalse else { throw .invalidExtension("basicConstraints", "cA FALSE must be omitted in DER") }
            guard bc.pathLengthConstraint == nil || bc.isCA else {
                throw .invalidExtension("basicConstraints", "path length without the CA flag")
            }
            return .basicConstraints(bc)
        case .keyUsage:
            try requireCritical(true, "keyUsage")
            return .keyUsage(try KeyUsage(extensionValue: e.value))
        case .extendedKeyUsage:
            try requireCritical(true, "extKeyUsage")
            var purposes: [KeyPurpose] = []
            for oid in try X509ExtensionValue.extendedKeyUsage(e.value) {
                guard let p = KeyPurpose(oid: oid) else { throw .invalidExtension("extKeyUsage", "unsupported key purpose \(oid)") }
                purposes.append(p)
            }
            return .extendedKeyUsage(purposes)
        case .subjectKeyIdentifier:
            try requireCritical(false, "subjectKeyIdentifier")
            let v = try X509ExtensionValue.subjectKeyIdentifier(e.value)
            guard v.count == 20 else { throw .invalidExtension("subjectKeyIdentifier", "must be 20 bytes") }
            return .subjectKeyIdentifier(v)
        case .authorityKeyIdentifier:
            try requireCritical(false, "authorityKeyIdentifier")
            let akid = try AuthorityKeyIdentifier(extensionValue: e.value)
            guard let id = akid.keyIdentifier, !akid.hasIssuerAndSerial else {
                throw .invalidExtension("authorityKeyIdentifier", "must hold only a key identifier")
            }
            guard id.count == 20 else { throw .invalidExtension("authorityKeyIdentifier", "must be 20 bytes") }
            return .authorityKeyIdentifier(id)
        default:
            return .futureExtension(e.encoded)
        }
    }
}

extension MatterCertificateExtension {
    /// The DER Extension element (Matter Core 6.5.12: BasicConstraints, KeyUsage and
    /// ExtKeyUsage are critical; the key identifiers are not).
    var derEncoded: [UInt8] {
        func ext(_ oid: ASN1ObjectIdentifier, critical: Bool, _ value: [UInt8]) -> [UInt8] {
            var parts = [DERWriter.objectIdentifier(oid)]
            if critical { parts.append(DERWriter.boolean(true)) }
            parts.append(DERWriter.octetString(value))
            return DERWriter.sequence(parts)
        }
        switch self {
        case .basicConstraints(let bc): return ext(.basicConstraints, critical: true, bc.derValue)
        case .keyUsage(let ku): return ext(.keyUsage, critical: true, ku.derValue)
        case .extendedKeyUsage(let p):
            return ext(.extendedKeyUsage, critical: true, DERWriter.sequence(p.compactMap { $0.oid.map(DERWriter.objectIdentifier) }))
        case .subjectKeyIdentifier(let v): return ext(.subjectKeyIdentifier, critical: false, DERWriter.octetString(v))
        case .authorityKeyIdentifier(let v): return ext(.authorityKeyIdentifier, critical: false, AuthorityKeyIdentifier(keyIdentifier: v).derValue)
        case .futureExtension(let der): return der
        }
    }
}

extension MatterDistinguishedName {
    /// The DER Name: one single-attribute RDN per attribute, Matter integers as uppercase hex
    /// UTF8Strings, DC as IA5String, others UTF8String or PrintableString.
    public var derEncoded: [UInt8] {
        DERWriter.sequence(attributes.map { a in
            let oid = a.type.oid ?? ASN1ObjectIdentifier([0, 0])
            let value: [UInt8]
            if a.type == .domainComponent {
                value = DERWriter.ia5String(a.textValue)
            } else if a.isPrintableString {
                value = DERWriter.printableString(a.textValue)
            } else {
                value = DERWriter.utf8String(a.textValue)
            }
            return DERWriter.set([DERWriter.sequence([DERWriter.objectIdentifier(oid), value])])
        })
    }

    /// Converts an X.509 Name: one attribute per RDN, Matter-defined types only, Matter
    /// integers as exactly 16 (CAT: 8) uppercase hex digits in a UTF8String.
    init(x509 name: X509Name, field: String) throws(CertificateError) {
        var attrs: [MatterDNAttribute] = []
        for rdn in name.relativeNames {
            guard rdn.count == 1 else { throw .invalidName("\(field): multi-valued RDNs are not supported") }
            let a = rdn[0]
            guard let type = MatterDNAttributeType(oid: a.type) else {
                throw .invalidName("\(field): attribute \(a.type) is not defined by Matter")
            }
            guard let text = a.stringValue else { throw .invalidName("\(field): \(type) value is not a supported string") }
            if type.isMatterInteger {
                guard a.valueTag == .utf8String else { throw .invalidName("\(field): \(type) must be a UTF8String") }
                let digits = type == .matterCASEAuthenticatedTag ? 8 : 16
                let upperHex = text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) }
                guard text.utf8.count == digits, upperHex, let v = UInt64(text, radix: 16) else {
                    throw .invalidName("\(field): \(type) must be \(digits) uppercase hex digits")
                }
                attrs.append(try MatterDNAttribute(type: type, value: .integer(v)))
            } else if type == .domainComponent {
                guard a.valueTag == .ia5String else { throw .invalidName("\(field): DC must be an IA5String") }
                attrs.append(try MatterDNAttribute(type: type, value: .string(text)))
            } else {
                guard a.valueTag == .utf8String || a.valueTag == .printableString else {
                    throw .invalidName("\(field): \(type) must be a UTF8String or PrintableString")
                }
                attrs.append(try MatterDNAttribute(type: type, value: .string(text), isPrintableString: a.valueTag == .printableString))
            }
        }
        guard !attrs.isEmpty else { throw .invalidName("\(field) must not be empty") }
        self.init(attrs)
    }
}
