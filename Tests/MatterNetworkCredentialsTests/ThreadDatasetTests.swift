import Foundation
import MatterCrypto
import Testing
import TestSupport
@testable import MatterNetworkCredentials

@Suite struct ThreadDatasetTests {
    static let valid = TestVectors.vectors("thread_dataset.json") { $0.valid }
    static let invalid = TestVectors.vectors("thread_dataset.json") { !$0.valid }

    /// Each published dataset decodes to the fields its source prints, and re-encodes to its bytes.
    @Test(arguments: valid)
    func publishedDatasetDecodes(_ v: Vector) throws {
        #expect(v.loadError == nil, "\(v.loadError ?? "")")
        let bytes = try #require(v.hex("tlvs"))
        let d = try ThreadDataset(tlvs: bytes)
        let e = try #require(v.object("expected"))
        Self.expect(d.activeTimestamp, e["activeTimestamp"])
        Self.expect(d.pendingTimestamp, e["pendingTimestamp"])
        #expect(d.delayTimer.map(Int.init) == e["delayTimer"] as? Int)
        #expect(d.channel.map { Int($0.number) } == e["channel"] as? Int)
        #expect(d.channel.map(\.page) ?? 0 == 0)
        #expect(d.wakeUpChannel.map { Int($0.number) } == e["wakeUpChannel"] as? Int)
        if let ot = e["channelMaskOT"] as? String {
            // OpenThread prints the page-0 mask with bit N = channel N.
            let mask = try #require(d.channelMask)
            #expect(mask.count == 1 && mask[0].page == 0)
            let bits = mask[0].channels.reduce(UInt32(0)) { $0 | 1 << UInt32($1) }
            #expect("0x" + String(format: "%08x", bits) == ot)
        } else {
            #expect(d.channelMask == nil)
        }
        #expect(d.panID.map(Int.init) == e["panId"] as? Int)
        #expect(d.extendedPANID.map(Hex.encode) == e["extPanId"] as? String)
        #expect(d.networkName == e["networkName"] as? String)
        #expect(d.meshLocalPrefix?.description == e["meshLocalPrefix"] as? String)
        #expect(d.networkKey.map { Hex.encode($0.bytes) } == e["networkKey"] as? String)
        #expect(d.pskc.map { Hex.encode($0.bytes) } == e["pskc"] as? String)
        let policy = e["securityPolicy"] as? [String: Any]
        #expect(d.securityPolicy.map { Int($0.rotationTimeHours) } == policy?["rotationTime"] as? Int)
        #expect(d.securityPolicy.map { Hex.encode($0.flags) } == policy?["flags"] as? String)
        #expect(d.unknownTLVs.isEmpty)
        #expect(try d.encoded() == bytes, "re-encoding keeps the received order and bytes")
        if !e.isEmpty { try d.checkComplete() }
    }

    static func expect(_ t: ThreadTimestamp?, _ json: Any?, sourceLocation: SourceLocation = #_sourceLocation) {
        let o = json as? [String: Any]
        #expect(t.map { Int($0.seconds) } == o?["seconds"] as? Int, sourceLocation: sourceLocation)
        #expect(t.map { Int($0.ticks) } == o?["ticks"] as? Int, sourceLocation: sourceLocation)
        #expect(t?.isAuthoritative == o?["authoritative"] as? Bool, sourceLocation: sourceLocation)
    }

