/// A Matter PASE verifier: what a device stores instead of its passcode (Matter Core 3.10 and
/// 5.1.1.6). Serialized as w0 (32 bytes) || L (65 bytes), e.g. in OpenCommissioningWindow.
public struct PASEVerifier: Sendable, Hashable, CustomStringConvertible {
    /// PBKDF2 iteration counts Matter allows.
    public static let iterationRange = 1000...100_000
    /// PBKDF2 salt lengths Matter allows.
    public static let saltLengthRange = 16...32
    /// Passcodes are 27-bit values.
    public static let maximumPasscode: UInt32 = (1 << 27) - 1
    /// Length of `serialized`.
    public static let serializedByteCount = 97

    /// w0, 32 bytes.
    public let w0: SecretBytes
    /// L = w1·G, 65 bytes uncompressed.
    public let L: [UInt8]

    /// A verifier from its parts.
    /// - Throws: `CryptoError.invalidArgument` for a w0 that is not a 32-byte scalar below n,
    ///   `.invalidPoint` for an L that is not a 65-byte curve point.
    public init(w0: SecretBytes, L: [UInt8]) throws(CryptoError) {
        _ = try P256Scalar(bytes: w0.bytes)
        guard L.count == 65, L.first == 0x04 else {
            throw CryptoError.length("PASE verifier L", is: L.count, expected: "65 (uncompressed point)")
        }
        _ = try P256Point(x962: L)
        self.w0 = w0
        self.L = L
    }

    /// A verifier from its 97-byte serialized form w0 || L.
    public init(serialized: [UInt8]) throws(CryptoError) {
        guard serialized.count == Self.serializedByteCount else {
            throw CryptoError.length("PASE verifier", is: serialized.count, expected: "97")
        }
        try self.init(w0: SecretBytes(Array(serialized.prefix(32))), L: Array(serialized.suffix(65)))
    }

    /// The verifier for a passcode under the given PBKDF parameters.
    public init(passcode: UInt32, salt: [UInt8], iterations: Int) throws(CryptoError) {
        let derived = try Self.derive(passcode: passcode, salt: salt, iterations: iterations)
        try self.init(w0: derived.w0, L: derived.L)
    }

    /// w0 || L, 97 bytes (secret: it lets anyone impersonate the device).
    public var serialized: SecretBytes { SecretBytes(w0.bytes + L) }

    public var description: String { "PASEVerifier(<redacted>)" }

    /// Checks PBKDF parameters against Matter's bounds.
    /// - Throws: `CryptoError.invalidPAKEParameters`.
    public static func validate(passcode: UInt32, salt: [UInt8], iterations: Int) throws(CryptoError) {
        guard passcode <= maximumPasscode else {
            throw CryptoError(.invalidPAKEParameters, "passcode does not fit in 27 bits")
        }
        guard saltLengthRange.contains(salt.count) else {
            throw CryptoError(.invalidPAKEParameters, "PBKDF salt is \(salt.count) bytes; Matter requires 16...32")
        }
        guard iterationRange.contains(iterations) else {
            throw CryptoError(.invalidPAKEParameters, "PBKDF iteration count \(iterations) is outside 1000...100000")
        }
    }

    /// Derives the prover's (w0, w1) and the verifier's L from a passcode:
    /// w0s || w1s = PBKDF2-HMAC-SHA256(passcode as 4-byte little-endian, salt, iterations, 80);
    /// w0 = w0s mod n, w1 = w1s mod n (40-byte big-endian halves); L = w1·G.
    /// - Throws: `CryptoError.invalidPAKEParameters` when the passcode, salt or iteration count
    ///   is outside Matter's bounds.
    public static func derive(passcode: UInt32, salt: [UInt8], iterations: Int) throws(CryptoError)
        -> (w0: SecretBytes, w1: SecretBytes, L: [UInt8])
    {
        try validate(passcode: passcode, salt: salt, iterations: iterations)
        return try deriveUnchecked(passcode: passcode, salt: salt, iterations: iterations)
    }

    /// `derive` without Matter's parameter bounds, for checking vectors built with
    /// out-of-range parameters.
    package static func deriveUnchecked(passcode: UInt32, salt: [UInt8], iterations: Int) throws(CryptoError)
        -> (w0: SecretBytes, w1: SecretBytes, L: [UInt8])
    {
        let password = (0..<4).map { UInt8(truncatingIfNeeded: passcode >> (8 * $0)) }
        let ws = try PBKDF2.deriveKey(password: password, salt: salt, iterations: iterations, outputByteCount: 80)
        let w0 = try P256Scalar(reducing: Array(ws.prefix(40)))
        let w1 = try P256Scalar(reducing: Array(ws.suffix(40)))
        let L = try P256Point.baseMultiple(w1)
        return (SecretBytes(w0.bytes), SecretBytes(w1.bytes), L.x962)
    }
}
