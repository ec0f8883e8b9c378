import Foundation
import MatterCertificates
import MatterCrypto
import TestSupport

/// Files and fixed values shared by the attestation tests.
enum AttestationFixtures {
    /// The bytes of a file under `testvectors/` (e.g. "attestation/cd-certs/Chip-Test-CD-Cert.der").
    static func file(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: TestVectors.directory.appendingPathComponent(path)))
    }

    /// The SDK's test PAA trust store (src/credentials/attestation_verifier/TestPAAStore.cpp).
    static func sdkTestTrustStore() throws -> PAATrustStore {
        var store = PAATrustStore()
        for name in ["Chip-Test-PAA-FFF1-Cert.der", "Chip-Test-PAA-NoVID-Cert.der"] {
            try store.add(derCertificate: try file("attestation/test-attestation/\(name)"))
        }
        return store
    }

    /// The commissioner's clock for the DUT vectors. The SDK's test reads the real clock; a
    /// fixed time keeps the vectors meaningful: every DAC the SDK expects to pass is valid then
    /// (the newest notBefore is 2024-06-04), and the DACs of the PAI-validity vectors (valid
    /// 2022-09-28...2024-09-27) are too, so those fail on the PAI rule they test rather than
    /// on DAC expiry. 2023-01-01 would reject valid vectors issued in 2023 and 2024.
    static let vectorTime = try! ASN1Time(year: 2024, month: 7, day: 1, hour: 0, minute: 0, second: 0)

    /// The SDK's revoked test devices were issued up to 2025-01-09; their DACs are valid then.
    static let revocationTime = try! ASN1Time(year: 2025, month: 6, day: 2, hour: 0, minute: 0, second: 0)

    static func hex(_ s: String?) -> [UInt8] { s.flatMap(Hex.decode) ?? [] }

    /// Builds and signs an attestation response the way the SDK's DUT test does: the CD, the
    /// nonce, timestamp 0, no firmware information; the DAC key signs elements || challenge.
    static func attestationResponse(cd: [UInt8], dacPrivateKey: [UInt8], dac: [UInt8], pai: [UInt8],
                                    vendorID: UInt16, productID: UInt16,
                                    rng: inout SeededRandom) throws -> AttestationInformation {
        let nonce = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let challenge = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let elements = AttestationElements(certificationDeclaration: cd, attestationNonce: nonce, timestamp: 0).tlvEncoded
        // A DAC key that is not on P-256 (the secp256k1 vector) cannot sign here; a fresh key's
        // signature stands in and fails as the SDK's would.
        let key = (try? P256PrivateKey(rawRepresentation: dacPrivateKey)) ?? P256PrivateKey()
        let signature = try key.signature(for: elements + challenge).rawRepresentation
        return AttestationInformation(attestationElements: elements, attestationChallenge: challenge,
                                      attestationSignature: signature, attestationNonce: nonce,
                                      dac: dac, pai: pai, vendorID: vendorID, productID: productID)
    }
}
