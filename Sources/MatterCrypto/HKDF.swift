internal import COpenSSL

/// HKDF with SHA-256 (RFC 5869), extract-then-expand.
public enum HKDF {
    /// The largest output RFC 5869 allows for SHA-256 (255 blocks).
    public static let maximumOutputByteCount = 255 * 32

    /// Derives `outputByteCount` bytes. An empty `salt` means 32 zero bytes (RFC 5869 2.2).
    /// - Throws: `CryptoError.invalidArgument` when `outputByteCount` is not in
    ///   1...`maximumOutputByteCount`.
    public static func deriveKey(inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8],
                                 outputByteCount: Int) throws(CryptoError) -> [UInt8] {
        guard (1...maximumOutputByteCount).contains(outputByteCount) else {
            throw CryptoError(.invalidArgument, "HKDF output length \(outputByteCount) is not in 1...\(maximumOutputByteCount)")
        }
        var out = [UInt8](repeating: 0, count: outputByteCount)
        let ok = inputKeyMaterial.withUnsafeBufferPointer { ikm in
            salt.withUnsafeBufferPointer { s in
                info.withUnsafeBufferPointer { i in
                    out.withUnsafeMutableBufferPointer {
                        mh_hkdf_sha256(ikm.baseAddress, ikm.count, s.baseAddress, s.count, i.baseAddress, i.count,
                                       $0.baseAddress, $0.count)
                    }
                }
            }
        }
        guard ok == 1 else { throw CryptoError.backend("HKDF") }
        return out
    }
}
