internal import COpenSSL

/// PBKDF2 with HMAC-SHA256 (RFC 8018 5.2).
public enum PBKDF2 {
    /// Generic PBKDF2: any password and salt (even empty), at least one iteration.
    /// - Throws: `CryptoError.invalidArgument` for zero iterations or output length.
    public static func deriveKey(password: [UInt8], salt: [UInt8], iterations: Int,
                                 outputByteCount: Int) throws(CryptoError) -> [UInt8] {
        guard iterations >= 1 else {
            throw CryptoError(.invalidArgument, "PBKDF2 iteration count \(iterations) must be at least 1")
        }
        guard outputByteCount >= 1 else {
            throw CryptoError(.invalidArgument, "PBKDF2 output length \(outputByteCount) must be at least 1")
        }
        var out = [UInt8](repeating: 0, count: outputByteCount)
        let ok = password.withUnsafeBufferPointer { p in
            salt.withUnsafeBufferPointer { s in
                out.withUnsafeMutableBufferPointer {
                    mh_pbkdf2_sha256(p.baseAddress, p.count, s.baseAddress, s.count, UInt64(iterations),
                                     $0.baseAddress, $0.count)
                }
            }
        }
        guard ok == 1 else { throw CryptoError.backend("PBKDF2") }
        return out
    }

    /// Salt lengths the Matter PBKDF2 contract accepts (Matter Core 3.9, PBKDF salt).
    public static let matterSaltLengthRange = 16...32

    /// PBKDF2 under Matter's argument rules, as the connectedhomeip crypto API enforces them:
    /// a non-empty password and a salt of 16...32 bytes. Use this for anything Matter-facing.
    /// - Throws: `CryptoError.invalidArgument` when a rule is broken.
    public static func deriveMatterKey(password: [UInt8], salt: [UInt8], iterations: Int,
                                       outputByteCount: Int) throws(CryptoError) -> [UInt8] {
        guard !password.isEmpty else { throw CryptoError(.invalidArgument, "PBKDF2 password is empty") }
        guard matterSaltLengthRange.contains(salt.count) else {
            throw CryptoError.length("PBKDF2 salt", is: salt.count, expected: "16...32")
        }
        return try deriveKey(password: password, salt: salt, iterations: iterations, outputByteCount: outputByteCount)
    }
}
