import MatterTLV
import Testing

/// The identifier newtypes share one protocol: literal, order, description and TLV coding.
@Suite struct MatterIdentifierTests {
    @Test func descriptions() {
        #expect(NodeID(0x42).description == "0000000000000042")
        #expect(FabricID(0xFAB1).description == "000000000000FAB1")
        #expect(VendorID(0xFFF1).description == "0xFFF1")
        #expect(ClusterID(6).description == "0x6")
        #expect(EndpointID(1).paddedHex == "0001")
    }

    @Test func ordersByRawValue() {
        #expect([NodeID(3), 1, 2].sorted() == [1, 2, 3])
        #expect(AttributeID(0xFFFD) > AttributeID(5))
    }

    @Test func testVendors() {
        #expect(VendorID(0xFFF1).isTestVendor && VendorID(0xFFF4).isTestVendor)
        #expect(!VendorID(0xFFF5).isTestVendor && !VendorID(0x1234).isTestVendor)
    }

    @Test func tlvRoundTrip() throws {
        let node = NodeID(0xDEDE_DEDE_0001_0002)
        let e = TLVElement.unsigned(.context(1), node)
        #expect(try TLVDecoder.decode(TLVWriter.encode(e)).identifier(NodeID.self) == node)
        #expect(try TLVElement.unsigned(.anonymous, UInt64(0xFFF2)).identifier(VendorID.self) == 0xFFF2)
    }

    @Test func tlvRejectsWhatDoesNotFit() {
        #expect(throws: TLVError.self) { try TLVElement.unsigned(.anonymous, UInt64(0x1_0000)).identifier(VendorID.self) }
        #expect(throws: TLVError.self) { try TLVElement.utf8(.anonymous, "1").identifier(EndpointID.self) }
    }
}
