import CAvahi
import Glibc
import MatterDiscovery
#if !FUZZING
import FuzzSupport
#endif

/// libFuzzer target for the C side of the Avahi shim, the part that reads what the daemon reports
/// about a peer's advert: TXT strings -> TXT RDATA (mh_txt_wire_from_items, as the resolver
/// callback builds it) and A/AAAA RDATA -> address text (mh_address_text, as the address callback
/// does), then the RDATA through MatterDiscovery's TXT decoders as the browse delivers it. Run it
/// with FUZZ_SANITIZE=address to have the C checked. Without -DFUZZING, a replay tool.
///
/// Input: the first byte picks the record type for the address (bit 0: AAAA, else A); the rest is
/// the RDATA for the address and, split into strings by 2-byte big-endian lengths (a length past
/// the end takes what is left), the TXT strings, which may be longer than 255 bytes.
func fuzzOne(_ input: [UInt8]) {
    guard let first = input.first else { return }
    let rest = Array(input.dropFirst())
    checkAddress(type: first & 1 == 1 ? 28 : 1, rdata: rest)
    checkTXT(strings: split(rest))
}

func split(_ bytes: [UInt8]) -> [[UInt8]] {
    var strings: [[UInt8]] = []
    var at = 0
    while at + 2 <= bytes.count {
        let length = Int(bytes[at]) << 8 | Int(bytes[at + 1])
        at += 2
        let end = min(bytes.count, at + length)
        strings.append(Array(bytes[at..<end]))
        at = end
    }
    return strings
}

func checkTXT(strings: [[UInt8]]) {
    // Each string in its own exactly-sized allocation, so AddressSanitizer sees any over-read.
    let buffers = strings.map { s -> UnsafeMutablePointer<UInt8> in
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(s.count, 1))
        p.initialize(from: s, count: s.count)
        return p
    }
    defer { buffers.forEach { $0.deallocate() } }
    let items = buffers.map { UnsafePointer<UInt8>?(UnsafePointer($0)) }
    let lengths = strings.map(\.count)
    var length = 0
    guard let wire = mh_txt_wire_from_items(items, lengths, strings.count, &length) else {
        fatalError("mh_txt_wire_from_items returned NULL")
    }
    defer { free(wire) }
    let got = Array(UnsafeBufferPointer(start: wire, count: length))
    let expected = strings.flatMap { s -> [UInt8] in [UInt8(min(s.count, 255))] + s.prefix(255) }
    guard got == expected else { fatalError("TXT RDATA is not the length-prefixed strings, each cut to 255") }
    let record = TXTRecord(wire: got)
    _ = MatterTXT(record)
    _ = MeshcopTXT(record)
}

func checkAddress(type: UInt16, rdata: [UInt8]) {
    var text = [CChar](repeating: 0x7f, count: 46)  // INET6_ADDRSTRLEN
    let result = rdata.withUnsafeBufferPointer { r in
        // An exactly-sized copy (and a non-nil pointer for empty RDATA).
        let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(r.count, 1))
        defer { copy.deallocate() }
        if let base = r.baseAddress { copy.initialize(from: base, count: r.count) }
        return mh_address_text(type, copy, r.count, &text, text.count)
    }
    let fits = rdata.count == (type == 28 ? 16 : 4)
    guard (result == 0) == fits else { fatalError("mh_address_text accepted a wrong-sized RDATA or refused a right one") }
    guard fits else { return }
    // The text parses back to the same bytes.
    var back = [UInt8](repeating: 0, count: 16)
    guard inet_pton(type == 28 ? AF_INET6 : AF_INET, text, &back) == 1, Array(back.prefix(rdata.count)) == rdata else {
        fatalError("mh_address_text's text does not parse back to the RDATA")
    }
}

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    fuzzOne(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
#else
@main enum Replay {
    static func main() { FuzzReplay.run(fuzzOne) }
}
#endif
