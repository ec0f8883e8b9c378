import MatterTLV
#if !FUZZING
import FuzzSupport
#endif

/// libFuzzer target for the TLV decoder: any input decodes or throws, and whatever decodes
/// re-encodes to bytes that decode again. Built with `scripts/fuzz` (-DFUZZING); without it,
/// a replay tool that runs the inputs named on the command line.
func fuzzOne(_ input: [UInt8]) {
    guard let element = try? TLVDecoder.decode(input) else { return }
    let again = TLVWriter.encode(element)
    guard let back = try? TLVDecoder.decode(again), TLVWriter.encode(back) == again else {
        fatalError("TLV re-encoding does not decode to the same bytes")
    }
    var reader = TLVReader(input)
    while (try? reader.next()) ?? nil != nil {}
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
