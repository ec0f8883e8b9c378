import MatterCrypto
import Testing
import TestSupport

/// Seeded mutations of every byte form MatterCrypto decodes: each must decode or throw, never
/// trap, and a decoded mutation must not be mistaken for the original.
@Suite struct DecoderMutationTests {
    @Test func privateKeyDERAndPEM() throws {
        let key = P256PrivateKey()
        var rng = SeededRandom(seed: 0xC0FFEE)
        for original in [key.pkcs8DERRepresentation.bytes, key.sec1DERRepresentation.bytes] {
            for _ in 0..<300 {
                let mutated = Mutation.mutate(original, using: &rng)
                if let decoded = try? P256PrivateKey(derRepresentation: mutated), mutated != original {
                    // Only bytes OpenSSL ignores (e.g. inside the optional public key) may change.
                    #expect(decoded.publicKey.x962Representation.count == 65)
                }
            }
        }
        let pem = key.pemRepresentation.bytes
        for _ in 0..<200 {
            _ = try? P256PrivateKey(pemRepresentation: String(decoding: Mutation.mutate(pem, using: &rng), as: UTF8.self))
        }
    }

    @Test func publicKeysAndPoints() throws {
        let key = P256PrivateKey().publicKey
        var rng = SeededRandom(seed: 0xBEEF)
        for _ in 0..<500 {
            let mutated = Mutation.mutate(key.x962Representation, using: &rng)
            if let decoded = try? P256PublicKey(x962Representation: mutated) {
                // A flipped coordinate bit lands on the curve with negligible probability.
                #expect(mutated == key.x962Representation || mutated.count == 33 || decoded != key)
            }
            #expect(P256Point.isValid(mutated) == ((try? P256Point(x962: mutated)) != nil))
        }
        for _ in 0..<300 {
            let mutated = Mutation.mutate(key.derRepresentation, using: &rng)
            if mutated != key.derRepresentation, let decoded = try? P256PublicKey(derRepresentation: mutated) {
                #expect(decoded.x962Representation.count == 65)
            }
        }
    }

    @Test func paseVerifierAndSealedMessages() throws {
        let verifier = try PASEVerifier(passcode: 20202021, salt: [UInt8](repeating: 7, count: 16), iterations: 1000)
        let key = [UInt8](repeating: 9, count: 16), nonce = [UInt8](repeating: 1, count: 13)
        let sealed = try AESCCM.seal(key: key, nonce: nonce, plaintext: [UInt8](0..<50), additionalData: [1])
        var rng = SeededRandom(seed: 0xFACE)
        for _ in 0..<300 {
            let mutatedVerifier = Mutation.mutate(verifier.serialized.bytes, using: &rng)
            if let decoded = try? PASEVerifier(serialized: mutatedVerifier) {
                #expect(decoded.serialized.bytes == mutatedVerifier)
            }
            let mutatedSealed = Mutation.mutate(sealed, using: &rng)
            if mutatedSealed != sealed {
                #expect(throws: CryptoError.self) {
                    try AESCCM.open(key: key, nonce: nonce, ciphertextAndTag: mutatedSealed, additionalData: [1])
                }
            }
        }
    }
}
