import CNet
#if !FUZZING
import FuzzSupport
#endif

/// libFuzzer target for the ancillary-data walk of every received datagram (cnet_cmsg_ifindex,
/// which cnet_recv runs on recvmsg's control buffer): any control bytes yield an interface or
/// none, without reading outside the buffer. Run it with FUZZ_SANITIZE=address to have the C
/// checked. Without -DFUZZING, a replay tool.
func fuzzOne(_ input: [UInt8]) {
    // An exactly-sized, 8-byte-aligned copy (the alignment recvmsg's buffer has), so
    // AddressSanitizer reports a read past its end.
    let control = UnsafeMutableRawPointer.allocate(byteCount: max(input.count, 1), alignment: 8)
    defer { control.deallocate() }
    input.withUnsafeBytes { control.copyMemory(from: $0.baseAddress!, byteCount: input.count) }
    var ifindex: UInt32 = 0xdead_beef
    let found = cnet_cmsg_ifindex(control, input.count, &ifindex)
    if found == 0, ifindex != 0xdead_beef { fatalError("cnet_cmsg_ifindex changed the index but found none") }
    if found != 0 && found != 1 { fatalError("cnet_cmsg_ifindex returned \(found)") }
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
