import MatterSetupPayload
import Testing
import TestSupport

@Suite struct Base38Tests {
    @Test(arguments: TestVectors.vectors("base38.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let text = try #require(v.string("base38"))
        guard v.valid else {
            #expect(throws: SetupPayloadError.self) { try Base38.decode(text) }
            return
        }
        let bytes = try #require(v.hex("bytes_hex"))
        #expect(try Base38.decode(text) == bytes)
        if v.string("direction") == "both" {
            #expect(Base38.encode(bytes) == text)
        }
    }

    @Test func chunkLengthsOneAndThreeAreInvalid() {
        #expect(throws: SetupPayloadError.self) { try Base38.decode("A") }
        #expect(throws: SetupPayloadError.self) { try Base38.decode("A0A") }
        #expect(throws: SetupPayloadError.self) { try Base38.decode("00000A") }
    }

    @Test func roundTripsRandomBytes() throws {
        var rng = SeededRandom(seed: 38)
        for n in 0..<64 {
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            #expect(try Base38.decode(Base38.encode(bytes)) == bytes)
        }
    }
}

@Suite struct VerhoeffTests {
    @Test(arguments: TestVectors.vectors("verhoeff.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let input = try #require(v.string("input"))
        switch v.string("op") {
        case "compute":
            if v.valid {
                #expect(Verhoeff.checkDigit(for: input).map { String($0) } == v.string("check_digit"))
            } else {
                #expect(Verhoeff.checkDigit(for: input) == nil)
            }
        case "validate":
            #expect(Verhoeff.validate(input) == v.valid)
        case "check_digits_differ":
            let other = try #require(v.string("input2"))
            #expect(Verhoeff.checkDigit(for: input) != Verhoeff.checkDigit(for: other))
        default:
            Issue.record("unknown op in \(v.id)")
        }
    }

    /// Every single-digit change of a manual code is caught.
    @Test func catchesEverySingleDigitError() {
        let code = "3497011233"
        let check = Verhoeff.checkDigit(for: code)
        var digits = Array(code)
        for i in digits.indices {
            let original = digits[i]
            for d in "0123456789" where d != original {
                digits[i] = d
                #expect(Verhoeff.checkDigit(for: String(digits)) != check)
            }
            digits[i] = original
        }
    }
}
