import MatterTLV
import Testing
import TestSupport
@testable import MatterCertificates

/// Every DN attribute Matter defines, in both encodings.
@Suite("MatterDistinguishedName")
struct DistinguishedNameTests {
    static let base: MatterCertificate = {
        let v = TestVectors.vectors("matter_certs.json").first { $0.id == "cert-node01-02" }!
        return try! MatterCertificate(tlvEncoded: v.hex("chip_tlv")!)
    }()

    /// All 15 standard types as UTF8String and PrintableString, DC as IA5String, and the Matter
    /// integer attributes.
    static func everyAttribute() throws -> [MatterDNAttribute] {
        var attrs: [MatterDNAttribute] = []
        for t in UInt8(1)...15 {
            let type = MatterDNAttributeType(rawValue: t)
            attrs.append(try MatterDNAttribute(type: type, value: .string("Value \(t)")))
            attrs.append(try MatterDNAttribute(type: type, value: .string("P \(t)"), isPrintableString: true))
        }
        attrs.append(try MatterDNAttribute(type: .domainComponent, value: .string("example")))
        attrs.append(try .nodeID(NodeID(0xDEDE_DEDE_0001_0002)))
        attrs.append(try MatterDNAttribute(type: .matterFirmwareSigningID, value: .integer(0xFFFF_FFFF_0000_0001)))
        attrs.append(try .icacID(0xCACA_CACA_0000_0003))
        attrs.append(try .rcacID(0xCACA_CACA_0000_0001))
        attrs.append(try .fabricID(FabricID(0xFAB0_0000_0000_001D)))
        attrs.append(try .caseAuthenticatedTag(CASEAuthenticatedTag(0xABCD_0001)))
        return attrs
    }

    @Test func everyAttributeRoundTripsThroughDER() throws {
        // Five attributes per certificate keep each within the size limits.
        let all = try Self.everyAttribute()
        var x509Attributes: [X509Attribute] = []
        var asn1Dump = ""
        for start in stride(from: 0, to: all.count, by: 5) {
            var cert = Self.base
            cert.subject = MatterDistinguishedName(Array(all[start..<min(start + 5, all.count)]))
            let der = try cert.derEncoded()
            #expect(try MatterCertificate(derEncoded: der) == cert)
            #expect(try MatterCertificate(tlvEncoded: cert.tlvEncoded) == cert)
            x509Attributes += try X509Certificate(derEncoded: der).subject.attributes
            asn1Dump += try OpenSSL.run(["asn1parse", "-inform", "DER"], input: der).output
        }
        #expect(x509Attributes.count == all.count)
        let tags = x509Attributes.map(\.valueTag)
        #expect(tags.filter { $0 == .printableString }.count == 15)
        #expect(tags.filter { $0 == .ia5String }.count == 1)
        let node = try #require(x509Attributes.first { $0.type == .matterDN(1) })
        #expect(node.valueTag == .utf8String)
        #expect(node.stringValue == "DEDEDEDE00010002")
        #expect(x509Attributes.first { $0.type == .matterDN(6) }?.stringValue == "ABCD0001")
        // OpenSSL agrees on the string types.
        #expect(asn1Dump.contains("PRINTABLESTRING   :P 1"))
        #expect(asn1Dump.contains("IA5STRING         :example"))
        #expect(asn1Dump.contains("UTF8STRING        :FAB000000000001D"))
    }

    @Test func tlvTagsCarryThePrintableFlag() throws {
        let dn = MatterDistinguishedName([try MatterDNAttribute(type: .commonName, value: .string("x"), isPrintableString: true)])
        #expect(dn.tlvElement(tag: 6).encoded == [0x37, 0x06, 0x2C, 0x81, 0x01, 0x78, 0x18])
    }

