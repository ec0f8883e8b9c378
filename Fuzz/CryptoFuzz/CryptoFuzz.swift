import MatterCrypto
#if !FUZZING
import FuzzSupport
#endif

/// libFuzzer target for every byte form MatterCrypto decodes: DER signatures, private keys
/// (DER/PEM), public keys (SEC1 points, SPKI), PASE verifiers, SPAKE2+ shares and AES-CCM
/// frames, certificate revocation lists; signatures (raw and DER) verified and public keys used
/// for ECDH against a fixed key. Each input decodes or throws; whatever decodes re-encodes
/// consistently. Under FUZZ_SANITIZE=address this is the fuzzing of CShims/COpenSSL.
func fuzzOne(_ input: [UInt8]) {
    if let signature = try? P256Signature(derRepresentation: input), signature.derRepresentation != input {
        fatalError("strict DER signature did not re-encode to the same bytes")
    }
    if let key = try? P256PrivateKey(derRepresentation: input) {
        guard (try? P256PrivateKey(rawRepresentation: key.rawRepresentation.bytes))?.publicKey == key.publicKey else {
            fatalError("decoded private key does not round-trip through its scalar")
        }
    }
    _ = try? P256PrivateKey(pemRepresentation: String(decoding: input, as: UTF8.self))
    if let key = try? P256PublicKey(x962Representation: input) {
        guard (try? P256PublicKey(x962Representation: key.x962Representation)) == key else {
            fatalError("public key does not round-trip through its 65-byte form")
        }
    }
    if let key = try? P256PublicKey(derRepresentation: input) {
        guard (try? P256PublicKey(derRepresentation: key.derRepresentation)) == key else {
            fatalError("public key does not round-trip through SubjectPublicKeyInfo")
        }
    }
    if let verifier = try? PASEVerifier(serialized: input), verifier.serialized.bytes != input {
        fatalError("PASE verifier does not re-serialize to the same bytes")
    }
    if input.count >= 65 {
        var device = deviceThatSentY
        _ = try? device.finish(X: Array(input.prefix(65)))
    }
    if let crl = try? CertificateRevocationList(derEncoded: input) {
        guard crl.derBytes == input else { fatalError("CRL did not keep the input bytes") }
        _ = crl.isSignatureValid(publicKey: fixedKey.publicKey)
        _ = crl.lists(serialNumber: Array(input.prefix(20)))
    }
    if let signature = try? P256Signature(derRepresentation: input) {
        _ = fixedKey.publicKey.isValidSignature(signature, for: input)
    }
    if input.count >= 64, let signature = try? P256Signature(rawRepresentation: Array(input.prefix(64))) {
        _ = fixedKey.publicKey.isValidSignature(signature, for: Array(input.dropFirst(64)))
    }
    if let peer = try? P256PublicKey(x962Representation: input) { _ = try? fixedKey.sharedSecret(with: peer) }
    _ = try? AESCCM.open(key: [UInt8](repeating: 1, count: 16), nonce: [UInt8](repeating: 2, count: 13),
                         ciphertextAndTag: input, additionalData: [])
}

/// A fixed key pair (scalar 0x11...11) to verify fuzzed signatures and CRLs and to do ECDH with.
let fixedKey = try! P256PrivateKey(rawRepresentation: [UInt8](repeating: 0x11, count: 32))

/// w0 = 1, L = G: a well-formed verifier for driving the SPAKE2+ verifier with fuzzed shares.
let fixedVerifier: [UInt8] = [UInt8](repeating: 0, count: 31) + [1] + [0x04]
    + [0x6b, 0x17, 0xd1, 0xf2, 0xe1, 0x2c, 0x42, 0x47, 0xf8, 0xbc, 0xe6, 0xe5, 0x63, 0xa4, 0x40, 0xf2,
       0x77, 0x03, 0x7d, 0x81, 0x2d, 0xeb, 0x33, 0xa0, 0xf4, 0xa1, 0x39, 0x45, 0xd8, 0x98, 0xc2, 0x96,
       0x4f, 0xe3, 0x42, 0xe2, 0xfe, 0x1a, 0x7f, 0x9b, 0x8e, 0xe7, 0xeb, 0x4a, 0x7c, 0x0f, 0x9e, 0x16,
       0x2b, 0xce, 0x33, 0x57, 0x6b, 0x31, 0x5e, 0xce, 0xcb, 0xb6, 0x40, 0x68, 0x37, 0xbf, 0x51, 0xf5]

/// A SPAKE2+ verifier past computeY, made once: every input's X is tried against a copy of it (the
/// state is a value), which keeps the per-input cost to the step the fuzzed bytes reach.
let deviceThatSentY: Spake2pVerifier = {
    var device = try! Spake2pVerifier(context: [], verifier: try! PASEVerifier(serialized: fixedVerifier))
    _ = try! device.computeY()
    return device
}()

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
