import Testing
import TestSupport
@testable import MatterCertificates

@Suite("DER")
struct DERTests {
    @Test func parsesNestedStructureAndKeepsBytes() throws {
        // SEQUENCE { INTEGER 5, SEQUENCE { BOOLEAN TRUE }, OCTET STRING 'ab' }
        let bytes: [UInt8] = [0x30, 0x0B, 0x02, 0x01, 0x05, 0x30, 0x03, 0x01, 0x01, 0xFF, 0x04, 0x01, 0xAB]
        let node = try DER.parse(bytes)
        #expect(node.encoded == bytes)
        let kids = try node.sequence()
        #expect(kids.count == 3)
        #expect(try kids[0].integer() == 5)
        #expect(kids[1].encoded == [0x30, 0x03, 0x01, 0x01, 0xFF])
        #expect(try kids[1].children[0].boolean() == true)
        #expect(try kids[2].octetString() == [0xAB])
    }

    static let malformed: [(String, [UInt8])] = [
        ("empty", []),
        ("truncated header", [0x30]),
        ("truncated contents", [0x04, 0x03, 0x01, 0x02]),
        ("indefinite length", [0x30, 0x80, 0x00, 0x00]),
        ("long form for a short length", [0x04, 0x81, 0x01, 0xAA]),
        ("length with leading zero", [0x04, 0x82, 0x00, 0x81] + [UInt8](repeating: 0, count: 0x81)),
        ("length longer than data", [0x04, 0x84, 0x7F, 0xFF, 0xFF, 0xFF, 0x00]),
        ("trailing bytes", [0x05, 0x00, 0x00]),
        ("child overruns parent", [0x30, 0x03, 0x04, 0x05, 0x01]),
        ("high tag number for a low tag", [0x1F, 0x05, 0x00]),
        ("high tag number with leading 0x80", [0x1F, 0x80, 0x21, 0x00]),
    ]

    @Test(arguments: malformed.map(\.0))
    func rejectsMalformed(_ name: String) {
        let bytes = Self.malformed.first { $0.0 == name }!.1
        #expect(throws: CertificateError.self) { try DER.parse(bytes) }
    }

    @Test func depthLimit() {
        var bytes: [UInt8] = [0x05, 0x00]
        for _ in 0..<40 { bytes = DERWriter.sequence([bytes]) }
        #expect(throws: CertificateError.derDepthLimitExceeded(limit: DER.defaultMaxDepth)) { try DER.parse(bytes) }
    }

    @Test func primitiveValueRules() throws {
        #expect(throws: CertificateError.self) { try DER.parse([0x01, 0x01, 0x01]).boolean() }
        #expect(throws: CertificateError.self) { try DER.parse([0x02, 0x02, 0x00, 0x01]).integerBytes() }
        #expect(throws: CertificateError.self) { try DER.parse([0x02, 0x02, 0xFF, 0x80]).integerBytes() }
        #expect(throws: CertificateError.self) { try DER.parse([0x02, 0x00]).integerBytes() }
        #expect(throws: CertificateError.self) { try DER.parse([0x03, 0x02, 0x01, 0x01]).bitString() }  // unused bit set
        #expect(throws: CertificateError.self) { try DER.parse([0x03, 0x02, 0x00, 0x80]).namedBits() }  // trailing zeros
        #expect(throws: CertificateError.self) { try DER.parse([0x06, 0x02, 0x80, 0x01]).objectIdentifier() }
        #expect(throws: CertificateError.self) { try DER.parse([0x13, 0x01, 0x2A]).string() }  // '*' not printable
        #expect(try DER.parse([0x02, 0x02, 0x00, 0x80]).integer() == 128)
        #expect(try DER.parse([0x02, 0x01, 0xFF]).integer() == -1)
    }

