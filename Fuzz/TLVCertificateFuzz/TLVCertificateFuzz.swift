import MatterCertificates
#if !FUZZING
import FuzzSupport
#endif

/// libFuzzer target for the Matter TLV certificate decoder: any input decodes or throws; what
/// decodes converts to X.509 DER, and that DER converts back to the same certificate. Built
/// with `scripts/fuzz` (-DFUZZING); otherwise a replay tool for inputs on the command line.
func fuzzOne(_ input: [UInt8]) {
    guard let cert = try? MatterCertificate(tlvEncoded: input) else { return }
    _ = try? cert.certificateType()
    guard let der = try? cert.derEncoded() else { fatalError("a decoded TLV certificate has no DER form") }
    guard let back = try? MatterCertificate(derEncoded: der) else { fatalError("TLV -> DER gave DER that does not convert back") }
    // The TLV bytes may use longer-than-needed integer widths; the certificate must survive.
    guard back == cert else { fatalError("TLV -> DER -> TLV changed the certificate") }
    guard (try? MatterCertificate(tlvEncoded: cert.tlvEncoded)) == cert else { fatalError("TLV re-encoding changed the certificate") }
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
