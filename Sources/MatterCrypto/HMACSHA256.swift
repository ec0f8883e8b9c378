internal import COpenSSL

/// HMAC with SHA-256 (RFC 2104).
public enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key` (any key length, including empty).
    public static func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let ok = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer {
                    mh_hmac_sha256(k.baseAddress, k.count, m.baseAddress, m.count, $0.baseAddress)
                }
            }
        }
        precondition(ok == 1, "OpenSSL HMAC-SHA256 unavailable")
        return out
    }

    /// `true` when `mac` is the MAC of `message` under `key`, compared in constant time.
    public static func isValidAuthenticationCode(_ mac: [UInt8], key: [UInt8], message: [UInt8]) -> Bool {
        ConstantTime.equals(authenticate(key: key, message: message), mac)
    }
}
