import MatterNetworkCredentials
#if !FUZZING
import FuzzSupport
#endif

/// libFuzzer target for the Thread dataset decoder: any bytes decode or throw a
/// `ThreadDatasetError` without trapping; a dataset that decodes re-encodes to exactly the bytes
/// it came from, and those decode to an equal dataset. Built with `scripts/fuzz` (-DFUZZING);
/// without it, a replay tool for the inputs named on the command line.
func fuzzOne(_ input: [UInt8]) {
    guard let dataset = try? ThreadDataset(tlvs: input) else { return }
    guard let again = try? dataset.encoded() else { fatalError("a decoded dataset does not encode") }
    if again != input { fatalError("re-encoding changed the bytes") }
    if (try? ThreadDataset(tlvs: again)) != dataset { fatalError("re-decoding gave another dataset") }
    _ = dataset.meshLocalPrefix?.description
    _ = dataset.channelMask?.map(\.channels)
    _ = try? dataset.checkComplete()
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
