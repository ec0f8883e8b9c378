internal import COpenSSL

/// AES-128 in CCM mode (RFC 3610, NIST SP 800-38C). Matter uses a 13-byte nonce and a 16-byte
/// tag; other lengths CCM defines are accepted for completeness.
public enum AESCCM {
    /// Nonce lengths CCM defines (15 - L for L in 2...8).
    public static let nonceLengthRange = 7...13
    /// Tag lengths CCM defines: even values in 4...16.
    public static let tagLengths: Set<Int> = [4, 6, 8, 10, 12, 14, 16]

    /// Encrypts and authenticates; returns ciphertext || tag.
    /// - Throws: `CryptoError.invalidArgument` for a key that is not 16 bytes, or a nonce or tag
    ///   length CCM does not define.
    public static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], additionalData: [UInt8],
                            tagLength: Int = 16) throws(CryptoError) -> [UInt8] {
        try validate(key: key, nonce: nonce, tagLength: tagLength)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagLength)
        let ok = key.withUnsafeBufferPointer { k in
            nonce.withUnsafeBufferPointer { n in
                additionalData.withUnsafeBufferPointer { a in
                    plaintext.withUnsafeBufferPointer { p in
                        ciphertext.withUnsafeMutableBufferPointer { c in
                            tag.withUnsafeMutableBufferPointer { t in
                                mh_aes128_ccm_seal(k.baseAddress, n.baseAddress, n.count, a.baseAddress, a.count,
                                                   p.baseAddress, p.count, c.baseAddress, t.baseAddress, t.count)
                            }
                        }
                    }
                }
            }
        }
        guard ok == 1 else { throw CryptoError.backend("AES-CCM encryption") }
        return ciphertext + tag
    }

    /// Verifies and decrypts ciphertext || tag.
    /// - Throws: `CryptoError.authenticationFailed` when the tag does not verify (nothing is
    ///   returned); `CryptoError.invalidArgument` for bad lengths.
    public static func open(key: [UInt8], nonce: [UInt8], ciphertextAndTag: [UInt8], additionalData: [UInt8],
                            tagLength: Int = 16) throws(CryptoError) -> [UInt8] {
        try validate(key: key, nonce: nonce, tagLength: tagLength)
        guard ciphertextAndTag.count >= tagLength else {
            throw CryptoError.length("AES-CCM ciphertext", is: ciphertextAndTag.count, expected: "at least the tag length \(tagLength)")
        }
        let ciphertext = Array(ciphertextAndTag.dropLast(tagLength))
        let tag = Array(ciphertextAndTag.suffix(tagLength))
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        let result = key.withUnsafeBufferPointer { k in
            nonce.withUnsafeBufferPointer { n in
                additionalData.withUnsafeBufferPointer { a in
                    ciphertext.withUnsafeBufferPointer { c in
                        tag.withUnsafeBufferPointer { t in
                            plaintext.withUnsafeMutableBufferPointer { p in
                                mh_aes128_ccm_open(k.baseAddress, n.baseAddress, n.count, a.baseAddress, a.count,
                                                   c.baseAddress, c.count, t.baseAddress, t.count, p.baseAddress)
                            }
                        }
                    }
                }
            }
        }
        switch result {
        case 1: return plaintext
        case 0: throw CryptoError(.authenticationFailed, "AES-CCM tag does not verify")
        default: throw CryptoError.backend("AES-CCM decryption")
        }
    }

    private static func validate(key: [UInt8], nonce: [UInt8], tagLength: Int) throws(CryptoError) {
        guard key.count == 16 else { throw CryptoError.length("AES-128 key", is: key.count, expected: "16") }
        guard nonceLengthRange.contains(nonce.count) else {
            throw CryptoError.length("AES-CCM nonce", is: nonce.count, expected: "7...13")
        }
        guard tagLengths.contains(tagLength) else {
            throw CryptoError(.invalidArgument, "AES-CCM tag length \(tagLength) is not an even number in 4...16")
        }
    }
}