    static let invalid: [(String, TLVElement)] = [
        ("printable matter-node-id", .list(.context(6), [.unsigned(.context(0x91), UInt64(1))])),
        ("printable domain component", .list(.context(6), [.utf8(.context(0x90), "a")])),
        ("undefined attribute 23", .list(.context(6), [.utf8(.context(23), "a")])),
        ("undefined attribute 0", .list(.context(6), [.utf8(.context(0), "a")])),
        ("string value for node id", .list(.context(6), [.utf8(.context(17), "0000000000000001")])),
        ("integer value for common name", .list(.context(6), [.unsigned(.context(1), UInt64(1))])),
        ("non-printable character", .list(.context(6), [.utf8(.context(0x81), "a*b")])),
        ("non-ASCII domain component", .list(.context(6), [.utf8(.context(16), "é")])),
        ("node id 0", .list(.context(6), [.unsigned(.context(17), UInt64(0))])),
        ("group node id", .list(.context(6), [.unsigned(.context(17), UInt64(0xFFFF_FFFF_FFFF_0001))])),
        ("fabric id 0", .list(.context(6), [.unsigned(.context(21), UInt64(0))])),
        ("CAT over 32 bits", .list(.context(6), [.unsigned(.context(22), UInt64(0x1_0000_0001))])),
        ("CAT version 0", .list(.context(6), [.unsigned(.context(22), UInt64(0xABCD_0000))])),
        ("empty", .list(.context(6), [])),
        ("anonymous member", .list(.context(6), [.utf8(.anonymous, "a")])),
        ("structure instead of list", .structure(.context(6), [.utf8(.context(1), "a")])),
    ]

    @Test(arguments: invalid.map(\.0))
    func rejectsInvalidSubject(_ name: String) throws {
        let subject = try #require(Self.invalid.first { $0.0 == name }?.1)
        var element = Self.base.tlvElement
        guard case .container(let kind, var members) = element.value else { return }
        members[5] = subject  // tag 6, the subject
        element.value = .container(kind, members)
        #expect(throws: CertificateError.self) { try MatterCertificate(tlvEncoded: element.encoded) }
    }

    @Test func derNamesOutsideTheProfileAreRejected() throws {
        let der = try Self.base.derEncoded()
        let x509 = try X509Certificate(derEncoded: der)
        func replacingSubject(_ name: [UInt8]) throws -> [UInt8] {
            let tbs = try DER.parse(x509.tbsBytes).children
            var parts = tbs.map(\.encoded)
            parts[5] = name
            return DERWriter.sequence([DERWriter.sequence(parts), DERWriter.sequence([DERWriter.objectIdentifier(.ecdsaWithSHA256)]),
                                       DERWriter.bitString(x509.signature)])
        }
        func rdn(_ oid: ASN1ObjectIdentifier, _ value: [UInt8]) -> [UInt8] {
            DERWriter.set([DERWriter.sequence([DERWriter.objectIdentifier(oid), value])])
        }
        let cases: [[UInt8]] = [
            DERWriter.sequence([rdn(.matterDN(1), DERWriter.utf8String("dededede00010002"))]),  // lowercase hex
            DERWriter.sequence([rdn(.matterDN(1), DERWriter.utf8String("DEDEDEDE0001002"))]),  // 15 digits
            DERWriter.sequence([rdn(.matterDN(1), DERWriter.printableString("DEDEDEDE00010002"))]),  // not UTF8String
            DERWriter.sequence([rdn(.matterDN(6), DERWriter.utf8String("0000ABCD0001"))]),  // CAT needs 8 digits
            DERWriter.sequence([rdn(ASN1ObjectIdentifier([2, 5, 4, 3]), DERWriter.ia5String("x"))]),  // CN as IA5String
            DERWriter.sequence([rdn(ASN1ObjectIdentifier([0, 9, 2342, 19200300, 100, 1, 25]), DERWriter.utf8String("x"))]),
            DERWriter.sequence([rdn(ASN1ObjectIdentifier([2, 5, 4, 97]), DERWriter.utf8String("x"))]),  // not a Matter type
            DERWriter.sequence([DERWriter.set([
                DERWriter.sequence([DERWriter.objectIdentifier(.matterDN(1)), DERWriter.utf8String("DEDEDEDE00010002")]),
                DERWriter.sequence([DERWriter.objectIdentifier(.matterDN(5)), DERWriter.utf8String("FAB000000000001D")]),
            ])]),  // multi-valued RDN
            DERWriter.sequence([]),  // empty
        ]
        for (i, name) in cases.enumerated() {
            #expect(throws: CertificateError.self, "case \(i)") { try MatterCertificate(derEncoded: try replacingSubject(name)) }
        }
        // The unchanged subject still converts (the harness itself is sound).
        #expect(try MatterCertificate(derEncoded: replacingSubject(x509.subject.encoded)) == Self.base)
    }
}