    /// Each malformed published dataset is refused with the defect the vector names.
    @Test(arguments: invalid)
    func malformedPublishedDatasetIsRefused(_ v: Vector) throws {
        let bytes = try #require(v.hex("tlvs"))
        let error = try #require(throws: ThreadDatasetError.self) { try ThreadDataset(tlvs: bytes) }
        #expect(error.code.rawValue == v.string("error"), "\(error)")
        if let t = v.int("errorType") { #expect(error.tlvType?.rawValue == UInt8(t), "\(error)") }
        if let o = v.int("errorOffset") { #expect(error.offset == o, "\(error)") }
    }

    /// A table of defects, each named in the error's code and message.
    @Test(arguments: [
        ("0003", ThreadDatasetError.Code.truncatedTLV, "declares 3 bytes but only 0 remain"),
        ("000300000f00", .truncatedTLV, "has a type but no length byte"),
        ("00020000", .wrongLength, "channel TLV (type 0) at byte 0 is 2 bytes; it must be 3"),
        ("000300000a", .invalidValue, "channel 10 on page 0"),
        ("000300001b", .invalidValue, "channel 27 on page 0"),
        ("4a0300000a", .invalidValue, "wake-up channel TLV"),
        ("000300000f000300000f", .duplicateType, "channel TLV (type 0) appears a second time at byte 5"),
        ("0101ff", .wrongLength, "PAN ID"),
        ("02070102030405060708", .wrongLength, "extended PAN ID"),
        ("0300", .wrongLength, "it must be 1-16"),
        ("03113031323334353637383961626364656667", .wrongLength, "it must be 1-16"),
        ("0302c328", .invalidValue, "is not UTF-8"),
        ("040f000102030405060708090a0b0c0d0e", .wrongLength, "PSKc"),
        ("0511000102030405060708090a0b0c0d0e0f10", .wrongLength, "network key"),
        ("0709fd000000000000000000", .wrongLength, "mesh-local prefix"),
        ("0c0202a0", .wrongLength, "it must be 3 or 4"),
        ("0c0502a0f7f800", .wrongLength, "it must be 3 or 4"),
        ("0e0700000000000100", .wrongLength, "active timestamp"),
        ("33090000000000010000ff", .wrongLength, "pending timestamp"),
        ("3403000001", .wrongLength, "delay timer"),
        ("3500", .wrongLength, "channel mask"),
        ("3505000400ffff", .wrongLength, "cut short"),
        ("35020000", .invalidValue, "empty mask"),
        ("350c0004001fffe00004001fffe0", .invalidValue, "two entries for page 0"),
        ("0e0800000000000100", .truncatedTLV, "active timestamp TLV (type 14) at byte 0 declares 8 bytes but only 7 remain"),
    ])
    func defectIsNamed(_ hex: String, _ code: ThreadDatasetError.Code, _ phrase: String) throws {
        let bytes = try #require(Hex.decode(hex))
        let error = try #require(throws: ThreadDatasetError.self) { try ThreadDataset(tlvs: bytes) }
        #expect(error.code == code, "\(error)")
        #expect(error.message.contains(phrase), "\(error.message)")
        #expect(error.message.hasPrefix(Self.prefix(code)), "the message starts with the defect: \(error.message)")
    }

    static func prefix(_ code: ThreadDatasetError.Code) -> String {
        switch code {
        case .truncatedTLV: "truncated TLV"
        case .wrongLength: "wrong length"
        case .duplicateType: "duplicate type"
        case .invalidValue: "invalid value"
        case .tooLong: "too long"
        case .missingTLV: "missing TLV"
        }
    }

    /// Unknown TLVs are kept with their position; the dataset re-encodes byte for byte.
    @Test func unknownTLVsRoundTrip() throws {
        // Thread domain name (59), an unassigned type (200) between known ones, an empty value.
        let bytes = try #require(Hex.decode("3b0d44656661756c74446f6d61696e" + "000300000f" + "c803010203" + "0102abcd" + "f000"))
        let d = try ThreadDataset(tlvs: bytes)
        #expect(d.unknownTLVs == [ThreadDatasetTLV(type: .init(59), value: Array("DefaultDomain".utf8)),
                                  ThreadDatasetTLV(type: .init(200), value: [1, 2, 3]),
                                  ThreadDatasetTLV(type: .init(0xF0), value: [])])
        #expect(d.panID == 0xABCD && d.channel?.number == 15)
        #expect(try d.encoded() == bytes)
        #expect(d.types.map(\.rawValue) == [59, 0, 200, 1, 0xF0])
    }

