import MatterCrypto
import Testing
import TestSupport

@Suite struct HKDFTests {
    @Test(arguments: TestVectors.vectors("hkdf.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let ikm = try #require(v.bytes("ikm"))
        let salt = v.bytes("salt") ?? []
        let info = try #require(v.bytes("info"))
        let length = try #require(v.int("length"))
        guard v.valid else {
            #expect(throws: CryptoError.self) {
                try HKDF.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, outputByteCount: length)
            }
            return
        }
        // Either the whole OKM, or (Matter session keys) its named consecutive parts.
        let parts = ["i2r_key", "r2i_key", "attestation_challenge"].compactMap { v.bytes($0) }
        let expected = try #require(v.bytes("okm") ?? (parts.isEmpty ? nil : parts.flatMap { $0 }))
        #expect(expected.count == length)
        let okm = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, outputByteCount: length)
        #expect(okm == expected)
    }

    @Test func rejectsOutputLengthsRFC5869Forbids() {
        for length in [0, -1, 255 * 32 + 1] {
            #expect(throws: CryptoError.self) {
                try HKDF.deriveKey(inputKeyMaterial: [1], salt: [], info: [], outputByteCount: length)
            }
        }
    }

    @Test func emptyInputKeyMaterialIsAllowed() throws {
        // RFC 5869 permits an empty IKM; PRK = HMAC(zeros, ""), which OpenSSL's HKDF refuses.
        let okm = try HKDF.deriveKey(inputKeyMaterial: [], salt: [], info: [], outputByteCount: 32)
        let prk = HMACSHA256.authenticate(key: [UInt8](repeating: 0, count: 32), message: [])
        #expect(okm == HMACSHA256.authenticate(key: prk, message: [1]))
    }
}

@Suite struct PBKDF2Tests {
    /// Password and salt as the SDK passes them: the ASCII/hex bytes, cut to `*_len` when
    /// that is shorter; a JSON null is an absent (empty) buffer.
    private func argument(_ v: Vector, _ name: String) -> [UInt8] {
        let bytes = v.bytes(name) ?? []
        guard let length = v.int(name + "_len"), length < bytes.count else { return bytes }
        return Array(bytes.prefix(length))
    }

    @Test(arguments: TestVectors.vectors("pbkdf2.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let password = argument(v, "password"), salt = argument(v, "salt")
        let iterations = try #require(v.int("iterations"))
        let length = try #require(v.int("key_len"))
        if v.valid {
            let expected = try #require(v.bytes("dk"))
            #expect(try PBKDF2.deriveKey(password: password, salt: salt, iterations: iterations,
                                         outputByteCount: length) == expected)
            // Inputs within Matter's rules give the same key through the Matter wrapper.
            if !password.isEmpty, PBKDF2.matterSaltLengthRange.contains(salt.count) {
                #expect(try PBKDF2.deriveMatterKey(password: password, salt: salt, iterations: iterations,
                                                   outputByteCount: length) == expected)
            }
        } else {
            // The invalid vectors encode the SDK/Matter argument contract (see the file's notes).
            #expect(v.expectedError != nil)
            #expect(throws: CryptoError.self) {
                try PBKDF2.deriveMatterKey(password: password, salt: salt, iterations: iterations,
                                           outputByteCount: length)
            }
        }
    }

    @Test func genericRejectsZeroIterationsAndLength() {
        #expect(throws: CryptoError.self) { try PBKDF2.deriveKey(password: [1], salt: [], iterations: 0, outputByteCount: 32) }
        #expect(throws: CryptoError.self) { try PBKDF2.deriveKey(password: [1], salt: [], iterations: 1, outputByteCount: 0) }
    }
}
