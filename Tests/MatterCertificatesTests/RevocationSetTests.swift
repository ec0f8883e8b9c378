import Foundation
import MatterCertificates
import Testing
import TestSupport

/// Revocation sets in the SDK's JSON form, with the SDK's revoked test devices
/// (credentials/test/revoked-attestation-certificates/dac-provider-test-vectors).
@Suite struct RevocationSetTests {
    static let folder = "attestation/revoked-attestation-certificates/"

    static func revocationSet() throws -> RevocationSet {
        let data = Data(try AttestationFixtures.file(folder + "revocation-sets/revocation-set.json"))
        return try JSONDecoder().decode(RevocationSet.self, from: data)
    }

    /// Which certificate of each SDK device is revoked (the SDK's test expectations).
    static let devices: [(file: String, expected: AttestationVerificationResult)] = [
        ("revoked-dac-01.json", .dacRevoked),
        ("revoked-dac-02.json", .dacRevoked),
        ("revoked-dac-03.json", .dacRevoked),
        ("revoked-pai.json", .paiRevoked),
        ("revoked-dac-and-pai.json", .paiAndDacRevoked),
        ("indirect-revoked-dac-01.json", .dacRevoked),
        ("indirect-revoked-pai-03.json", .paiRevoked),
        ("indirect-revoked-dac-01-pai-03.json", .paiAndDacRevoked),
    ]

    private func device(_ file: String) throws -> AttestationInformation {
        let json = try JSONSerialization.jsonObject(with: Data(try AttestationFixtures.file(Self.folder + "dac-provider-test-vectors/" + file)))
        let v = Vector(try #require(json as? [String: Any]))
        var rng = SeededRandom(seed: 0x5E7)
        return try AttestationFixtures.attestationResponse(
            cd: v.hex("certification_declaration") ?? [], dacPrivateKey: v.hex("dac_private_key") ?? [],
            dac: v.hex("dac_cert") ?? [], pai: v.hex("pai_cert") ?? [], vendorID: 0xFFF1,
            productID: UInt16(v.int("basic_info_pid") ?? 0), rng: &rng)
    }

    private func verify(_ info: AttestationInformation, _ set: RevocationSet?) throws -> AttestationVerification {
        let verifier = DeviceAttestationVerifier(trustStore: try AttestationFixtures.sdkTestTrustStore(),
                                                 revocationSet: set, allowTestDevices: true)
        return verifier.verify(info, at: AttestationFixtures.revocationTime)
    }

    @Test func decodesTheSDKFile() throws {
        let set = try Self.revocationSet()
        #expect(set.entries.count == 7)
        #expect(set.entries.allSatisfy { $0.issuerSubjectKeyID.count == 20 && !$0.revokedSerialNumbers.isEmpty })
        #expect(set.entries.filter { $0.crlSignerDelegator != nil }.count == 4)
    }

    @Test(arguments: devices)
    func revokedDevice(_ file: String, _ expected: AttestationVerificationResult) throws {
        let info = try device(file)
        // Everything else about these devices is in order...
        #expect(try verify(info, nil).result == .success)
        // ...but the revocation set names them.
        let outcome = try verify(info, try Self.revocationSet())
        #expect(outcome.result == expected, "\(outcome.detail ?? "")")
    }

    @Test func unrevokedDeviceFromARevokingIssuer() throws {
        // The development DAC 0x8000 comes from the PAI whose CRL revokes three other DACs.
        let dac = try AttestationFixtures.file("attestation/development-attestation/Matter-Development-DAC-FFF1-8000-Cert.der")
        let pai = try AttestationFixtures.file("attestation/development-attestation/Matter-Development-PAI-FFF1-noPID-Cert.der")
        let cert = try X509Certificate(derEncoded: dac)
        #expect(!(try Self.revocationSet()).isRevoked(cert))
        #expect(!(try Self.revocationSet()).isRevoked(try X509Certificate(derEncoded: pai)))
    }

    @Test func entryWithAForeignCRLSignerIsIgnored() throws {
        var set = try Self.revocationSet()
        let info = try device("revoked-dac-01.json")
        let dac = try X509Certificate(derEncoded: info.dac)
        #expect(set.isRevoked(dac))
        // Claim the CRL was signed by an unrelated certificate: the entry no longer counts.
        let other = try AttestationFixtures.file("attestation/cd-certs/Chip-Test-CD-Cert.der")
        for i in set.entries.indices { set.entries[i].crlSignerCertificate = other; set.entries[i].crlSignerDelegator = nil }
        #expect(!set.isRevoked(dac))
    }

    @Test(arguments: [
        #"[{"type":"revocation_set","issuer_subject_key_id":"XYZ","issuer_name":"","revoked_serial_numbers":[]}]"#,
        #"[{"type":"revocation_set","issuer_subject_key_id":"00","issuer_name":"***","revoked_serial_numbers":[]}]"#,
        #"[{"type":"revocation_set","issuer_subject_key_id":"00","issuer_name":"AA==","revoked_serial_numbers":["0"]}]"#,
        #"{"type":"revocation_set"}"#,
    ])
    func malformedFiles(_ text: String) {
        #expect(throws: (any Error).self) { try JSONDecoder().decode(RevocationSet.self, from: Data(text.utf8)) }
    }
}
