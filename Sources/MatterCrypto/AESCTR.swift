internal import COpenSSL

/// AES-128 in counter mode, as Matter message privacy uses it (Matter Core 4.9.3).
public enum AESCTR {
    /// Encrypts or decrypts (the same operation) with a CCM-style counter: the initial block
    /// is `flags || nonce || counter` where the counter field fills the rest of the 16 bytes
    /// and starts at 1 (CCM's A_1). For Matter's 13-byte nonce that is `0x01 || nonce || 0x0001`.
    /// - Throws: `CryptoError.invalidArgument` for a key that is not 16 bytes or a nonce
    ///   outside 7...13 bytes.
    public static func apply(key: [UInt8], nonce: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard AESCCM.nonceLengthRange.contains(nonce.count) else {
            throw CryptoError.length("AES-CTR nonce", is: nonce.count, expected: "7...13")
        }
        let counterLength = 15 - nonce.count
        var block = [UInt8(counterLength - 1)] + nonce + [UInt8](repeating: 0, count: counterLength)
        block[15] = 1
        return try apply(key: key, initialCounterBlock: block, data: data)
    }

    /// Encrypts or decrypts with an explicit 16-byte initial counter block (incremented as a
    /// 128-bit big-endian integer).
    public static func apply(key: [UInt8], initialCounterBlock iv: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == 16 else { throw CryptoError.length("AES-128 key", is: key.count, expected: "16") }
        guard iv.count == 16 else { throw CryptoError.length("AES-CTR counter block", is: iv.count, expected: "16") }
        var out = [UInt8](repeating: 0, count: data.count)
        let ok = key.withUnsafeBufferPointer { k in
            iv.withUnsafeBufferPointer { i in
                data.withUnsafeBufferPointer { d in
                    out.withUnsafeMutableBufferPointer {
                        mh_aes128_ctr(k.baseAddress, i.baseAddress, d.baseAddress, d.count, $0.baseAddress)
                    }
                }
            }
        }
        guard ok == 1 else { throw CryptoError.backend("AES-CTR") }
        return out
    }
}
