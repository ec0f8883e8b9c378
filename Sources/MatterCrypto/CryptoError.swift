/// The one error type of MatterCrypto: a stable code plus a human message.
///
/// Messages describe what was wrong with the input (a length, a range) and never contain key
/// material, shared secrets or plaintext.
public struct CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable error code. Unknown codes round-trip through `rawValue`.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// An argument has the wrong length or is out of range.
        public static let invalidArgument = Code(rawValue: "invalid_argument")
        /// A private or public key is malformed, not on P-256, or out of range.
        public static let invalidKey = Code(rawValue: "invalid_key")
        /// A point encoding is malformed or not on the curve.
        public static let invalidPoint = Code(rawValue: "invalid_point")
        /// A computation produced the point at infinity, which has no fixed-size encoding.
        public static let pointAtInfinity = Code(rawValue: "point_at_infinity")
        /// A signature encoding is malformed.
        public static let invalidSignature = Code(rawValue: "invalid_signature")
        /// An AEAD tag did not verify.
        public static let authenticationFailed = Code(rawValue: "authentication_failed")
        /// PASE parameters (passcode, salt, iterations) are outside what Matter allows.
        public static let invalidPAKEParameters = Code(rawValue: "invalid_pake_parameters")
        /// A state machine was driven out of order.
        public static let invalidState = Code(rawValue: "invalid_state")
        /// The TLS peer's certificate did not verify against the trusted CAs (expired, unknown
        /// issuer, self-signed, ...); the message carries OpenSSL's verify result.
        public static let certificateUntrusted = Code(rawValue: "certificate_untrusted")
        /// The TLS peer's certificate is valid but issued for another host name or address.
        public static let hostNameMismatch = Code(rawValue: "host_name_mismatch")
        /// A TLS handshake, read or write failed: a protocol error, a reset or closed connection.
        public static let tlsFailed = Code(rawValue: "tls_failed")
        /// A TLS handshake, read or write made no progress within the socket's timeout.
        public static let timedOut = Code(rawValue: "timed_out")
        /// OpenSSL reported a failure that the inputs do not explain.
        public static let backendFailure = Code(rawValue: "backend_failure")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    static func backend(_ operation: String) -> CryptoError {
        CryptoError(.backendFailure, "OpenSSL failed in \(operation)")
    }

    static func length(_ what: String, is count: Int, expected: String) -> CryptoError {
        CryptoError(.invalidArgument, "\(what) is \(count) bytes; expected \(expected)")
    }
}
