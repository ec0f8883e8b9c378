import MatterCrypto

/// Issues PAA -> PAI -> DAC chains with fresh keys and any vendor ID, for tests and the DCL
/// stand-in that need a chain that is not one of the SDK's test PAAs (a production-like vendor).
package struct AttestationChainBuilder {
    package struct Issued: Sendable {
        package let der: [UInt8]
        package let key: P256PrivateKey
        package let subject: [UInt8]
        package let keyID: [UInt8]
    }

    package static let from = try! ASN1Time(year: 2024, month: 1, day: 1, hour: 0, minute: 0, second: 0)
    package static let until = try! ASN1Time(year: 2034, month: 1, day: 1, hour: 0, minute: 0, second: 0)

    /// A Name with a common name and the Matter VID/PID attributes.
    package static func name(_ cn: String, vid: UInt16?, pid: UInt16?) -> [UInt8] {
        func rdn(_ oid: ASN1ObjectIdentifier, _ value: [UInt8]) -> [UInt8] {
            DERWriter.set([DERWriter.sequence([DERWriter.objectIdentifier(oid), value])])
        }
        func hex4(_ v: UInt16) -> String {
            let s = String(v, radix: 16, uppercase: true)
            return String(repeating: "0", count: 4 - s.count) + s
        }
        var rdns = [rdn(AttestationVendorProduct.commonNameAttribute, DERWriter.utf8String(cn))]
        if let vid { rdns.append(rdn(AttestationVendorProduct.vendorIDAttribute, DERWriter.utf8String(hex4(vid)))) }
        if let pid { rdns.append(rdn(AttestationVendorProduct.productIDAttribute, DERWriter.utf8String(hex4(pid)))) }
        return DERWriter.sequence(rdns)
    }

    /// One certificate of `role`, signed by `issuer` (self-signed when nil).
    package static func issue(_ role: AttestationCertificateRole, cn: String, vid: UInt16?, pid: UInt16?,
                              issuer: Issued?, serial: UInt8, notBefore: ASN1Time = from, notAfter: ASN1Time = until) throws -> Issued {
        let key = P256PrivateKey()
        let subject = name(cn, vid: vid, pid: pid)
        let keyID = Array(SHA256.hash(key.publicKey.x962Representation).prefix(20))
        let basic: BasicConstraints
        let usage: KeyUsage
        switch role {
        case .paa: basic = BasicConstraints(isCA: true, pathLengthConstraint: 1); usage = [.keyCertSign, .cRLSign]
        case .pai: basic = BasicConstraints(isCA: true, pathLengthConstraint: 0); usage = [.keyCertSign, .cRLSign]
        case .dac: basic = BasicConstraints(isCA: false); usage = [.digitalSignature]
        }
        func ext(_ oid: ASN1ObjectIdentifier, critical: Bool, _ value: [UInt8]) -> [UInt8] {
            DERWriter.sequence([DERWriter.objectIdentifier(oid)] + (critical ? [DERWriter.boolean(true)] : [])
                               + [DERWriter.octetString(value)])
        }
        let extensions = [
            ext(.basicConstraints, critical: true, basic.derValue),
            ext(.keyUsage, critical: true, usage.derValue),
            ext(.subjectKeyIdentifier, critical: false, DERWriter.octetString(keyID)),
            ext(.authorityKeyIdentifier, critical: false, AuthorityKeyIdentifier(keyIdentifier: issuer?.keyID ?? keyID).derValue),
        ]
        let algorithm = DERWriter.sequence([DERWriter.objectIdentifier(.ecdsaWithSHA256)])
        let spki = DERWriter.sequence([
            DERWriter.sequence([DERWriter.objectIdentifier(.ecPublicKey), DERWriter.objectIdentifier(.prime256v1)]),
            DERWriter.bitString(key.publicKey.x962Representation),
        ])
        let tbs = DERWriter.sequence([
            DERWriter.explicit(0, [DERWriter.integer(2)]),
            DERWriter.integer(Int64(serial)),
            algorithm,
            issuer?.subject ?? subject,
            DERWriter.sequence([notBefore.derEncoded, notAfter.derEncoded]),
            subject,
            spki,
            DERWriter.explicit(3, [DERWriter.sequence(extensions)]),
        ])
        let signature = try (issuer?.key ?? key).signature(for: tbs).derRepresentation
        let der = DERWriter.sequence([tbs, algorithm, DERWriter.bitString(signature)])
        return Issued(der: der, key: key, subject: subject, keyID: keyID)
    }

    /// A complete chain for `vid`/`pid`.
    package static func chain(vid: UInt16, pid: UInt16) throws -> (paa: Issued, pai: Issued, dac: Issued) {
        let paa = try issue(.paa, cn: "Acme PAA", vid: vid, pid: nil, issuer: nil, serial: 1)
        let pai = try issue(.pai, cn: "Acme PAI", vid: vid, pid: pid, issuer: paa, serial: 2)
        let dac = try issue(.dac, cn: "Acme DAC", vid: vid, pid: pid, issuer: pai, serial: 3)
        return (paa, pai, dac)
    }
}
