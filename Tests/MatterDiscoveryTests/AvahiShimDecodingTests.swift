import CAvahi
import Glibc
import Testing

/// The C shim's decoding of what avahi-daemon reports about a peer's advert (the code the browse
/// callbacks run; fuzz-avahi fuzzes the same functions under AddressSanitizer).
@Suite struct AvahiShimDecodingTests {
    struct TXTCase: Sendable, CustomStringConvertible {
        let description: String
        let items: [[UInt8]]
        let wire: [UInt8]
    }

    static let txtCases: [TXTCase] = [
        TXTCase(description: "no strings", items: [], wire: []),
        TXTCase(description: "two strings in order", items: [Array("D=3840".utf8), Array("CM=1".utf8)],
                wire: [6] + Array("D=3840".utf8) + [4] + Array("CM=1".utf8)),
        TXTCase(description: "an empty string", items: [[]], wire: [0]),
        TXTCase(description: "bytes that are not UTF-8", items: [[0x00, 0xff, 0x3d]], wire: [3, 0x00, 0xff, 0x3d]),
        TXTCase(description: "a string over 255 bytes is cut to 255",
                items: [[UInt8](repeating: 0x78, count: 300), Array("T=1".utf8)],
                wire: [255] + [UInt8](repeating: 0x78, count: 255) + [3] + Array("T=1".utf8)),
    ]

    @Test(arguments: txtCases) func txtWire(_ c: TXTCase) throws {
        let buffers = c.items.map { s -> UnsafeMutablePointer<UInt8> in
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(s.count, 1))
            p.initialize(from: s, count: s.count)
            return p
        }
        defer { buffers.forEach { $0.deallocate() } }
        var length = 0
        let wire = try #require(mh_txt_wire_from_items(buffers.map { UnsafePointer($0) }, c.items.map(\.count),
                                                       c.items.count, &length))
        defer { free(wire) }
        #expect(Array(UnsafeBufferPointer(start: wire, count: length)) == c.wire)
    }

    struct AddressCase: Sendable, CustomStringConvertible {
        let description: String
        let type: UInt16
        let rdata: [UInt8]
        let capacity: Int
        let text: String?  // nil: refused
    }

    static let addressCases: [AddressCase] = [
        AddressCase(description: "A", type: 1, rdata: [192, 168, 1, 20], capacity: 46, text: "192.168.1.20"),
        AddressCase(description: "AAAA link-local", type: 28,
                    rdata: [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77],
                    capacity: 46, text: "fe80::211:2233:4455:6677"),
        AddressCase(description: "AAAA all ones", type: 28, rdata: [UInt8](repeating: 0xff, count: 16), capacity: 46,
                    text: "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
        AddressCase(description: "A with 5 bytes", type: 1, rdata: [1, 2, 3, 4, 5], capacity: 46, text: nil),
        AddressCase(description: "AAAA with 4 bytes", type: 28, rdata: [1, 2, 3, 4], capacity: 46, text: nil),
        AddressCase(description: "empty RDATA", type: 1, rdata: [], capacity: 46, text: nil),
        AddressCase(description: "text longer than the buffer", type: 1, rdata: [192, 168, 1, 20], capacity: 8, text: nil),
    ]

    @Test(arguments: addressCases) func addressText(_ c: AddressCase) {
        var text = [CChar](repeating: 0, count: c.capacity)
        // A non-nil pointer for empty RDATA too, as Avahi passes.
        let storage = c.rdata.isEmpty ? [UInt8(0)] : c.rdata
        let result = storage.withUnsafeBytes { mh_address_text(c.type, $0.baseAddress, c.rdata.count, &text, c.capacity) }
        if let expected = c.text {
            #expect(result == 0)
            #expect(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) == expected)
        } else {
            #expect(result == -1)
        }
    }
}