    /// The secrets print as `<redacted>` however the dataset is printed.
    @Test func secretsAreRedacted() throws {
        let v = try #require(Self.valid.first { $0.id == "ot-cli-set-active-5938" })
        let d = try ThreadDataset(tlvs: try #require(v.hex("tlvs")))
        for text in [String(describing: d), String(reflecting: d), "\(d.networkKey!)", "\(d.pskc!)"] {
            #expect(!text.lowercased().contains("f366cec7"), "network key leaked: \(text)")
            #expect(!text.lowercased().contains("3ca67c96"), "PSKc leaked: \(text)")
        }
        #expect(String(describing: d).contains("<redacted>"))
    }

    /// Building a dataset field by field encodes in OpenThread's order and decodes back.
    @Test func builtDatasetEncodesInOpenThreadOrder() throws {
        let v = try #require(Self.valid.first { $0.id == "ot-cli-set-active-5938" })
        let published = try #require(v.hex("tlvs"))
        let source = try ThreadDataset(tlvs: published)
        var d = ThreadDataset()
        d.securityPolicy = source.securityPolicy
        d.pskc = source.pskc
        d.panID = source.panID
        d.networkName = source.networkName
        d.networkKey = source.networkKey
        d.meshLocalPrefix = source.meshLocalPrefix
        d.extendedPANID = source.extendedPANID
        d.channelMask = source.channelMask
        d.channel = source.channel
        d.activeTimestamp = source.activeTimestamp
        #expect(d == source)
        #expect(try d.encoded() == published, "OpenThread's own order")
    }

    /// Fields that cannot be encoded are refused with the same errors as decoding.
    @Test func invalidFieldsAreRefusedOnEncode() throws {
        var d = ThreadDataset()
        d.extendedPANID = [1, 2, 3]
        #expect((try? d.encoded()) == nil)
        #expect(throws: ThreadDatasetError.self) { try d.encoded() }
        d = ThreadDataset()
        d.networkName = String(repeating: "x", count: 17)
        #expect { try d.encoded() } throws: { ($0 as? ThreadDatasetError)?.code == .wrongLength }
        d = ThreadDataset()
        d.channel = ThreadChannel(number: 5)
        #expect { try d.encoded() } throws: { ($0 as? ThreadDatasetError)?.code == .invalidValue }
        d = ThreadDataset()
        d.activeTimestamp = ThreadTimestamp(seconds: 1 << 48)
        #expect(throws: ThreadDatasetError.self) { try d.encoded() }
        d = ThreadDataset()
        d.unknownTLVs = [ThreadDatasetTLV(type: .init(200), value: []), ThreadDatasetTLV(type: .init(200), value: [1])]
        #expect { try d.encoded() } throws: { ($0 as? ThreadDatasetError)?.code == .duplicateType }
    }

    /// A dataset lacking what a device needs to attach is named by `checkComplete`.
    @Test func incompleteDatasetNamesTheMissingTLV() throws {
        var random = GeneratorRandomSource(SeededRandom(seed: 7))
        var d = try ThreadDataset.generate(random: &random)
        try d.checkComplete()
        d.networkKey = nil
        let e = try #require(throws: ThreadDatasetError.self) { try d.checkComplete() }
        #expect(e.code == .missingTLV && e.tlvType == .networkKey && e.message.contains("network key"))
    }

    /// A generated dataset is complete, valid, and different every time.
    @Test func generatedDatasetsAreCompleteAndFresh() throws {
        var random = SystemRandomSource()
        let a = try ThreadDataset.generate(networkName: "Lab", channel: 20, random: &random)
        let b = try ThreadDataset.generate(random: &random)
        try a.checkComplete()
        #expect(a.networkName == "Lab" && a.channel == ThreadChannel(number: 20))
        #expect(b.networkName == "MatterHub-" + String(format: "%04X", b.panID!))
        #expect(ThreadChannel.page0Channels.contains(b.channel!.number))
        #expect(a.networkKey != b.networkKey && a.pskc != b.pskc && a.extendedPANID != b.extendedPANID)
        #expect(a.meshLocalPrefix?.bytes.first == 0xFD && a.meshLocalPrefix?.bytes.suffix(2) == [0, 0])
        #expect(a.panID != 0xFFFF)
        #expect(a.activeTimestamp == ThreadTimestamp(seconds: 1) && a.securityPolicy == .openThreadDefault)
        #expect(try ThreadDataset(tlvs: a.encoded()) == a)
        #expect(throws: ThreadDatasetError.self) { try ThreadDataset.generate(channel: 27, random: &random) }
        #expect(throws: ThreadDatasetError.self) { try ThreadDataset.generate(networkName: "", random: &random) }
        #expect(throws: ThreadDatasetError.self) {
            try ThreadDataset.generate(networkName: String(repeating: "n", count: 17), random: &random)
        }
    }

    /// Seeded mutations of the published datasets decode or throw, never trap; what decodes
    /// re-encodes to the same bytes.
    @Test func mutationsDecodeOrThrow() throws {
        var rng = SeededRandom(seed: 0x7EAD)
        let seeds = Self.valid.compactMap { $0.hex("tlvs") }
        var decoded = 0
        for i in 0..<20_000 {
            var input = seeds[i % seeds.count]
            for _ in 0...(rng.next() % 3) { input = Mutation.mutate(input, using: &rng) }
            guard let d = try? ThreadDataset(tlvs: input) else { continue }
            decoded += 1
            #expect(try d.encoded() == input)
        }
        #expect(decoded > 100, "some mutations still decode (\(decoded))")
    }
}

@Suite struct IPv6TextTests {
    @Test(arguments: [
        ("fdf1f1add0797dc00000000000000000", "fdf1:f1ad:d079:7dc0::"),
        ("fd7dda74df5e080c0000000000000000", "fd7d:da74:df5e:80c::"),
        ("00000000000000000000000000000001", "::1"),
        ("00000000000000000000000000000000", "::"),
        ("20010db8000000010000000000000001", "2001:db8:0:1::1"),  // RFC 5952 4.2.3: the longest run
        ("20010db8000000000001000000000001", "2001:db8::1:0:0:1"),  // equal runs: the first
        ("20010db8000100010001000100010001", "2001:db8:1:1:1:1:1:1"),
        ("20010db8000000010001000100010001", "2001:db8:0:1:1:1:1:1"),  // 4.2.2: one zero group stays
    ])
    func canonicalText(_ hex: String, _ text: String) throws {
        #expect(IPv6Text.address(try #require(Hex.decode(hex))) == text)
    }
}
