import MatterCrypto
import MatterMessaging
import MatterSecureChannel
#if !FUZZING
import FuzzSupport
#endif

/// libFuzzer target for everything a peer's datagram reaches before authentication: the
/// message header, decryption with a fixed key (tag check), the protocol header, StatusReport,
/// and the PASE/CASE handshake message decoders.
let key = SecretBytes([UInt8](repeating: 0x42, count: 16))

func fuzzOne(_ input: [UInt8]) {
    if let (header, length) = try? MessageHeader.decode(input) {
        if header.encoded() != Array(input[..<length]) {
            fatalError("message header does not re-encode to the bytes it was read from")
        }
        _ = try? ProtocolHeader.decode(Array(input[length...]))
    }
    _ = try? MessageCrypto.open(frame: input, key: key, privacyKey: key)
    _ = try? StatusReport.decode(input)
    _ = try? PBKDFParamRequest(decoding: input)
    _ = try? PBKDFParamResponse(decoding: input)
    _ = try? Sigma1(decoding: input)
    _ = try? Sigma2(decoding: input)
    _ = try? Sigma2Resume(decoding: input)
    _ = try? Sigma3Codec.decode(input)
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
