import MatterCertificates
#if !FUZZING
import FuzzSupport
#endif

/// libFuzzer target for the attestation decoders: the certification declaration (CMS and TLV
/// content), attestation elements, and the DAC/PAI/PAA profile and VID/PID rules over any X.509
/// input. Every input decodes or throws; nothing traps. Built with `scripts/fuzz` (-DFUZZING);
/// without it, a replay tool that runs the inputs named on the command line.
func fuzzOne(_ input: [UInt8]) {
    if let cd = try? CertificationDeclaration(cms: input) { _ = try? cd.elements() }
    _ = try? CertificationElements(tlv: input)
    if let elements = try? AttestationElements(tlv: input) {
        guard (try? AttestationElements(tlv: elements.tlvEncoded)) == elements else {
            fatalError("attestation elements do not survive re-encoding")
        }
    }
    if let cert = try? X509Certificate(derEncoded: input) {
        for role in [AttestationCertificateRole.dac, .pai, .paa] { try? role.checkProfile(cert) }
        _ = try? AttestationVendorProduct(subjectAttributes: cert.subject.attributes.map { ($0.type, $0.value) })
        _ = RevocationSet().isRevoked(cert)
    }
    _ = AttestationPEM.certificates(fromFileContents: input)
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
