import MatterTLV

/// The `nocsr_elements` a device returns in CSRResponse (Matter Core 11.18.6.6): its PKCS#10 CSR,
/// the commissioner's CSR nonce echoed back and up to three vendor-reserved octet strings. Like
/// attestation elements, the DAC signs these bytes followed by the attestation challenge.
public struct NOCSRElements: Sendable, Hashable {
    public enum Tag {
        public static let csr: UInt8 = 1
        public static let csrNonce: UInt8 = 2
        public static let vendorReserved1: UInt8 = 3
        public static let vendorReserved2: UInt8 = 4
        public static let vendorReserved3: UInt8 = 5
    }

    public var csr: [UInt8]
    public var csrNonce: [UInt8]
    /// Each is absent from the encoding when empty.
    public var vendorReserved1: [UInt8]
    public var vendorReserved2: [UInt8]
    public var vendorReserved3: [UInt8]

    public init(csr: [UInt8], csrNonce: [UInt8], vendorReserved1: [UInt8] = [],
                vendorReserved2: [UInt8] = [], vendorReserved3: [UInt8] = []) {
        self.csr = csr
        self.csrNonce = csrNonce
        self.vendorReserved1 = vendorReserved1
        self.vendorReserved2 = vendorReserved2
        self.vendorReserved3 = vendorReserved3
    }

    public var tlvEncoded: [UInt8] {
        var members: [TLVElement] = [.bytes(.context(Tag.csr), csr), .bytes(.context(Tag.csrNonce), csrNonce)]
        for (tag, value) in [(Tag.vendorReserved1, vendorReserved1), (Tag.vendorReserved2, vendorReserved2),
                             (Tag.vendorReserved3, vendorReserved3)] where !value.isEmpty {
            members.append(.bytes(.context(tag), value))
        }
        return TLVWriter.encode(.structure(.anonymous, members))
    }

    /// Decodes NOCSR elements; known fields in tag order, unknown context tags skipped.
    public init(tlv bytes: [UInt8]) throws(CertificateError) {
        guard bytes.count <= AttestationElements.maxLength else { throw .invalidArgument("NOCSR elements are \(bytes.count) bytes, more than 900") }
        let root: TLVElement
        do { root = try TLVDecoder.decode(bytes, maxDepth: 2) } catch { throw .tlv(error) }
        guard root.tag == .anonymous, case .container(.structure, let members) = root.value else {
            throw .malformedNOCSRElements("not an anonymous TLV structure")
        }
        var fields: [UInt8: [UInt8]] = [:]
        var lastKnown: UInt8 = 0
        for m in members {
            guard case .context(let t) = m.tag else { throw .malformedNOCSRElements("tag \(m.tag) is not allowed") }
            guard (Tag.csr...Tag.vendorReserved3).contains(t) else { continue }
            guard t > lastKnown else { throw .malformedNOCSRElements("context tag \(t) out of order") }
            lastKnown = t
            do { fields[t] = try m.bytes() } catch { throw .tlv(error) }
        }
        guard let csr = fields[Tag.csr] else { throw .malformedNOCSRElements("csr is missing") }
        guard let nonce = fields[Tag.csrNonce] else { throw .malformedNOCSRElements("csr_nonce is missing") }
        guard nonce.count == AttestationElements.nonceLength else { throw .malformedNOCSRElements("csr_nonce is \(nonce.count) bytes, not 32") }
        self.init(csr: csr, csrNonce: nonce, vendorReserved1: fields[Tag.vendorReserved1] ?? [],
                  vendorReserved2: fields[Tag.vendorReserved2] ?? [], vendorReserved3: fields[Tag.vendorReserved3] ?? [])
    }
}
