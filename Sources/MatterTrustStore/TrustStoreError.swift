/// The one error type of MatterTrustStore: a stable code, what failed, and what to do.
public struct TrustStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The DCL (or a CRL distribution point) could not be reached or did not answer 200.
        public static let unreachable = Code(rawValue: "unreachable")
        /// A response was larger than the limit for its kind.
        public static let responseTooLarge = Code(rawValue: "response_too_large")
        /// A response was not the JSON document (or CRL) the DCL's API defines.
        public static let responseInvalid = Code(rawValue: "response_invalid")
        /// A file of the store could not be read or written.
        public static let storage = Code(rawValue: "storage")
        /// A certificate given by the user is not a usable PAA.
        public static let invalidCertificate = Code(rawValue: "invalid_certificate")
        /// No certificate in the store has the given subject key identifier.
        public static let notFound = Code(rawValue: "not_found")
        /// An argument is malformed (a URL, a key identifier).
        public static let invalidArgument = Code(rawValue: "invalid_argument")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
