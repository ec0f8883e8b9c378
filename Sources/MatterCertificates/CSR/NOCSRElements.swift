import MatterCrypto
import MatterTLV

/// The NOCSR elements of a CSRResponse (Matter Core 11.18.5.6): an anonymous TLV structure
/// `{1: csr, 2: CSRNonce, 3..5: vendor reserved}`, signed together with the attestation
/// challenge by the device attestation key.
public struct NOCSRElements: Hashable, Sendable {
    public enum Tag {
        public static let csr: UInt8 = 1
        public static let csrNonce: UInt8 = 2
        public static let vendorReserved1: UInt8 = 3
        public static let vendorReserved2: UInt8 = 4
        public static let vendorReserved3: UInt8 = 5
    }

    /// Limits: the whole TLV (RESP_MAX) and the nonce.
    public static let maxLength = 900
    public static let nonceLength = 32

    /// The PKCS#10 request, DER.
    public var csr: [UInt8]
    public var csrNonce: [UInt8]
    public var vendorReserved1: [UInt8]?
    public var vendorReserved2: [UInt8]?
    public var vendorReserved3: [UInt8]?

    public init(csr: [UInt8], csrNonce: [UInt8], vendorReserved1: [UInt8]? = nil,
                vendorReserved2: [UInt8]? = nil, vendorReserved3: [UInt8]? = nil) {
        self.csr = csr
        self.csrNonce = csrNonce
        self.vendorReserved1 = vendorReserved1
        self.vendorReserved2 = vendorReserved2
        self.vendorReserved3 = vendorReserved3
    }

    /// Decodes the TLV: known fields in tag order, each at most once; csr and a 32-byte nonce
    /// required; unknown context tags after the known ones are skipped, as TLV allows.
    public init(tlvEncoded bytes: [UInt8]) throws(CertificateError) {
        guard bytes.count <= Self.maxLength else { throw .csrTooLarge(size: bytes.count, limit: Self.maxLength) }
        let root: TLVElement
        do { root = try TLVDecoder.decode(bytes) } catch { throw .tlv(error) }
        guard root.tag == .anonymous, case .container(.structure, let members) = root.value else {
            throw .malformedNOCSRElements("must be an anonymous structure")
        }
        var values: [UInt8: [UInt8]] = [:]
        var lastTag: UInt8 = 0
        for m in members {
            guard case .context(let tag) = m.tag else { continue }  // vendor-specific profile tags
            guard tag > lastTag else { throw .malformedNOCSRElements("field \(tag) repeated or out of order") }
            lastTag = tag
            guard tag <= Tag.vendorReserved3 else { continue }
            guard case .bytes(let v) = m.value else { throw .malformedNOCSRElements("field \(tag) must be an octet string") }
            values[tag] = v
        }
        guard let csr = values[Tag.csr] else { throw .malformedNOCSRElements("csr is missing") }
        guard let nonce = values[Tag.csrNonce] else { throw .malformedNOCSRElements("CSRNonce is missing") }
        guard nonce.count == Self.nonceLength else { throw .malformedNOCSRElements("CSRNonce must be 32 bytes") }
        self.init(csr: csr, csrNonce: nonce, vendorReserved1: values[Tag.vendorReserved1],
                  vendorReserved2: values[Tag.vendorReserved2], vendorReserved3: values[Tag.vendorReserved3])
    }

    public var tlvEncoded: [UInt8] {
        var members: [TLVElement] = [.bytes(.context(Tag.csr), csr), .bytes(.context(Tag.csrNonce), csrNonce)]
        if let v = vendorReserved1 { members.append(.bytes(.context(Tag.vendorReserved1), v)) }
        if let v = vendorReserved2 { members.append(.bytes(.context(Tag.vendorReserved2), v)) }
        if let v = vendorReserved3 { members.append(.bytes(.context(Tag.vendorReserved3), v)) }
        return TLVElement.structure(.anonymous, members).encoded
    }

    /// Checks a CSRResponse (Matter Core 11.18.6.6 and 6.3.2): the attestation signature over
    /// `nocsrElements || attestationChallenge` verifies with the DAC public key, the CSRNonce is
    /// the one the commissioner sent, and the CSR is well formed and self-signed. Returns the
    /// decoded elements and the CSR, whose public key goes into the NOC.
    public static func verify(nocsrElements: [UInt8], attestationSignature: [UInt8], attestationChallenge: [UInt8],
                              dacPublicKey: [UInt8], expectedNonce: [UInt8]) throws(CertificateError)
        -> (elements: NOCSRElements, csr: CertificateSigningRequest) {
        let key: P256PublicKey
        let signature: P256Signature
        do {
            key = try P256PublicKey(x962Representation: dacPublicKey)
            signature = try P256Signature(rawRepresentation: attestationSignature)
        } catch {
            throw .signatureInvalid("DAC public key or attestation signature is malformed")
        }
        guard key.isValidSignature(signature, for: nocsrElements + attestationChallenge) else {
            throw .signatureInvalid("NOCSR elements are not signed by the DAC")
        }
        let elements = try NOCSRElements(tlvEncoded: nocsrElements)
        guard elements.csrNonce == expectedNonce else { throw .csrNonceMismatch }
        let csr = try CertificateSigningRequest(verifying: elements.csr)
        return (elements, csr)
    }
}
