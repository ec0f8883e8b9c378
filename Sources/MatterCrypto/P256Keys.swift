internal import COpenSSL

/// Owns an OpenSSL `EVP_PKEY`. Keys are never mutated after creation, and OpenSSL allows
/// concurrent read-only use of one key from several threads, so sharing is safe.
final class PKeyHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { mh_pkey_free(pointer) }
}

/// A P-256 (secp256r1) private key for ECDSA-SHA256 and ECDH.
public struct P256PrivateKey: Sendable, CustomStringConvertible {
    let handle: PKeyHandle
    /// The matching public key.
    public let publicKey: P256PublicKey

    /// A fresh random key pair.
    public init() {
        guard let pkey = mh_p256_generate() else { preconditionFailure("OpenSSL P-256 key generation failed") }
        do {
            try self.init(handle: PKeyHandle(pkey))
        } catch {
            preconditionFailure("OpenSSL produced an unusable P-256 key")
        }
    }

    /// A key from its 32-byte big-endian scalar, which must be in 1...n-1. Leading zero bytes
    /// beyond 32 are tolerated (some encoders emit an ASN.1-style 33-byte form).
    /// - Throws: `CryptoError.invalidKey`.
    public init(rawRepresentation: [UInt8]) throws(CryptoError) {
        var scalar = rawRepresentation
        while scalar.count > 32, scalar.first == 0 { scalar.removeFirst() }
        guard scalar.count == 32 else {
            throw CryptoError(.invalidKey, "P-256 private key is \(rawRepresentation.count) bytes; expected 32")
        }
        guard let pkey = scalar.withUnsafeBufferPointer({ mh_p256_from_private($0.baseAddress) }) else {
            throw CryptoError(.invalidKey, "P-256 private scalar is zero or not below the group order")
        }
        try self.init(handle: PKeyHandle(pkey))
    }

    /// A key from DER: PKCS#8 `PrivateKeyInfo` or SEC1 `ECPrivateKey` (RFC 5915), named curve P-256.
    /// - Throws: `CryptoError.invalidKey`.
    public init(derRepresentation: [UInt8]) throws(CryptoError) {
        try self.init(decoding: derRepresentation, format: "DER")
    }

    /// A key from PEM: `-----BEGIN PRIVATE KEY-----` (PKCS#8) or `-----BEGIN EC PRIVATE KEY-----` (SEC1).
    /// - Throws: `CryptoError.invalidKey`.
    public init(pemRepresentation: String) throws(CryptoError) {
        try self.init(decoding: Array(pemRepresentation.utf8), format: "PEM")
    }

    /// A key from PKCS#8 DER (an alias of `init(derRepresentation:)`, which also accepts SEC1).
    public init(pkcs8DER: [UInt8]) throws(CryptoError) { try self.init(derRepresentation: pkcs8DER) }

    private init(decoding data: [UInt8], format: String) throws(CryptoError) {
        guard let pkey = data.withUnsafeBufferPointer({ mh_p256_decode_private($0.baseAddress, $0.count, format) }) else {
            throw CryptoError(.invalidKey, "not a P-256 private key in \(format) (PKCS#8 or SEC1)")
        }
        try self.init(handle: PKeyHandle(pkey))
    }

    private init(handle: PKeyHandle) throws(CryptoError) {
        self.handle = handle
        publicKey = try P256PublicKey(handle: handle)
    }

    /// The 32-byte big-endian private scalar.
    public var rawRepresentation: SecretBytes {
        SecretBytes(exportBytes(count: 32) { mh_p256_private_bytes(handle.pointer, $0) })
    }

    /// PKCS#8 `PrivateKeyInfo`, DER.
    public var pkcs8DERRepresentation: SecretBytes { SecretBytes(encode("PrivateKeyInfo", "DER")) }
    /// SEC1 `ECPrivateKey` (RFC 5915), DER, with the named curve and public key.
    public var sec1DERRepresentation: SecretBytes { SecretBytes(encode("type-specific", "DER")) }
    /// PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    public var pemRepresentation: SecretBytes { SecretBytes(encode("PrivateKeyInfo", "PEM")) }