    @Test func writerRoundTrips() throws {
        for v: Int64 in [0, 1, 127, 128, 255, 256, -1, -128, -129, Int64.max, Int64.min] {
            #expect(try DER.parse(DERWriter.integer(v)).integer() == v)
        }
        #expect(DERWriter.unsignedInteger([0x00, 0x00, 0x80]) == [0x02, 0x02, 0x00, 0x80])
        #expect(DERWriter.unsignedInteger([0x00, 0x00]) == [0x02, 0x01, 0x00])
        let long = DERWriter.octetString([UInt8](repeating: 7, count: 300))
        #expect(Array(long.prefix(4)) == [0x04, 0x82, 0x01, 0x2C])
        #expect(try DER.parse(long).octetString().count == 300)
        // Key usage named bits, as in the Matter certificates: keyCertSign|cRLSign and digitalSignature.
        #expect(DERWriter.namedBitString(0x60) == [0x03, 0x02, 0x01, 0x06])
        #expect(DERWriter.namedBitString(0x01) == [0x03, 0x02, 0x07, 0x80])
        #expect(DERWriter.namedBitString(0x100) == [0x03, 0x03, 0x07, 0x00, 0x80])
        for bits: UInt32 in [0, 1, 0x60, 0x100, 0x1FF, 0x81] {
            #expect(try DER.parse(DERWriter.namedBitString(bits)).namedBits() == bits)
        }
        let tagged = DERWriter.element(DERTag(.contextSpecific, constructed: false, 100), [1])
        #expect(try DER.parse(tagged).tag.number == 100)
    }

    @Test func objectIdentifiers() throws {
        let oid = ASN1ObjectIdentifier.matterDN(1)
        #expect(hexString(oid.contentBytes) == "2b0601040182a27c0101")
        #expect(try ASN1ObjectIdentifier(contentBytes: oid.contentBytes[...]) == oid)
        #expect(ASN1ObjectIdentifier(dotted: "1.3.6.1.4.1.37244.1.1") == oid)
        #expect(ASN1ObjectIdentifier(dotted: "2.999.3")?.contentBytes == [0x88, 0x37, 0x03])
        #expect(ASN1ObjectIdentifier(dotted: "1.40") == nil)
        #expect(ASN1ObjectIdentifier(dotted: "1..2") == nil)
    }

    @Test func times() throws {
        let t = try ASN1Time(derNode: DER.parse(Array("\u{17}\u{0D}201015142343Z".utf8)))
        #expect(t.iso8601 == "2020-10-15T14:23:43Z")
        #expect(t.derEncoded == Array("\u{17}\u{0D}201015142343Z".utf8))
        #expect(ASN1Time.noWellDefinedExpiration.derEncoded == Array("\u{18}\u{0F}99991231235959Z".utf8))
        #expect(try ASN1Time(unixSeconds: t.unixSeconds) == t)
        #expect(try ASN1Time(unixSeconds: 946_684_800).iso8601 == "2000-01-01T00:00:00Z")
        for bad in ["\u{17}\u{0D}201315142343Z", "\u{17}\u{0B}2010151423Z", "\u{17}\u{0D}200230142343Z",
                    "\u{17}\u{11}201015142343+0000", "\u{18}\u{11}20201015142343.5Z"] {
            #expect(throws: CertificateError.self) { try ASN1Time(derNode: DER.parse(Array(bad.utf8))) }
        }
    }

    @Test func seededMutationNeverTraps() throws {
        let seeds = TestVectors.vectors("matter_certs.json").compactMap { $0.hex("der") ?? $0.hex("bytes") }
        #expect(seeds.count > 20)
        var rng = SeededRandom(seed: 0xDE5)
        var parsed = 0
        for i in 0..<20_000 {
            let input = Mutation.mutate(seeds[i % seeds.count], using: &rng)
            if (try? DER.parse(input)) != nil { parsed += 1 }
            _ = try? X509Certificate(derEncoded: input)
        }
        #expect(parsed > 0)
    }
}
