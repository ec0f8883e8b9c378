import Testing
import TestSupport
@testable import MatterDiscovery

@Suite struct TXTRecordTests {
    static func wire(_ items: [[UInt8]]) -> [UInt8] { items.flatMap { [UInt8($0.count)] + $0 } }

    @Test func parsesKeysValuesAndFlags() {
        let t = TXTRecord(wire: Self.wire([Array("D=3840".utf8), Array("CM".utf8), Array("VP=".utf8), [0x78, 0x70, 0x3D, 0x00, 0xFF]]))
        #expect(t["D"] == Array("3840".utf8))
        #expect(t.entry("CM")?.value == nil)
        #expect(t.entry("CM") != nil)
        #expect(t["VP"] == [])
        #expect(t["xp"] == [0x00, 0xFF])
        #expect(t["d"] == Array("3840".utf8), "keys are case-insensitive")
    }

    @Test func firstOccurrenceWinsAndEmptyStringsAreSkipped() {
        let t = TXTRecord(wire: Self.wire([[], Array("=x".utf8), Array("D=1".utf8), Array("d=2".utf8)]))
        #expect(t.entries.count == 1)
        #expect(t["D"] == Array("1".utf8))
    }

    @Test func truncatedLengthKeepsWhatFits() {
        let t = TXTRecord(wire: [5, UInt8(ascii: "D"), UInt8(ascii: "="), UInt8(ascii: "1")])
        #expect(t["D"] == Array("1".utf8))
    }

    @Test func roundTrip() {
        var t = TXTRecord(["D": "3840", "VP": "65521+32768"])
        t.set("xp", [0, 1, 2, 255])
        t.set("flag", nil)
        #expect(TXTRecord(wire: t.wire) == t)
    }

    @Test func mutatedInputNeverTraps() {
        var rng = SeededRandom(seed: 0x7478_7472)
        let seed = Self.wire([Array("D=3840".utf8), Array("SII=5000".utf8), Array("RI=0102".utf8), Array("sb=".utf8) + [0, 0, 1, 0xB1]])
        for _ in 0..<2000 {
            let input = Mutation.mutate(seed, using: &rng)
            let t = TXTRecord(wire: input)
            _ = MatterTXT(t)
            _ = MeshcopTXT(t)
            #expect(t.entries.count <= input.count)
        }
    }
}
