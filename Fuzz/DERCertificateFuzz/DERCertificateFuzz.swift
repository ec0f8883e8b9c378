import MatterCertificates
#if !FUZZING
import FuzzSupport
#endif

/// libFuzzer target for the DER parser, the X.509 parser and the X.509 -> Matter TLV
/// conversion: any input parses or throws; a certificate that converts to TLV converts back to
/// exactly the input. Built with `scripts/fuzz` (-DFUZZING); otherwise a replay tool.
func fuzzOne(_ input: [UInt8]) {
    _ = try? DER.parse(input)
    guard let x509 = try? X509Certificate(derEncoded: input) else { return }
    guard x509.derBytes == input else { fatalError("X509Certificate did not keep the input bytes") }
    guard input.count <= MatterCertificate.maxDERLength, let cert = try? MatterCertificate(x509: x509) else { return }
    guard (try? cert.derEncoded()) == input else { fatalError("DER -> TLV -> DER changed the bytes") }
    guard let again = try? MatterCertificate(tlvEncoded: cert.tlvEncoded), again == cert else {
        fatalError("the TLV form of a converted certificate does not decode to it")
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
