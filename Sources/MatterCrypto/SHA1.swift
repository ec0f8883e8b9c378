internal import COpenSSL

/// SHA-1 (FIPS 180-4), from OpenSSL. Broken for collision resistance: it exists only because the
/// WebSocket opening handshake (RFC 6455 section 4.2.2) defines `Sec-WebSocket-Accept` with it.
/// Never use it for anything that needs security.
public enum SHA1 {
    /// Digest length in bytes.
    public static let byteCount = 20

    /// The 20-byte digest of `data`.
    public static func hash(_ data: some Sequence<UInt8>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: byteCount)
        let ok = Array(data).withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { mh_sha1(input.baseAddress, input.count, $0.baseAddress) }
        }
        precondition(ok == 1, "OpenSSL SHA-1 unavailable")
        return out
    }
}
