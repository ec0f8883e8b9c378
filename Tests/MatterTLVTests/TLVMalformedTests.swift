import MatterTLV
import Testing
import TestSupport

/// Malformed TLV: each case must be rejected with the error it names, never trap.
@Suite struct TLVMalformedTests {
    struct Case: CustomStringConvertible, Sendable {
        let name: String
        let hex: String
        let expected: TLVError
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "empty input", hex: "", expected: .underrun(offset: 0)),
        Case(name: "2-byte uint missing its value", hex: "05", expected: .underrun(offset: 1)),
        Case(name: "8-byte int truncated", hex: "03010203", expected: .underrun(offset: 1)),
        Case(name: "context tag missing", hex: "24", expected: .underrun(offset: 1)),
        Case(name: "fully qualified tag truncated", hex: "c40102", expected: .underrun(offset: 3)),
        Case(name: "reserved element type 0x19", hex: "19", expected: .invalidElementType(0x19, offset: 0)),
        Case(name: "reserved element type 0x1f", hex: "1f", expected: .invalidElementType(0x1F, offset: 0)),
        Case(name: "end of container at top level", hex: "18", expected: .unexpectedEndOfContainer(offset: 0)),
        Case(name: "tagged end of container", hex: "153800", expected: .unexpectedEndOfContainer(offset: 1)),
        Case(name: "structure never closed", hex: "152001ff", expected: .unterminatedContainer(offset: 0)),
        Case(name: "trailing bytes", hex: "0401ff", expected: .trailingBytes(offset: 2)),
        Case(name: "two top-level elements", hex: "08" + "09", expected: .trailingBytes(offset: 1)),
        Case(name: "string longer than the input", hex: "0c05414243", expected: .lengthTooLarge(offset: 1)),
        Case(name: "8-byte length beyond memory", hex: "13ffffffffffffffff00", expected: .lengthTooLarge(offset: 1)),
        Case(name: "invalid UTF-8", hex: "0c02c328", expected: .invalidUTF8(offset: 0)),
        Case(name: "lone continuation byte", hex: "0c0180", expected: .invalidUTF8(offset: 0)),
        Case(name: "anonymous member in a structure", hex: "150818", expected: .invalidTagInContainer(.anonymous, offset: 1)),
        Case(name: "tagged member in an array", hex: "16280118", expected: .invalidTagInContainer(.context(1), offset: 1)),
    ]

    @Test(arguments: cases)
    func rejected(_ c: Case) throws {
        let bytes = try #require(Hex.decode(c.hex))
        #expect(throws: c.expected) { try TLVDecoder.decode(bytes) }
    }

    @Test func depthLimit() {
        let nested = [UInt8](repeating: 0x17, count: 40) + [UInt8](repeating: 0x18, count: 40)
        #expect(throws: TLVError.depthLimitExceeded(limit: 32)) { try TLVDecoder.decode(nested) }
        #expect(throws: Never.self) { try TLVDecoder.decode(nested, maxDepth: 40) }
    }

    @Test func errorsReadAsSentences() {
        #expect(TLVError.underrun(offset: 3).description == "TLV data ends too early (at byte 3)")
        #expect(TLVError.missingField(.context(2)).description == "required field 2 is missing")
    }

    /// Random flips, truncations and insertions over valid encodings decode or throw, never trap.
    @Test func seededMutationNeverTraps() throws {
        let seeds = TestVectors.vectors("tlv.json").compactMap { $0.hex("encoding") }
        try #require(seeds.count > 10)
        var rng = SeededRandom(seed: 0x7157)
        var decoded = 0, rejected = 0
        for i in 0..<20_000 {
            let input = Mutation.mutate(seeds[i % seeds.count], using: &rng)
            do {
                let e = try TLVDecoder.decode(input)
                // Anything that decodes must re-encode to bytes that decode to the same encoding
                // (compared as bytes: a mutated float may be NaN, which never equals itself).
                let again = TLVWriter.encode(e)
                #expect(try TLVWriter.encode(TLVDecoder.decode(again)) == again)
                decoded += 1
            } catch {
                rejected += 1
            }
        }
        #expect(decoded > 0 && rejected > 0)
    }
}
