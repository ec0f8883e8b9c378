import MatterCertificates
import MatterCrypto
import Testing
import TestSupport

/// attestation_elements and nocsr_elements: construction, decoding and the DAC signature.
@Suite struct AttestationElementsTests {
    static let vectors = TestVectors.vectors("attestation/attestation_elements.json")

    private func vendorReserved(_ list: Any?) -> [VendorReservedElement] {
        ((list as? [[String: Any]]) ?? []).map {
            VendorReservedElement(vendorID: UInt16(($0["vendor_id"] as? Int) ?? 0),
                                  profile: UInt16(($0["profile"] as? Int) ?? 0),
                                  tag: UInt32(($0["tag"] as? Int) ?? 0),
                                  data: Hex.decode(($0["data"] as? String) ?? "") ?? [])
        }
    }

    @Test(arguments: vectors)
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        switch v.string("kind") {
        case "attestation_elements_construct":
            let elements = AttestationElements(
                certificationDeclaration: v.hex("certification_declaration") ?? [],
                attestationNonce: v.hex("attestation_nonce") ?? [],
                timestamp: UInt32(v.uint64("timestamp") ?? 0),
                firmwareInformation: v.hex("firmware_information") ?? [],
                vendorReserved: vendorReserved(v["vendor_reserved"]))
            #expect(Hex.encode(elements.tlvEncoded) == v.string("expected_attestation_elements"))
            #expect(try AttestationElements(tlv: elements.tlvEncoded) == elements)

        case "attestation_elements_parse":
            let bytes = try #require(v.hex("attestation_elements"))
            if v.valid {
                let e = try AttestationElements(tlv: bytes)
                #expect(e.certificationDeclaration == v.hex("expected_certification_declaration"))
                #expect(e.attestationNonce == v.hex("expected_attestation_nonce"))
                #expect(UInt64(e.timestamp) == v.uint64("expected_timestamp"))
                #expect(e.firmwareInformation == (v.hex("expected_firmware_information") ?? []))
                #expect(e.vendorReserved == vendorReserved(v["expected_vendor_reserved"]))
            } else {
                #expect(throws: CertificateError.self) { try AttestationElements(tlv: bytes) }
            }

        case "nocsr_elements_construct":
            func optional(_ key: String) -> [UInt8]? { v.hex(key).flatMap { $0.isEmpty ? nil : $0 } }
            let e = NOCSRElements(csr: v.hex("csr") ?? [], csrNonce: v.hex("csr_nonce") ?? [],
                                  vendorReserved1: optional("vendor_reserved1"),
                                  vendorReserved2: optional("vendor_reserved2"),
                                  vendorReserved3: optional("vendor_reserved3"))
            #expect(Hex.encode(e.tlvEncoded) == v.string("expected_nocsr_elements"))
            #expect(try NOCSRElements(tlvEncoded: e.tlvEncoded) == e)

        case "attestation_response_verify":
            var store = PAATrustStore()
            for path in (v["trust_store"] as? [String]) ?? [] {
                try store.add(derCertificate: try AttestationFixtures.file(path))
            }
            let info = AttestationInformation(
                attestationElements: v.hex("attestation_elements") ?? [],
                attestationChallenge: v.hex("attestation_challenge") ?? [],
                attestationSignature: v.hex("attestation_signature") ?? [],
                attestationNonce: v.hex("attestation_nonce") ?? [],
                dac: v.hex("dac_cert") ?? [], pai: v.hex("pai_cert") ?? [],
                vendorID: UInt16(v.int("vendor_id") ?? 0), productID: UInt16(v.int("product_id") ?? 0))
            let verifier = DeviceAttestationVerifier(trustStore: store, allowTestDevices: true)
            let outcome = verifier.verify(info, at: AttestationFixtures.vectorTime)
            if v.string("expected_result") == "success" {
                #expect(outcome.result == .success, "\(outcome.result): \(outcome.detail ?? "")")
            } else {
                #expect(outcome.result != .success)
            }

        case "nocsr_response_verify":
            let verify = {
                try NOCSRElements.verify(
                    nocsrElements: v.hex("nocsr_elements") ?? [], attestationSignature: v.hex("attestation_signature") ?? [],
                    attestationChallenge: v.hex("attestation_challenge") ?? [], dacPublicKey: v.hex("dac_public_key") ?? [],
                    expectedNonce: v.hex("csr_nonce") ?? [])
            }
            if v.valid {
                let e = try verify().elements
                #expect(e.csrNonce == v.hex("csr_nonce"))
            } else {
                #expect(throws: CertificateError.self) { _ = try verify() }
            }

        default:
            Issue.record("unknown vector kind \(v.string("kind") ?? "nil")")
        }
    }

    /// A wrong CSR nonce is refused even when the signature is good.
    @Test func nocsrNonceMismatch() throws {
        let v = try #require(Self.vectors.first { $0.string("kind") == "nocsr_response_verify" && $0.valid })
        var nonce = try #require(v.hex("csr_nonce"))
        nonce[0] ^= 1
        #expect(throws: CertificateError.csrNonceMismatch) {
            _ = try NOCSRElements.verify(
                nocsrElements: v.hex("nocsr_elements") ?? [], attestationSignature: v.hex("attestation_signature") ?? [],
                attestationChallenge: v.hex("attestation_challenge") ?? [], dacPublicKey: v.hex("dac_public_key") ?? [],
                expectedNonce: nonce)
        }
    }

    @Test(arguments: [
        ("", "empty input"),
        ("1518", "empty structure"),
        ("153001021122300220" + String(repeating: "00", count: 32) + "18", "no timestamp"),
        ("1530010100300210" + String(repeating: "00", count: 16) + "26030000000018", "16-byte nonce"),
        ("1730010100300220" + String(repeating: "00", count: 32) + "26030000000018", "a list, not a structure"),
        ("1530010100300220" + String(repeating: "00", count: 32) + "2603000000002404011818", "firmware information is an integer"),
        ("1530010100300220" + String(repeating: "00", count: 32) + "26030000000030010100" + "18", "certification_declaration repeated"),
        ("1530010100300220" + String(repeating: "00", count: 32) + "260300000000", "unterminated"),
    ])
    func malformedAttestationElements(_ hex: String, _ why: String) throws {
        let bytes = try #require(Hex.decode(hex))
        #expect(throws: CertificateError.self, "\(why)") { try AttestationElements(tlv: bytes) }
    }

    @Test func unknownContextTagsAreSkipped() throws {
        let base = AttestationElements(certificationDeclaration: [1, 2], attestationNonce: [UInt8](repeating: 7, count: 32), timestamp: 5)
        var bytes = base.tlvEncoded
        bytes.insert(contentsOf: [0x24, 0x09, 0x01], at: bytes.count - 1)  // context tag 9 = 1
        #expect(try AttestationElements(tlv: bytes) == base)
    }

    /// Mutated encodings decode or throw; they never trap.
    @Test func seededMutations() throws {
        let v = try #require(Self.vectors.first { $0.string("kind") == "attestation_elements_parse" && $0.valid })
        let seedBytes = try #require(v.hex("attestation_elements"))
        let nocsr = try #require(Self.vectors.first { $0.string("kind") == "nocsr_elements_construct" }?.hex("expected_nocsr_elements"))
        var rng = SeededRandom(seed: 0xA77E)
        for _ in 0..<2000 {
            _ = try? AttestationElements(tlv: Mutation.mutate(seedBytes, using: &rng))
            _ = try? NOCSRElements(tlvEncoded: Mutation.mutate(nocsr, using: &rng))
        }
    }
}
