import MatterTLV

/// Why a certificate, CSR or certificate chain was rejected. The one error type of
/// MatterCertificates: every case has a stable `code` and a human `description`; none carries
/// secret material.
public enum CertificateError: Error, Hashable, Sendable {
    // MARK: DER (X.690) structure
    /// The input ended inside an element that starts at `offset`.
    case derTruncated(offset: Int)
    /// An indefinite length (0x80) was used; DER allows definite lengths only.
    case derIndefiniteLength(offset: Int)
    /// A length or tag number was not written in the shortest form DER requires.
    case derNonMinimalEncoding(offset: Int)
    /// A length does not fit the input or the implementation limits.
    case derLengthTooLarge(offset: Int)
    /// Bytes remain after the outermost element (or after an encapsulated value).
    case derTrailingBytes(offset: Int)
    /// Constructed elements nest deeper than the parser's limit.
    case derDepthLimitExceeded(limit: Int)
    /// A different element was found where the schema expects `expected`.
    case derUnexpectedElement(expected: String, found: String)
    /// A primitive value is not a valid DER encoding of its type.
    case derInvalidValue(String)

    // MARK: X.509 content
    /// Only X.509 v3 certificates (version field 2) are supported.
    case unsupportedVersion(Int)
    /// The signature algorithm is not ECDSA with SHA-256, or the two algorithm fields differ.
    case unsupportedSignatureAlgorithm(String)
    /// The public key is not an EC public key.
    case unsupportedPublicKeyAlgorithm(String)
    /// The curve is not P-256 (prime256v1).
    case unsupportedCurve(String)
    /// The public key is not a 65-byte uncompressed P-256 point.
    case invalidPublicKey
    /// An extension is malformed or violates the Matter profile (name, reason).
    case invalidExtension(String, String)
    /// The same extension appears twice.
    case duplicateExtension(String)
    /// The validity period is malformed or not-before is not before not-after.
    case invalidValidity(String)
    /// A distinguished name is malformed or holds an unsupported attribute.
    case invalidName(String)
    /// The certificate is larger than Matter allows.
    case certificateTooLarge(size: Int, limit: Int)

    // MARK: Matter TLV form
    /// The TLV bytes do not decode (see the underlying TLV error).
    case tlv(TLVError)
    /// A field of the Matter TLV certificate is missing, out of order, or of the wrong type.
    case malformedField(String, String)
    /// A matter-node-id is outside the operational node ID range.
    case invalidNodeID(UInt64)
    /// A matter-fabric-id is 0.
    case invalidFabricID
    /// A CASE Authenticated Tag has version 0.
    case invalidCASEAuthenticatedTag(UInt32)
    /// The subject DN does not identify one certificate type (root, ICA, node, firmware signing).
    case invalidCertificateType(String)
    /// The DER certificate cannot be represented as a Matter TLV certificate exactly.
    case notMatterCompatible(String)

    // MARK: Chain validation
    /// The signature does not verify with the issuer's public key.
    case signatureInvalid(String)
    /// A certificate has the wrong role for its place in the chain (expected, found).
    case wrongCertificateRole(expected: String, found: String)
    /// The issuer DN of a certificate is not the subject DN of the next one up.
    case issuerMismatch(String)
    /// The authority key ID of a certificate is not the subject key ID of its issuer.
    case authorityKeyIDMismatch(String)
    /// A certificate lacks a required extension or usage (certificate, what is missing).
    case usageNotAllowed(String, String)
    /// A CA's path length constraint is exceeded.
    case pathLengthExceeded(String)
    /// The certificate is not valid yet at the given time.
    case notYetValid(String)
    /// The certificate has expired at the given time.
    case expired(String)
    /// Fabric IDs in the chain disagree.
    case fabricIDMismatch(String)
    /// A critical extension that Matter does not define is present.
    case unsupportedCriticalExtension(String)

    // MARK: CSR and NOCSR
    /// The CSR is not a well-formed PKCS#10 request in the Matter profile.
    case malformedCSR(String)
    /// The CSR or NOCSR elements exceed their size limit.
    case csrTooLarge(size: Int, limit: Int)
    /// The NOCSR elements carry a different CSRNonce than the one sent.
    case csrNonceMismatch
    /// The NOCSR elements are malformed (field, reason).
    case malformedNOCSRElements(String)

    // MARK: Crypto and arguments
    /// A cryptographic operation failed (no secret material is included).
    case crypto(String)
    /// An argument given to an API is out of range.
    case invalidArgument(String)
}

