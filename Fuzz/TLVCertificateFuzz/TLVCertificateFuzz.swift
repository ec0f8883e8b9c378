import MatterCertificates
#if !FUZZING
import FuzzSupport
#endif

/// libFuzzer target for the Matter TLV certificate decoder: any input decodes or throws; what
/// decodes converts to X.509 DER, and that DER converts back to the same certificate and TLV
/// bytes. Built with `scripts/fuzz` (-DFUZZING); otherwise a replay tool for inputs on the
/// command line.
func fuzzOne(_ input: [UInt8]) {
    guard let cert = try? MatterCertificate(tlvEncoded: input) else { return }
    _ = try? cert.certificateType()
    guard let der = try? cert.derEncoded() else { fatalError("a decoded TLV certificate has no DER form") }
    guard let back = try? MatterCertificate(derEncoded: der) else {
        // Only the size limit may stop the way back (a TLV certificate near 400 bytes can exceed
        // 600 bytes of DER); anything else is a conversion bug.
        guard der.count > MatterCertificate.maxDERLength else { fatalError("TLV -> DER gave DER that does not convert back") }
        return
    }
    guard back == cert, back.tlvEncoded == input else { fatalError("TLV -> DER -> TLV changed the certificate") }
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