    /// An ECDSA-SHA256 signature of `message` (randomised k).
    public func signature(for message: [UInt8]) throws(CryptoError) -> P256Signature {
        var der = [UInt8](repeating: 0, count: 80)
        var length = der.count
        let ok = message.withUnsafeBufferPointer { m in
            der.withUnsafeMutableBufferPointer { mh_ecdsa_sign(handle.pointer, m.baseAddress, m.count, $0.baseAddress, &length) }
        }
        guard ok == 1 else { throw CryptoError.backend("ECDSA signing") }
        return try P256Signature(derRepresentation: Array(der.prefix(length)))
    }

    /// ECDH: the 32-byte x-coordinate of d·Q.
    public func sharedSecret(with peer: P256PublicKey) throws(CryptoError) -> SecretBytes {
        var out = [UInt8](repeating: 0, count: 32)
        let ok = out.withUnsafeMutableBufferPointer { mh_ecdh(handle.pointer, peer.handle.pointer, $0.baseAddress) }
        guard ok == 1 else { throw CryptoError(.invalidKey, "ECDH with this peer key failed") }
        return SecretBytes(out)
    }

    public var description: String { "P256PrivateKey(<redacted>)" }

    private func encode(_ structure: String, _ format: String) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard mh_pkey_encode(handle.pointer, structure, format, 1, &out, &length) == 1, let out else {
            preconditionFailure("OpenSSL could not encode a valid P-256 key as \(structure) \(format)")
        }
        defer { mh_cleanse(out, length); mh_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }
}

/// A P-256 public key. Its fixed form is the 65-byte uncompressed SEC1 point.
public struct P256PublicKey: Sendable, Hashable, CustomStringConvertible {
    let handle: PKeyHandle
    /// `04 || X || Y`, 65 bytes.
    public let x962Representation: [UInt8]

    /// A key from a SEC1 point: 65-byte uncompressed or 33-byte compressed, on the curve.
    /// - Throws: `CryptoError.invalidKey`.
    public init(x962Representation bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count == 65 || bytes.count == 33 else {
            throw CryptoError(.invalidKey, "P-256 public key is \(bytes.count) bytes; expected 65 (or 33 compressed)")
        }
        guard let pkey = bytes.withUnsafeBufferPointer({ mh_p256_from_public($0.baseAddress, $0.count) }) else {
            throw CryptoError(.invalidKey, "P-256 public key is not a point on the curve")
        }
        try self.init(handle: PKeyHandle(pkey))
    }

    /// A key from a DER `SubjectPublicKeyInfo` with the named curve P-256.
    public init(derRepresentation: [UInt8]) throws(CryptoError) {
        guard let pkey = derRepresentation.withUnsafeBufferPointer({ mh_p256_decode_spki($0.baseAddress, $0.count) }) else {
            throw CryptoError(.invalidKey, "not a P-256 SubjectPublicKeyInfo")
        }
        try self.init(handle: PKeyHandle(pkey))
    }

    init(handle: PKeyHandle) throws(CryptoError) {
        self.handle = handle
        x962Representation = exportBytes(count: 65) { mh_p256_public_bytes(handle.pointer, $0) }
        guard x962Representation.count == 65 else { throw CryptoError(.invalidKey, "P-256 public key unreadable") }
    }

    /// DER `SubjectPublicKeyInfo`.
    public var derRepresentation: [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard mh_pkey_encode(handle.pointer, "SubjectPublicKeyInfo", "DER", 0, &out, &length) == 1, let out else {
            preconditionFailure("OpenSSL could not encode a valid P-256 public key")
        }
        defer { mh_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }

    /// `true` when `signature` is a valid ECDSA-SHA256 signature of `message` under this key.
    public func isValidSignature(_ signature: P256Signature, for message: [UInt8]) -> Bool {
        let der = signature.derRepresentation
        let result = message.withUnsafeBufferPointer { m in
            der.withUnsafeBufferPointer { mh_ecdsa_verify(handle.pointer, m.baseAddress, m.count, $0.baseAddress, $0.count) }
        }
        return result == 1
    }

    public static func == (lhs: P256PublicKey, rhs: P256PublicKey) -> Bool {
        lhs.x962Representation == rhs.x962Representation
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(x962Representation) }

    public var description: String {
        "P256PublicKey(" + x962Representation.map { String($0, radix: 16).leftPadded(to: 2) }.joined() + ")"
    }
}

/// Runs an exporter that writes exactly `count` bytes; returns [] when it fails.
func exportBytes(count: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int32) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: count)
    let ok = out.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    return ok == 1 ? out : []
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