extension CertificateError {
    /// A stable machine-readable name for the error kind.
    public var code: String {
        switch self {
        case .derTruncated: return "der_truncated"
        case .derIndefiniteLength: return "der_indefinite_length"
        case .derNonMinimalEncoding: return "der_non_minimal_encoding"
        case .derLengthTooLarge: return "der_length_too_large"
        case .derTrailingBytes: return "der_trailing_bytes"
        case .derDepthLimitExceeded: return "der_depth_limit_exceeded"
        case .derUnexpectedElement: return "der_unexpected_element"
        case .derInvalidValue: return "der_invalid_value"
        case .unsupportedVersion: return "unsupported_version"
        case .unsupportedSignatureAlgorithm: return "unsupported_signature_algorithm"
        case .unsupportedPublicKeyAlgorithm: return "unsupported_public_key_algorithm"
        case .unsupportedCurve: return "unsupported_curve"
        case .invalidPublicKey: return "invalid_public_key"
        case .invalidExtension: return "invalid_extension"
        case .duplicateExtension: return "duplicate_extension"
        case .invalidValidity: return "invalid_validity"
        case .invalidName: return "invalid_name"
        case .certificateTooLarge: return "certificate_too_large"
        case .tlv: return "invalid_tlv"
        case .malformedField: return "malformed_field"
        case .invalidNodeID: return "invalid_node_id"
        case .invalidFabricID: return "invalid_fabric_id"
        case .invalidCASEAuthenticatedTag: return "invalid_case_authenticated_tag"
        case .invalidCertificateType: return "invalid_cert_type"
        case .notMatterCompatible: return "not_matter_compatible"
        case .signatureInvalid: return "invalid_signature"
        case .wrongCertificateRole: return "wrong_cert_type"
        case .issuerMismatch: return "issuer_mismatch"
        case .authorityKeyIDMismatch: return "authority_key_id_mismatch"
        case .usageNotAllowed: return "cert_usage_not_allowed"
        case .pathLengthExceeded: return "path_length_exceeded"
        case .notYetValid: return "cert_not_valid_yet"
        case .expired: return "cert_expired"
        case .fabricIDMismatch: return "fabric_id_mismatch"
        case .unsupportedCriticalExtension: return "unsupported_critical_extension"
        case .malformedCSR: return "unsupported_cert_format"
        case .csrTooLarge: return "csr_too_large"
        case .csrNonceMismatch: return "csr_nonce_mismatch"
        case .malformedNOCSRElements: return "malformed_nocsr_elements"
        case .crypto: return "crypto_failure"
        case .invalidArgument: return "invalid_argument"
        }
    }
}

extension CertificateError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .derTruncated(let o): return "DER data ends inside the element at byte \(o)"
        case .derIndefiniteLength(let o): return "indefinite length at byte \(o) (DER needs definite lengths)"
        case .derNonMinimalEncoding(let o): return "length or tag at byte \(o) is not in the shortest DER form"
        case .derLengthTooLarge(let o): return "DER length at byte \(o) exceeds the data"
        case .derTrailingBytes(let o): return "unexpected bytes after the DER element, from byte \(o)"
        case .derDepthLimitExceeded(let l): return "DER elements nest deeper than \(l) levels"
        case .derUnexpectedElement(let e, let f): return "expected \(e), found \(f)"
        case .derInvalidValue(let s): return "invalid DER value: \(s)"
        case .unsupportedVersion(let v): return "X.509 version field \(v) is not supported (only v3)"
        case .unsupportedSignatureAlgorithm(let s): return "unsupported signature algorithm \(s) (only ecdsa-with-SHA256)"
        case .unsupportedPublicKeyAlgorithm(let s): return "unsupported public key algorithm \(s) (only id-ecPublicKey)"
        case .unsupportedCurve(let s): return "unsupported elliptic curve \(s) (only prime256v1)"
        case .invalidPublicKey: return "the public key is not an uncompressed 65-byte P-256 point"
        case .invalidExtension(let n, let r): return "extension \(n): \(r)"
        case .duplicateExtension(let n): return "extension \(n) appears more than once"
        case .invalidValidity(let r): return "validity: \(r)"
        case .invalidName(let r): return "distinguished name: \(r)"
        case .certificateTooLarge(let s, let l): return "certificate is \(s) bytes, more than the \(l) Matter allows"
        case .tlv(let e): return "Matter TLV: \(e)"
        case .malformedField(let f, let r): return "field \(f): \(r)"
        case .invalidNodeID(let n): return "node ID 0x\(hex64(n)) is not an operational node ID"
        case .invalidFabricID: return "fabric ID 0 is not valid"
        case .invalidCASEAuthenticatedTag(let t): return "CASE Authenticated Tag 0x\(String(t, radix: 16, uppercase: true)) has version 0"
        case .invalidCertificateType(let r): return "certificate type: \(r)"
        case .notMatterCompatible(let r): return "not representable as a Matter certificate: \(r)"
        case .signatureInvalid(let r): return "signature does not verify: \(r)"
        case .wrongCertificateRole(let e, let f): return "expected a \(e) certificate, found \(f)"
        case .issuerMismatch(let r): return "issuer does not match: \(r)"
        case .authorityKeyIDMismatch(let r): return "authority key ID does not match the issuer's subject key ID: \(r)"
        case .usageNotAllowed(let c, let r): return "\(c): \(r)"
        case .pathLengthExceeded(let r): return "path length constraint exceeded: \(r)"
        case .notYetValid(let r): return "certificate not valid yet: \(r)"
        case .expired(let r): return "certificate expired: \(r)"
        case .fabricIDMismatch(let r): return "fabric ID mismatch: \(r)"
        case .unsupportedCriticalExtension(let r): return "unsupported critical extension \(r)"
        case .malformedCSR(let r): return "CSR: \(r)"
        case .csrTooLarge(let s, let l): return "CSR is \(s) bytes, more than the \(l) allowed"
        case .csrNonceMismatch: return "the CSRNonce in the NOCSR elements is not the one that was sent"
        case .malformedNOCSRElements(let r): return "NOCSR elements: \(r)"
        case .crypto(let r): return "crypto: \(r)"
        case .invalidArgument(let r): return "invalid argument: \(r)"
        }
    }
}

/// 16 uppercase hex digits.
func hex64(_ v: UInt64) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 16 - s.count)) + s
}

/// 8 uppercase hex digits.
func hex32(_ v: UInt32) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 8 - s.count)) + s
}

/// Lowercase hex of bytes, for messages and CLI output.
func hexString(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for b in bytes {
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}
