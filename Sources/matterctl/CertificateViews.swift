import MatterCertificates

/// The text and `--json` views of a Matter certificate for `matterctl cert decode`.
struct CertificateView {
    let cert: MatterCertificate
    let encoding: String
    let size: Int

    init(_ cert: MatterCertificate, encoding: String, size: Int) {
        self.cert = cert
        self.encoding = encoding
        self.size = size
    }

    var typeName: String? { try? cert.certificateType().description }

    static func attributes(_ dn: MatterDistinguishedName) -> [(String, String)] {
        dn.attributes.map { ($0.type.description, $0.textValue) }
    }

    var text: String {
        var lines = [
            "Encoding:        \(encoding == "der" ? "X.509 DER" : "Matter TLV") (\(size) bytes)",
            "Type:            \(typeName ?? "unknown: " + typeError)",
            "Serial number:   \(cert.serialNumber.hexString)",
            "Issuer:          \(Self.attributes(cert.issuer).map { "\($0)=\($1)" }.joined(separator: ", "))",
            "Subject:         \(Self.attributes(cert.subject).map { "\($0)=\($1)" }.joined(separator: ", "))",
            "Not before:      \(cert.notBefore.certificateTime.iso8601) (Matter epoch \(cert.notBefore.rawValue))",
            "Not after:       \(cert.notAfter.certificateTime.iso8601) (Matter epoch \(cert.notAfter.rawValue)\(cert.notAfter.rawValue == 0 ? ", no expiry" : ""))",
            "Public key:      \(cert.publicKey.hexString)",
            "Extensions:",
        ]
        for e in extensionViews { lines.append("  \(e.name)\(e.critical ? " (critical)" : ""): \(e.text)") }
        lines.append("Signature:       \(cert.signature.hexString)")
        return lines.joined(separator: "\n")
    }

    var typeError: String {
        do {
            _ = try cert.certificateType()
            return ""
        } catch {
            return error.description
        }
    }

    struct ExtensionView {
        let name: String
        let critical: Bool
        let text: String
        let json: JSON
    }

    var extensionViews: [ExtensionView] {
        cert.extensions.map { e in
            switch e {
            case .basicConstraints(let bc):
                let text = "CA:\(bc.isCA ? "TRUE" : "FALSE")" + (bc.pathLengthConstraint.map { ", pathlen:\($0)" } ?? "")
                return ExtensionView(name: "basicConstraints", critical: true, text: text,
                                     json: .object([("ca", .bool(bc.isCA)), ("pathLength", .from(bc.pathLengthConstraint))]))
            case .keyUsage(let ku):
                return ExtensionView(name: "keyUsage", critical: true, text: ku.names.joined(separator: ", "),
                                     json: .object([("bits", .from(ku.rawValue)), ("flags", .array(ku.names.map(JSON.string)))]))
            case .extendedKeyUsage(let p):
                return ExtensionView(name: "extKeyUsage", critical: true, text: p.map(\.description).joined(separator: ", "),
                                     json: .array(p.map { .string($0.description) }))
            case .subjectKeyIdentifier(let v):
                return ExtensionView(name: "subjectKeyIdentifier", critical: false, text: v.hexString, json: .string(v.hexString))
            case .authorityKeyIdentifier(let v):
                return ExtensionView(name: "authorityKeyIdentifier", critical: false, text: v.hexString, json: .string(v.hexString))
            case .futureExtension(let der):
                let parsed = try? X509Extension(derNode: DER.parse(der))
                let name = parsed.map { "extension \($0.oid.dotted)" } ?? "future-extension"
                return ExtensionView(name: name, critical: parsed?.isCritical ?? false, text: (parsed?.value ?? der).hexString,
                                     json: .object([("oid", .from(parsed?.oid.dotted)), ("der", .string(der.hexString))]))
            }
        }
    }

    var json: JSON {
        func dn(_ name: MatterDistinguishedName) -> JSON {
            .array(Self.attributes(name).map { .object([("type", .string($0)), ("value", .string($1))]) })
        }
        let exts = extensionViews
        return .object([
            ("encoding", .string(encoding)),
            ("type", .from(typeName)),
            ("serialNumber", .string(cert.serialNumber.hexString)),
            ("issuer", dn(cert.issuer)),
            ("subject", dn(cert.subject)),
            ("notBefore", .string(cert.notBefore.certificateTime.iso8601)),
            ("notAfter", .string(cert.notAfter.certificateTime.iso8601)),
            ("notBeforeEpoch", .from(cert.notBefore.rawValue)),
            ("notAfterEpoch", .from(cert.notAfter.rawValue)),
            ("publicKey", .string(cert.publicKey.hexString)),
            ("extensions", .array(exts.map {
                .object([("name", .string($0.name)), ("critical", .bool($0.critical)), ("value", $0.json)])
            })),
            ("signature", .string(cert.signature.hexString)),
            ("tlv", .string(cert.tlvEncoded.hexString)),
            ("der", .from((try? cert.derEncoded())?.hexString)),
        ])
    }
}

/// The view of an X.509 certificate that is not a Matter operational certificate.
struct X509View {
    let cert: X509Certificate
    let reason: String

    init(_ cert: X509Certificate, reason: String) {
        self.cert = cert
        self.reason = reason
    }

    static func name(_ n: X509Name) -> [(String, String)] {
        n.attributes.map { a in
            let type = MatterDNAttributeType(oid: a.type)?.description ?? a.type.dotted
            return (type, a.stringValue ?? a.value.hexString)
        }
    }

    var text: String {
        var lines = [
            "Encoding:        X.509 DER (\(cert.derBytes.count) bytes), not a Matter operational certificate: \(reason)",
            "Serial number:   \(cert.serialNumber.hexString)",
            "Issuer:          \(Self.name(cert.issuer).map { "\($0)=\($1)" }.joined(separator: ", "))",
            "Subject:         \(Self.name(cert.subject).map { "\($0)=\($1)" }.joined(separator: ", "))",
            "Not before:      \(cert.notBefore.iso8601)",
            "Not after:       \(cert.notAfter.iso8601)",
            "Public key:      \(cert.subjectPublicKeyInfo.publicKey.hexString)",
            "Signature alg.:  \(cert.signatureAlgorithm.algorithm)",
            "Extensions:",
        ]
        for e in cert.extensions { lines.append("  \(e.oid)\(e.isCritical ? " (critical)" : ""): \(e.value.hexString)") }
        lines.append("Signature:       \(cert.signature.hexString)")
        return lines.joined(separator: "\n")
    }

    var json: JSON {
        func dn(_ n: X509Name) -> JSON {
            .array(Self.name(n).map { .object([("type", .string($0)), ("value", .string($1))]) })
        }
        return .object([
            ("encoding", .string("der")),
            ("type", .null),
            ("matterProfileError", .string(reason)),
            ("serialNumber", .string(cert.serialNumber.hexString)),
            ("issuer", dn(cert.issuer)),
            ("subject", dn(cert.subject)),
            ("notBefore", .string(cert.notBefore.iso8601)),
            ("notAfter", .string(cert.notAfter.iso8601)),
            ("publicKey", .string(cert.subjectPublicKeyInfo.publicKey.hexString)),
            ("signatureAlgorithm", .string(cert.signatureAlgorithm.algorithm.dotted)),
            ("extensions", .array(cert.extensions.map {
                .object([("oid", .string($0.oid.dotted)), ("critical", .bool($0.isCritical)), ("value", .string($0.value.hexString))])
            })),
            ("signature", .string(cert.signature.hexString)),
        ])
    }
}
