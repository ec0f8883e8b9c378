internal import COpenSSL

/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    /// Digest length in bytes.
    public static let byteCount = 32

    /// The 32-byte digest of `data`.
    public static func hash(_ data: some Sequence<UInt8>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: byteCount)
        let ok = Array(data).withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { mh_sha256(input.baseAddress, input.count, $0.baseAddress) }
        }
        precondition(ok == 1, "OpenSSL SHA-256 unavailable")
        return out
    }

    /// An incremental SHA-256 computation. Copies are independent (copy-on-write).
    public struct Hasher: Sendable {
        private var context: DigestContext

        public init() { context = DigestContext() }

        /// Absorbs more input.
        public mutating func update(_ data: some Sequence<UInt8>) {
            if !isKnownUniquelyReferenced(&context) { context = context.copy() }
            let bytes = Array(data)
            let ok = bytes.withUnsafeBufferPointer { mh_sha256_update(context.pointer, $0.baseAddress, $0.count) }
            precondition(ok == 1, "OpenSSL SHA-256 update failed")
        }

        /// The digest of everything absorbed so far; the hasher can keep absorbing afterwards.
        public func finalize() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: SHA256.byteCount)
            let ok = out.withUnsafeMutableBufferPointer { mh_sha256_final(context.pointer, $0.baseAddress) }
            precondition(ok == 1, "OpenSSL SHA-256 final failed")
            return out
        }
    }
}

/// Owns an `EVP_MD_CTX`. It is only mutated through a uniquely referenced `Hasher`, so sharing
/// it between threads for reading (finalize copies it) is safe.
final class DigestContext: @unchecked Sendable {
    let pointer: OpaquePointer

    init() {
        guard let ctx = mh_sha256_new() else { preconditionFailure("OpenSSL SHA-256 unavailable") }
        pointer = ctx
    }

    private init(pointer: OpaquePointer) { self.pointer = pointer }

    func copy() -> DigestContext {
        guard let ctx = mh_sha256_copy(pointer) else { preconditionFailure("OpenSSL SHA-256 copy failed") }
        return DigestContext(pointer: ctx)
    }

    deinit { mh_sha256_free(pointer) }
}
