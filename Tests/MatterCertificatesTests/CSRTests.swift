import MatterCrypto
import Testing
import TestSupport
@testable import MatterCertificates

@Suite("CertificateSigningRequest")
struct CSRTests {
    @Test(arguments: TestVectors.vectors("csr.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let bytes = try #require(v.hex("csr"))
        if v.valid {
            let csr = try CertificateSigningRequest(verifying: bytes)
            if let key = v.string("expected_public_key") { #expect(hexString(csr.publicKey) == key) }
        } else {
            #expect(throws: CertificateError.self) { try CertificateSigningRequest(verifying: bytes) }
        }
    }

    @Test func createdCSRVerifiesAndOpenSSLAgrees() throws {
        let key = P256PrivateKey()
        let csr = try CertificateSigningRequest.create(privateKey: key)
        try csr.verify()
        #expect(csr.publicKey == key.publicKey.x962Representation)
        let check = try OpenSSL.run(["req", "-inform", "DER", "-noout", "-verify"], input: csr.derBytes)
        #expect(check.status == 0, "\(check.output)")
        // A CSR signed by another key must not verify.
        let other = try CertificateSigningRequest.create(privateKey: P256PrivateKey())
        let forged = DERWriter.sequence([csr.infoBytes, DERWriter.sequence([DERWriter.objectIdentifier(.ecdsaWithSHA256)]),
                                         DERWriter.bitString(other.signature)])
        #expect(throws: CertificateError.signatureInvalid("CSR is not signed by its own key")) {
            try CertificateSigningRequest(verifying: forged)
        }
    }

    @Test func mutationNeverTraps() {
        let seeds = TestVectors.vectors("csr.json").compactMap { $0.hex("csr") }
        var rng = SeededRandom(seed: 0xC5B)
        for i in 0..<5_000 {
            _ = try? CertificateSigningRequest(verifying: Mutation.mutate(seeds[i % seeds.count], using: &rng))
        }
    }
}

@Suite("NOCSRElements")
struct NOCSRElementsTests {
    static let vectors = TestVectors.vectors("attestation/attestation_elements.json") {
        ($0.string("kind") ?? "").hasPrefix("nocsr")
    }

    @Test func hasVectors() { #expect(Self.vectors.count >= 2) }

    static func optional(_ v: Vector, _ key: String) -> [UInt8]? {
        guard let b = v.hex(key), !b.isEmpty else { return nil }
        return b
    }

    @Test(arguments: vectors)
    func vector(_ v: Vector) throws {
        switch v.string("kind") {
        case "nocsr_elements_construct":
            let e = NOCSRElements(csr: try #require(v.hex("csr")), csrNonce: try #require(v.hex("csr_nonce")),
                                  vendorReserved1: Self.optional(v, "vendor_reserved1"),
                                  vendorReserved2: Self.optional(v, "vendor_reserved2"),
                                  vendorReserved3: Self.optional(v, "vendor_reserved3"))
            #expect(hexString(e.tlvEncoded) == v.string("expected_nocsr_elements"))
            #expect(try NOCSRElements(tlvEncoded: e.tlvEncoded) == e)
        case "nocsr_response_verify":
            let elements = try #require(v.hex("nocsr_elements"))
            let run = { () throws(CertificateError) in
                try NOCSRElements.verify(nocsrElements: elements, attestationSignature: v.hex("attestation_signature") ?? [],
                                         attestationChallenge: v.hex("attestation_challenge") ?? [],
                                         dacPublicKey: v.hex("dac_public_key") ?? [], expectedNonce: v.hex("csr_nonce") ?? [])
            }
            if v.valid {
                let (decoded, csr) = try run()
                #expect(decoded.csr == csr.derBytes)
                // The same response with another nonce expected is rejected.
                var otherNonce = v.hex("csr_nonce") ?? []
                otherNonce[0] ^= 1
                #expect(throws: CertificateError.csrNonceMismatch) {
                    try NOCSRElements.verify(nocsrElements: elements, attestationSignature: v.hex("attestation_signature") ?? [],
                                             attestationChallenge: v.hex("attestation_challenge") ?? [],
                                             dacPublicKey: v.hex("dac_public_key") ?? [], expectedNonce: otherNonce)
                }
            } else {
                #expect(throws: CertificateError.self) { try run() }
            }
        default:
            Issue.record("unexpected kind")
        }
    }
}
