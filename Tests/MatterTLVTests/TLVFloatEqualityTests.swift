import MatterTLV
import Testing
import TestSupport

/// Elements are equal when they are the same TLV on the wire: floats by bit pattern, so a
/// decoded NaN equals its own round trip (fuzz-interaction once stopped on exactly that).
@Suite struct TLVFloatEqualityTests {
    @Test(arguments: ["0b000000000000f87f", "0b010000000000f8ff", "0a0000c07f", "0a0100807f"])
    func nanSurvivesARoundTrip(_ hex: String) throws {
        let bytes = try #require(Hex.decode(hex))
        let element = try TLVDecoder.decode(bytes)
        let again = try TLVDecoder.decode(TLVWriter.encode(element))
        #expect(again == element)
        #expect(Set([element, again]).count == 1)
        #expect(TLVWriter.encode(again) == bytes)
    }

    @Test func signedZerosDiffer() {
        #expect(TLVElement(.double(0.0)) != TLVElement(.double(-0.0)))
        #expect(TLVElement(.float(0.0)) != TLVElement(.float(-0.0)))
        #expect(TLVElement(.double(1.5)) == TLVElement(.double(1.5)))
        #expect(TLVElement(.float(1.5)) != TLVElement(.double(1.5)))
    }

    @Test func nanInsideAStructure() throws {
        let nan = Double(bitPattern: 0x7FF8_0000_0000_0001)
        let tree = TLVElement.structure(.anonymous, [TLVElement(tag: .context(1), .double(nan))])
        #expect(try TLVDecoder.decode(TLVWriter.encode(tree)) == tree)
    }
}
