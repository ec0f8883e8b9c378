import MatterCrypto
import Testing
import TestSupport

@Suite struct AESCCMTests {
    @Test(arguments: TestVectors.vectors("aes_ccm.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let key = try #require(v.bytes("key")), nonce = try #require(v.bytes("nonce"))
        let aad = try #require(v.bytes("aad")), pt = try #require(v.bytes("pt"))
        let ct = try #require(v.bytes("ct")), tag = try #require(v.bytes("tag"))
        let tagLength = v.int("tag_len") ?? tag.count
        if v.valid {
            #expect(try AESCCM.seal(key: key, nonce: nonce, plaintext: pt, additionalData: aad, tagLength: tagLength)
                == ct + tag)
            #expect(try AESCCM.open(key: key, nonce: nonce, ciphertextAndTag: ct + tag, additionalData: aad,
                                    tagLength: tagLength) == pt)
            // Any flipped bit in ciphertext, tag or AAD must fail authentication.
            var tampered = ct + tag
            tampered[tampered.count - 1] ^= 0x01
            #expect(throws: CryptoError.self) {
                try AESCCM.open(key: key, nonce: nonce, ciphertextAndTag: tampered, additionalData: aad, tagLength: tagLength)
            }
            #expect(throws: CryptoError.self) {
                try AESCCM.open(key: key, nonce: nonce, ciphertextAndTag: ct + tag, additionalData: aad + [0],
                                tagLength: tagLength)
            }
        } else {
            #expect(v.expectedError != nil)
            #expect(throws: CryptoError.self) {
                try AESCCM.open(key: key, nonce: nonce, ciphertextAndTag: ct + tag, additionalData: aad, tagLength: tagLength)
            }
        }
    }

    @Test func authenticationFailureHasItsOwnCode() throws {
        let key = [UInt8](repeating: 7, count: 16), nonce = [UInt8](repeating: 1, count: 13)
        var sealed = try AESCCM.seal(key: key, nonce: nonce, plaintext: [1, 2, 3], additionalData: [9])
        sealed[0] ^= 0x80
        do {
            _ = try AESCCM.open(key: key, nonce: nonce, ciphertextAndTag: sealed, additionalData: [9])
            Issue.record("tampered ciphertext decrypted")
        } catch {  // a CryptoError: the API throws only that
            #expect(error.code == .authenticationFailed)
        }
    }

    /// The SDK rejects nonce length 0 and tag length 13 (TestAES_CCM_128EncryptInvalidNonceLen /
    /// InvalidTagLen); CCM defines only nonces of 7...13 bytes, even tags of 4...16, 16-byte keys.
    @Test(arguments: [(16, 0, 16), (16, 6, 16), (16, 14, 16), (16, 13, 13), (16, 13, 2), (16, 13, 18), (15, 13, 16), (32, 13, 16)])
    func rejectsLengthsCCMDoesNotDefine(keyLength: Int, nonceLength: Int, tagLength: Int) {
        let key = [UInt8](repeating: 1, count: keyLength), nonce = [UInt8](repeating: 2, count: nonceLength)
        #expect(throws: CryptoError.self) {
            try AESCCM.seal(key: key, nonce: nonce, plaintext: [1], additionalData: [], tagLength: tagLength)
        }
        #expect(throws: CryptoError.self) {
            try AESCCM.open(key: key, nonce: nonce, ciphertextAndTag: [UInt8](repeating: 0, count: 20), additionalData: [],
                            tagLength: tagLength)
        }
    }

    @Test func shortInputIsRejectedNotTrapped() {
        #expect(throws: CryptoError.self) {
            try AESCCM.open(key: [UInt8](repeating: 1, count: 16), nonce: [UInt8](repeating: 2, count: 13),
                            ciphertextAndTag: [1, 2, 3], additionalData: [])
        }
    }
}

@Suite struct AESCTRTests {
    @Test(arguments: TestVectors.vectors("aes_ctr.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let key = try #require(v.bytes("key")), nonce = try #require(v.bytes("nonce"))
        let pt = try #require(v.bytes("pt")), ct = try #require(v.bytes("ct"))
        #expect((try AESCTR.apply(key: key, nonce: nonce, data: pt) == ct) == v.valid)
        #expect((try AESCTR.apply(key: key, nonce: nonce, data: ct) == pt) == v.valid)
    }

    @Test func matterCounterBlockMatchesExplicitForm() throws {
        let key = [UInt8](repeating: 3, count: 16), nonce = [UInt8](1...13), data = [UInt8](0..<40)
        let explicit = try AESCTR.apply(key: key, initialCounterBlock: [1] + nonce + [0, 1], data: data)
        #expect(try AESCTR.apply(key: key, nonce: nonce, data: data) == explicit)
        #expect(throws: CryptoError.self) { try AESCTR.apply(key: key, nonce: [1, 2], data: data) }
        #expect(throws: CryptoError.self) { try AESCTR.apply(key: [1], nonce: nonce, data: data) }
    }
}
