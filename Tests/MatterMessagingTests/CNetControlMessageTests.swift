import CNet
import Testing
import TestSupport

/// The arrival-interface walk over recvmsg's ancillary data (cnet_cmsg_ifindex, which cnet_recv
/// runs on every datagram). Buffers are laid out as on Linux x86-64/arm64: struct cmsghdr is
/// { size_t len; int level; int type; }, data at 16, each message 8-aligned.
@Suite struct CNetControlMessageTests {
    struct Case: Sendable, CustomStringConvertible {
        let description: String
        let hex: String
        let ifindex: UInt32?  // nil: none found
    }

    static func header(length: UInt64, level: Int32, type: Int32) -> String {
        let bytes = withUnsafeBytes(of: length.littleEndian, Array.init)
            + withUnsafeBytes(of: level.littleEndian, Array.init) + withUnsafeBytes(of: type.littleEndian, Array.init)
        return Hex.encode(bytes)
    }

    // IPV6_PKTINFO (41/50): in6_pktinfo { 16-byte address, uint32 ifindex }, cmsg_len 36.
    static let ipv6 = header(length: 36, level: 41, type: 50) + "000102030405060708090a0b0c0d0e0f" + "03000000" + "00000000"
    // IP_PKTINFO (0/8): in_pktinfo { int ifindex, spec_dst, addr }, cmsg_len 28.
    static let ipv4 = header(length: 28, level: 0, type: 8) + "02000000" + "7f000001" + "7f000001" + "00000000"

    static let cases: [Case] = [
        Case(description: "IPV6_PKTINFO", hex: ipv6, ifindex: 3),
        Case(description: "IP_PKTINFO", hex: ipv4, ifindex: 2),
        Case(description: "both: the last one wins", hex: ipv4 + ipv6, ifindex: 3),
        Case(description: "another message first", hex: header(length: 24, level: 1, type: 29) + "0000000000000000" + ipv6,
             ifindex: 3),
        Case(description: "empty buffer", hex: "", ifindex: nil),
        Case(description: "shorter than a header", hex: String(ipv6.prefix(24)), ifindex: nil),
        // fuzz-cnet under AddressSanitizer (Fuzz/regressions/fuzz-cnet/crash-26400d6c…): an
        // IP_PKTINFO whose cmsg_len (28) runs past the 25-byte buffer; the payload was read past
        // the buffer's end.
        Case(description: "fuzz-cnet crash: cmsg_len past the buffer",
             hex: "1c000000000000000000000008000000020000007f00000000", ifindex: nil),
        Case(description: "IPV6_PKTINFO cut short by the buffer", hex: String(ipv6.prefix(2 * 30)), ifindex: nil),
        Case(description: "IP_PKTINFO whose cmsg_len has no room for the payload",
             hex: header(length: 16, level: 0, type: 8) + "0700000000000000" + "0000000000000000", ifindex: nil),
    ]

    @Test(arguments: cases) func arrivalInterface(_ c: Case) throws {
        let bytes = try #require(Hex.decode(c.hex))
        // Exactly sized and 8-aligned, as recvmsg's buffer.
        let control = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 8)
        defer { control.deallocate() }
        bytes.withUnsafeBytes { if let base = $0.baseAddress { control.copyMemory(from: base, byteCount: bytes.count) } }
        var ifindex: UInt32 = 0xdead_beef
        let found = cnet_cmsg_ifindex(control, bytes.count, &ifindex)
        if let expected = c.ifindex {
            #expect(found == 1)
            #expect(ifindex == expected)
        } else {
            #expect(found == 0)
            #expect(ifindex == 0xdead_beef, "unchanged when none is found")
        }
    }
}
