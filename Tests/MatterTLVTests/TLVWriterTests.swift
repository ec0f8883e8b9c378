import MatterTLV
import Testing
import TestSupport

/// The writer picks the shortest form for integers, lengths and tags (Matter Core A.7).
@Suite struct TLVWriterTests {
    @Test(arguments: [
        (TLVElement(.unsigned(255)), "04ff"),
        (TLVElement(.unsigned(256)), "050001"),
        (TLVElement(.unsigned(65536)), "0600000100"),
        (TLVElement(.unsigned(UInt64(UInt32.max) + 1)), "070000000001000000"),
        (TLVElement(.signed(-128)), "0080"),
        (TLVElement(.signed(-129)), "017fff"),
        (TLVElement(.signed(32768)), "0200800000"),
        (TLVElement(.signed(Int64.min)), "030000000000000080"),
        (TLVElement.utf8(.context(1), "a"), "2c010161"),
        (.bytes(.commonProfile(65535), [1]), "50ffff0101"),
        (.bytes(.commonProfile(65536), []), "7000000100" + "00"),
        (.null(.implicitProfile(70000)), "b470110100"),
        (.bool(.fullyQualified(vendorID: 0xFFF1, profile: 0xDEED, tag: 0x10000), true), "e9f1ffedde00000100"),
    ] as [(TLVElement, String)])
    func shortest(_ element: TLVElement, _ hex: String) throws {
        #expect(Hex.encode(TLVWriter.encode(element)) == hex)
        #expect(try TLVDecoder.decode(Hex.decode(hex)!) == element)
    }

    @Test func longStringUsesTwoByteLength() throws {
        let s = String(repeating: "x", count: 300)
        let bytes = TLVWriter.encode(TLVElement(.utf8(s)))
        #expect(Array(bytes.prefix(3)) == [0x0D, 0x2C, 0x01])
        #expect(try TLVDecoder.decode(bytes).utf8() == s)
    }

    @Test func typedAccessorsReportWrongTypes() throws {
        let e = TLVElement.structure([.unsigned(.context(1), UInt8(7)), .utf8(.context(2), "x")])
        #expect(try e.required(1).unsigned(as: UInt8.self) == 7)
        #expect(throws: TLVError.wrongType(tag: .context(2), expected: "unsigned integer", found: "UTF-8 string")) {
            try e.required(2).unsigned(as: UInt8.self)
        }
        #expect(throws: TLVError.missingField(.context(3))) { try e.required(3) }
        #expect(throws: TLVError.outOfRange(tag: .context(1))) {
            try TLVElement.unsigned(.context(1), UInt16(300)).unsigned(as: UInt8.self)
        }
    }

    @Test func streamingReaderSkipsContainers() throws {
        // {1: [1, 2, {}], 2: "ok"}: skip the array, then read field 2.
        let bytes = TLVWriter.encode(.structure([
            .array(.context(1), [.unsigned(UInt8(1)), .unsigned(UInt8(2)), .structure([])]),
            .utf8(.context(2), "ok"),
        ]))
        var r = TLVReader(bytes)
        #expect(try r.next() == .startContainer(.anonymous, .structure))
        #expect(try r.next() == .startContainer(.context(1), .array))
        try r.skipContainer()
        #expect(try r.next() == .scalar(.context(2), .utf8("ok")))
        #expect(try r.next() == .endOfContainer)
        #expect(try r.next() == nil)
    }
}
