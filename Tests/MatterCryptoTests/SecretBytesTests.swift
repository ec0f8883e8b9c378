import MatterCrypto
import Testing
import TestSupport

@Suite struct SecretBytesTests {
    @Test func secretsPrintRedacted() throws {
        let secret = SecretBytes([0xDE, 0xAD, 0xBE, 0xEF])
        #expect("\(secret)" == "<redacted>")
        #expect(String(reflecting: secret) == "<redacted>")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(dumped.contains("<redacted>"))
        #expect(!dumped.contains("222") && !dumped.contains("173"))  // 0xDE, 0xAD as decimals

        let key = P256PrivateKey()
        let scalarHex = Hex.encode(key.rawRepresentation.bytes)
        for text in ["\(key)", "\(key.rawRepresentation)", String(reflecting: key.rawRepresentation),
                     "\(key.pkcs8DERRepresentation)"] {
            #expect(!text.contains(scalarHex))
            #expect(text.contains("<redacted>"))
        }
        let verifier = try PASEVerifier(passcode: 20202021, salt: [UInt8](repeating: 1, count: 16), iterations: 1000)
        #expect("\(verifier)" == "PASEVerifier(<redacted>)")
        #expect("\(verifier.serialized)" == "<redacted>")
    }

    @Test func errorsCarryNoKeyMaterial() {
        let key = [UInt8](repeating: 0xAB, count: 15)
        do {
            _ = try AESCCM.seal(key: key, nonce: [UInt8](repeating: 0, count: 13), plaintext: [], additionalData: [])
            Issue.record("15-byte key accepted")
        } catch {  // a CryptoError: seal throws only that
            #expect(error.code == .invalidArgument)
            #expect(!"\(error)".lowercased().contains("abab"))
            #expect(!"\(error)".contains("171"))
        }
    }

    @Test func equalityAndRandomness() {
        #expect(SecretBytes([1, 2]) == SecretBytes([1, 2]))
        #expect(SecretBytes([1, 2]) != SecretBytes([1, 3]))
        #expect(SecretBytes([1, 2]) != SecretBytes([1, 2, 3]))
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
        #expect(SecureRandom.bytes(0).isEmpty)
        var seeded = GeneratorRandomSource(SeededRandom(seed: 9)), again = GeneratorRandomSource(SeededRandom(seed: 9))
        #expect(seeded.bytes(16) == again.bytes(16))
    }
}
