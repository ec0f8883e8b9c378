import MatterDiscovery
#if !FUZZING
import FuzzSupport
#endif

/// libFuzzer target for the DNS-SD decoders: any bytes parse as TXT RDATA without trapping; a
/// record whose strings fit re-encodes to itself; typed Matter TXT survives record -> typed ->
/// record; operational instance names parse or throw. Built with `scripts/fuzz` (-DFUZZING);
/// without it, a replay tool for the inputs named on the command line.
func fuzzOne(_ input: [UInt8]) {
    let record = TXTRecord(wire: input)
    if record.items.allSatisfy({ $0.count <= 255 }), TXTRecord(wire: record.wire) != record {
        fatalError("TXT re-encoding does not parse to the same record")
    }
    var matter = MatterTXT(record)
    matter.issues = []
    let again = MatterTXT(matter.record)
    if !again.issues.isEmpty || again != matter {
        fatalError("typed Matter TXT does not survive a round trip: \(again.issues)")
    }
    _ = MeshcopTXT(record)
    _ = try? OperationalInstanceName(parsing: String(decoding: input, as: UTF8.self))
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
