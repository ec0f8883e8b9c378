import MatterSetupPayload
import MatterTLV
import Testing
import TestSupport

/// Rules and malformed input beyond the vector files.
@Suite struct SetupPayloadRulesTests {
    static let malformed: [(String, SetupPayloadError)] = [
        ("", .emptyInput),
        ("   ", .emptyInput),
        ("mt:Y.K9042C00KA0648G00", .invalidPrefix),
        ("MT:", .invalidLength("nothing follows 'MT:'")),
        ("MT:Y.K9042C00KA0648G00*", .invalidLength("an empty payload between '*' separators")),
        ("MT:y.K9042C00KA0648G00", .invalidCharacter(UInt8(ascii: "y"))),
        ("3497011233", .invalidLength("a manual pairing code has 11 or 21 digits, this one 10")),
        ("34970112333", .checkDigitMismatch),
        ("3497O112332", .invalidCharacter(UInt8(ascii: "O"))),
        ("3497-011-2332x", .invalidCharacter(UInt8(ascii: "x"))),
    ]

    @Test(arguments: 0..<malformed.count)
    func rejectsMalformed(_ i: Int) {
        let (code, error) = Self.malformed[i]
        #expect(throws: error) { try SetupPayload.parse(code) }
    }

    @Test func errorsDoNotRevealThePasscode() {
        do {
            _ = try SetupPayload.parse("MT:-24J042C00KMSP0Z800")  // passcode 11111111
            Issue.record("a trivial passcode was accepted")
        } catch {
            #expect(!error.description.contains("11111111"))
            #expect(error.description.contains("passcode"))
        }
    }

    @Test func manualCodeToleratesSpacesAndDashes() throws {
        let a = try SetupPayload.parse("3497-011-2332")
        let b = try SetupPayload.parse(" 3497 011 2332 ")
        #expect(a == b)
        #expect(a.first?.passcode == 20_202_021)
        #expect(a.first?.discriminator == .short(15))
    }

    @Test func shortDiscriminatorMatchesLongOnes() {
        #expect(Discriminator.short(15).matches(3840))
        #expect(Discriminator.short(15).matches(0xFFF))
        #expect(!Discriminator.short(15).matches(0xEFF))
        #expect(Discriminator.long(3840).matches(3840))
        #expect(!Discriminator.long(3840).matches(3841))
    }

    @Test func generatesBothFormsFromFields() throws {
        let p = SetupPayload(kind: .qrCode, vendorID: 0xFFF1, productID: 0x8000, commissioningFlow: .standard,
                             discoveryCapabilities: .ble, discriminator: .long(3840), passcode: 20_202_021)
        #expect(try QRCode.encode([p]) == "MT:Y.K9042C00KA0648G00")
        #expect(try ManualPairingCode.encode(p) == "34970112332")
        var custom = p
        custom.commissioningFlow = .custom
        let code = try ManualPairingCode.encode(custom)
        #expect(code.count == 21)
        let back = try ManualPairingCode.decode(code)
        #expect(back.vendorID == 0xFFF1 && back.productID == 0x8000 && back.passcode == 20_202_021)
    }

    @Test func refusesToGenerateInvalidCodes() {
        let base = SetupPayload(kind: .qrCode, vendorID: 0xFFF1, productID: 0x8000, commissioningFlow: .standard,
                                discoveryCapabilities: .onNetwork, discriminator: .long(3840), passcode: 12_345_678)
        #expect(throws: SetupPayloadError.self) { try QRCode.encode([base]) }
        var p = base
        p.passcode = 20_202_021
        p.discriminator = .long(4096)
        #expect(throws: SetupPayloadError.self) { try QRCode.encode([p]) }
        p.discriminator = .long(1)
        p.vendorID = 0xFFFF
        #expect(throws: SetupPayloadError.invalidVendorID(0xFFFF)) { try QRCode.encode([p]) }
    }

    @Test func serialNumberAndVendorDataRoundTrip() throws {
        var p = SetupPayload(kind: .qrCode, vendorID: 0xFFF1, productID: 0x8000, commissioningFlow: .standard,
                             discoveryCapabilities: .onNetwork, discriminator: .long(42), passcode: 20_202_021,
                             serialNumber: "SN-0042")
        p.extensions = [SetupPayloadExtension(tag: 0x81, value: .utf8("vendor")),
                        SetupPayloadExtension(tag: 0x82, value: .signed(-5))]
        let code = try QRCode.encode([p])
        #expect(try SetupPayload.parse(code) == [p])
    }

    @Test func concatenatedCodeGivesEveryDevice() throws {
        let devices = (0..<3).map { i in
            SetupPayload(kind: .qrCode, vendorID: 0xFFF1, productID: 0x8000, commissioningFlow: .standard,
                         discoveryCapabilities: .onNetwork, discriminator: .long(UInt16(100 + i)),
                         passcode: 20_202_021 + UInt32(i))
        }
        let code = try QRCode.encode(devices)
        #expect(code.split(separator: "*").count == 3)
        #expect(try SetupPayload.parse(code) == devices)
    }

    /// Random mutations of valid codes parse or throw, never trap.
    @Test func seededMutationNeverTraps() throws {
        let seeds = TestVectors.vectors("setup_payload.json").compactMap { $0.string("input") }
            .filter { $0.hasPrefix("MT:") || $0.first?.isNumber == true }
        try #require(seeds.count > 20)
        var rng = SeededRandom(seed: 0x5E7)
        var accepted = 0, rejected = 0
        for i in 0..<20_000 {
            let bytes = Mutation.mutate(Array(seeds[i % seeds.count].utf8), using: &rng)
            let text = String(decoding: bytes, as: UTF8.self)
            if (try? SetupPayload.parse(text)) != nil { accepted += 1 } else { rejected += 1 }
        }
        #expect(accepted > 0 && rejected > 0)
    }
}
