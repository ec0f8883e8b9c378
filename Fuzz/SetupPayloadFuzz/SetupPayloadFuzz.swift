import MatterSetupPayload
#if !FUZZING
import FuzzSupport
#endif

/// libFuzzer target for setup code parsing (QR and manual): any text parses or throws, and a
/// parsed code re-encodes to a code that parses to the same payloads.
func fuzzOne(_ input: [UInt8]) {
    let text = String(decoding: input, as: UTF8.self)
    guard let payloads = try? SetupPayload.parse(text) else { return }
    if payloads.allSatisfy({ $0.kind == .qrCode }) {
        guard let code = try? QRCode.encode(payloads), let back = try? SetupPayload.parse(code),
              back.count == payloads.count else {
            fatalError("a parsed QR code does not re-encode")
        }
    } else if let p = payloads.first {
        guard let code = try? ManualPairingCode.encode(p), let back = try? SetupPayload.parse(code),
              back.first?.passcode == p.passcode else {
            fatalError("a parsed manual code does not re-encode")
        }
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
