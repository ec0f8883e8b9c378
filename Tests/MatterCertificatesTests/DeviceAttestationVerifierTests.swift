import MatterCertificates
import MatterCrypto
import Testing
import TestSupport

/// The CSA "Commissioner DUT" vectors and the named results of single-rule failures.
@Suite struct DeviceAttestationVerifierTests {
    static let dutVectors = TestVectors.vectors("attestation/commissioner_dut.json")

    private func response(_ v: Vector, seed: UInt64) throws -> AttestationInformation {
        var rng = SeededRandom(seed: seed)
        return try AttestationFixtures.attestationResponse(
            cd: v.hex("certification_declaration") ?? [], dacPrivateKey: v.hex("dac_private_key") ?? [],
            dac: v.hex("dac_cert") ?? [], pai: v.hex("pai_cert") ?? [],
            vendorID: UInt16(v.int("vendor_id") ?? 0xFFF1), productID: UInt16(v.int("basic_info_pid") ?? 0),
            rng: &rng)
    }

    /// Each vector reaches its expected commissioner result with test devices allowed (the
    /// SDK's TestCommissionerDUTVectors with test keys enabled).
    @Test(arguments: dutVectors)
    func commissionerDUTVector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let verifier = DeviceAttestationVerifier(trustStore: try AttestationFixtures.sdkTestTrustStore(),
                                                 allowTestDevices: true)
        let outcome = verifier.verify(try response(v, seed: 0xD07), at: AttestationFixtures.vectorTime)
        let expected = try #require(v.string("expected_commissioner_result"))
        if expected == "success" {
            #expect(outcome.result == .success, "\(outcome.result): \(outcome.detail ?? "")")
        } else {
            #expect(outcome.result != .success)
        }
    }

    /// Without allowTestDevices every vector fails: they all chain to test PAAs and carry
    /// test CDs (the SDK's run with test keys disabled).
    @Test(arguments: dutVectors)
    func commissionerDUTVectorWithoutTestDevices(_ v: Vector) throws {
        let verifier = DeviceAttestationVerifier(trustStore: try AttestationFixtures.sdkTestTrustStore())
        let outcome = verifier.verify(try response(v, seed: 0xD08), at: AttestationFixtures.vectorTime)
        #expect(outcome.result != .success)
        if v.string("expected_commissioner_result") == "success" {
            #expect(outcome.result == .testPAARejected)
        }
    }

    // MARK: - Single-rule failures on a vector that passes

    /// The first DUT vector the commissioner must accept, as a baseline to break one rule at a time.
    private func baseline() throws -> (Vector, AttestationInformation) {
        let v = try #require(Self.dutVectors.first { $0.string("expected_commissioner_result") == "success" })
        return (v, try response(v, seed: 42))
    }

    private func verify(_ info: AttestationInformation, allowTest: Bool = true,
                        trust: PAATrustStore? = nil, revoked: RevocationSet? = nil) throws -> AttestationVerification {
        let verifier = DeviceAttestationVerifier(trustStore: try trust ?? AttestationFixtures.sdkTestTrustStore(),
                                                 revocationSet: revoked, allowTestDevices: allowTest)
        return verifier.verify(info, at: AttestationFixtures.vectorTime)
    }

    @Test func baselinePasses() throws {
        let (_, info) = try baseline()
        let outcome = try verify(info)
        #expect(outcome.result == .success)
        #expect(outcome.usesTestCredentials)
        #expect(outcome.vendorID == 0xFFF1)
    }

    @Test func flippedAttestationSignatureByte() throws {
        var (_, info) = try baseline()
        for index in [0, 31, 32, 63] {
            var broken = info
            broken.attestationSignature[index] ^= 0x01
            #expect(try verify(broken).result == .attestationSignatureInvalid)
        }
        info.attestationSignature.removeLast()
        #expect(try verify(info).result == .attestationSignatureInvalidFormat)
    }

    @Test func changedChallengeBreaksTheSignature() throws {
        var (_, info) = try baseline()
        info.attestationChallenge[0] ^= 0xFF
        #expect(try verify(info).result == .attestationSignatureInvalid)
    }

    @Test func wrongNonce() throws {
        var (_, info) = try baseline()
        info.attestationNonce[5] ^= 0x10
        #expect(try verify(info).result == .attestationNonceMismatch)
    }

    @Test func wrongBasicInformationVendorID() throws {
        var (_, info) = try baseline()
        info.vendorID = 0xFFF2
        let outcome = try verify(info)
        #expect(outcome.result == .cdVendorIdMismatch)
        #expect(outcome.result.message.contains("vendor ID"))
    }

    @Test func wrongBasicInformationProductID() throws {
        var (_, info) = try baseline()
        info.productID = 0x1234
        #expect(try verify(info).result == .cdProductIdNotInList)
    }

    @Test func testPAAWithoutAllowTestDevices() throws {
        let (_, info) = try baseline()
        let outcome = try verify(info, allowTest: false)
        #expect(outcome.result == .testPAARejected)
        #expect(outcome.result.remedy.contains("--allow-test-devices"))
    }

    @Test func emptyTrustStore() throws {
        let (_, info) = try baseline()
        #expect(try verify(info, trust: PAATrustStore()).result == .paaNotFound)
    }

    @Test func flippedDACSignatureByte() throws {
        var (_, info) = try baseline()
        // The last byte of the DER is inside the ECDSA s value.
        info.dac[info.dac.count - 1] ^= 0x01
        // The DAC's own signature is not covered by the attestation signature, so only the
        // chain check notices.
        #expect(try verify(info).result == .dacSignatureInvalid)
    }

    @Test func flippedPAISignatureByte() throws {
        var (_, info) = try baseline()
        info.pai[info.pai.count - 1] ^= 0x01
        #expect(try verify(info).result == .paiSignatureInvalid)
    }

    @Test func flippedCDSignatureByte() throws {
        let (v, _) = try baseline()
        var cd = try #require(v.hex("certification_declaration"))
        cd[cd.count - 1] ^= 0x01
        var rng = SeededRandom(seed: 7)
        let info = try AttestationFixtures.attestationResponse(
            cd: cd, dacPrivateKey: v.hex("dac_private_key") ?? [], dac: v.hex("dac_cert") ?? [],
            pai: v.hex("pai_cert") ?? [], vendorID: 0xFFF1, productID: UInt16(v.int("basic_info_pid") ?? 0), rng: &rng)
        #expect(try verify(info).result == .cdSignatureInvalid)
    }

    @Test func missingPAI() throws {
        var (_, info) = try baseline()
        info.pai = []
        #expect(try verify(info).result == .paiMissing)
    }

    @Test func swappedDACAndPAI() throws {
        var (_, info) = try baseline()
        swap(&info.dac, &info.pai)
        #expect(try verify(info).result == .paiFormatInvalid)
    }

    @Test func dacExpiredOrNotYetValid() throws {
        let (_, info) = try baseline()
        let store = try AttestationFixtures.sdkTestTrustStore()
        let verifier = DeviceAttestationVerifier(trustStore: store, allowTestDevices: true)
        let early = try ASN1Time(year: 2020, month: 1, day: 1, hour: 0, minute: 0, second: 0)
        #expect(verifier.verify(info, at: early).result == .dacNotYetValid)
    }

    @Test func oversizedElements() throws {
        var (_, info) = try baseline()
        info.attestationElements = [UInt8](repeating: 0, count: 901)
        #expect(try verify(info).result == .invalidArgument)
    }

    /// A CD for the baseline device signed with the CSA test key, with the given changes.
    private func signedCD(_ change: (inout CertificationElements) -> Void) throws -> [UInt8] {
        let (v, _) = try baseline()
        var content = try CertificationDeclaration(cms: v.hex("certification_declaration") ?? []).elements()
        change(&content)
        let pem = String(decoding: try AttestationFixtures.file("attestation/certification-declaration/Chip-Test-CD-Signing-Key.pem"), as: UTF8.self)
        let skid = try #require(Hex.decode("62fa823359acfaa9963e1cfa140addf504f37160"))
        return try CertificationDeclaration(signing: content, signerKeyIdentifier: skid,
                                            privateKey: try P256PrivateKey(pemRepresentation: pem)).cmsBytes
    }

    private func verify(cd: [UInt8], vendorID: UInt16 = 0xFFF1, allowTest: Bool = true) throws -> AttestationVerification {
        let (v, _) = try baseline()
        var rng = SeededRandom(seed: 11)
        let info = try AttestationFixtures.attestationResponse(
            cd: cd, dacPrivateKey: v.hex("dac_private_key") ?? [], dac: v.hex("dac_cert") ?? [],
            pai: v.hex("pai_cert") ?? [], vendorID: vendorID, productID: UInt16(v.int("basic_info_pid") ?? 0), rng: &rng)
        return try verify(info, allowTest: allowTest)
    }

    @Test func authorizedPAAList() throws {
        let paa = try #require(Hex.decode("6afd22771f511fecbf1641976710dcdc31a1717e"))
        let other = [UInt8](repeating: 0xAB, count: 20)
        #expect(try verify(cd: signedCD { $0.authorizedPAAs = [other, paa] }).result == .success)
        #expect(try verify(cd: signedCD { $0.authorizedPAAs = [other] }).result == .cdPAANotAuthorized)
        #expect(try verify(cd: signedCD { $0.authorizedPAAs = [] }).result == .cdPAANotAuthorized)
    }

    @Test func dacOrigin() throws {
        // A CD for vendor FFF2's product built on the FFF1 module this DAC belongs to.
        let origin = try signedCD { $0.vendorID = 0xFFF2; $0.dacOriginVendorID = 0xFFF1; $0.dacOriginProductID = 0x8000 }
        #expect(try verify(cd: origin, vendorID: 0xFFF2).result == .success)
        // Without dac_origin the DAC's vendor must be the CD's.
        #expect(try verify(cd: signedCD { $0.vendorID = 0xFFF2 }, vendorID: 0xFFF2).result == .cdVendorIdMismatch)
        let wrongOriginPID = try signedCD { $0.vendorID = 0xFFF2; $0.dacOriginVendorID = 0xFFF1; $0.dacOriginProductID = 0x8001 }
        #expect(try verify(cd: wrongOriginPID, vendorID: 0xFFF2).result == .cdDACOriginMismatch)
    }

    @Test func certificationTypes() throws {
        #expect(try verify(cd: signedCD { $0.certificationType = 3 }).result == .cdCertificationTypeInvalid)
        #expect(try verify(cd: signedCD { $0.certificationType = 2 }).result == .cdTestKeyNotAllowedForCertificationType)
        #expect(try verify(cd: signedCD { $0.formatVersion = 2 }).result == .cdFormatVersionUnsupported)
        // security_level, security_information and version_number are not interpreted.
        #expect(try verify(cd: signedCD { $0.securityLevel = 7; $0.securityInformation = 9; $0.versionNumber = 1 }).result == .success)
    }

    /// A production-like chain (vendor 0x1234, not a test PAA): test CD credentials are what
    /// stops it, each with its own named result, unless test devices are allowed.
    @Test func productionChainWithTestCD() throws {
        let chain = try AttestationChainBuilder.chain(vid: 0x1234, pid: 0x5678)
        var store = PAATrustStore()
        try store.add(derCertificate: chain.paa.der)
        let cd = try signedCD { $0.vendorID = 0x1234; $0.productIDs = [0x5678]; $0.authorizedPAAs = nil }
        let nonce = [UInt8](repeating: 3, count: 32), challenge = [UInt8](repeating: 4, count: 16)
        let elements = AttestationElements(certificationDeclaration: cd, attestationNonce: nonce, timestamp: 0).tlvEncoded
        let info = AttestationInformation(
            attestationElements: elements, attestationChallenge: challenge,
            attestationSignature: try chain.dac.key.signature(for: elements + challenge).rawRepresentation,
            attestationNonce: nonce, dac: chain.dac.der, pai: chain.pai.der, vendorID: 0x1234, productID: 0x5678)
        let now = AttestationFixtures.revocationTime
        let strict = DeviceAttestationVerifier(trustStore: store)
        #expect(strict.verify(info, at: now).result == .testCDSigningKeyRejected)
        let permissive = DeviceAttestationVerifier(trustStore: store, allowTestDevices: true)
        let ok = permissive.verify(info, at: now)
        #expect(ok.result == .success, "\(ok.detail ?? "")")
        #expect(ok.vendorID == 0x1234 && ok.productID == 0x5678)
        // The chain alone is production: no test credential is involved.
        let chainOnly = strict.verifyCredentials(dac: chain.dac.der, pai: chain.pai.der, certificationDeclaration: nil, at: now)
        #expect(chainOnly.result == .success)
        #expect(!chainOnly.usesTestCredentials)
        // A PAI from another vendor's PAA is refused by VID.
        let other = try AttestationChainBuilder.issue(.pai, cn: "Other PAI", vid: 0x4321, pid: nil, issuer: chain.paa, serial: 9)
        let dac2 = try AttestationChainBuilder.issue(.dac, cn: "Other DAC", vid: 0x4321, pid: 0x1, issuer: other, serial: 10)
        #expect(strict.verifyCredentials(dac: dac2.der, pai: other.der, certificationDeclaration: nil, at: now).result == .paiVendorIdMismatch)
    }

    /// Seeded mutations of each input give a named failure, never a trap, and never success:
    /// every byte the verifier reads is covered by a signature or compared with a known value.
    @Test func seededMutationsNeverPass() throws {
        let (_, info) = try baseline()
        let verifier = DeviceAttestationVerifier(trustStore: try AttestationFixtures.sdkTestTrustStore(),
                                                 allowTestDevices: true)
        var rng = SeededRandom(seed: 0xBAD5EED)
        var results: Set<AttestationVerificationResult> = []
        for round in 0..<1200 {
            var m = info
            switch round % 6 {
            case 0: m.dac = Mutation.mutate(m.dac, using: &rng)
            case 1: m.pai = Mutation.mutate(m.pai, using: &rng)
            case 2: m.attestationElements = Mutation.mutate(m.attestationElements, using: &rng)
            case 3: m.attestationSignature = Mutation.mutate(m.attestationSignature, using: &rng)
            case 4: m.attestationNonce = Mutation.mutate(m.attestationNonce, using: &rng)
            default: m.attestationChallenge = Mutation.mutate(m.attestationChallenge, using: &rng)
            }
            guard m != info else { continue }
            let outcome = verifier.verify(m, at: AttestationFixtures.vectorTime)
            #expect(outcome.result != .success, "round \(round) passed with mutated input")
            results.insert(outcome.result)
        }
        // The mutations reach many different rules.
        #expect(results.count >= 6, "\(results)")
    }

    /// Every result has a message and a remedy, and codes are unique.
    @Test func everyResultHasWords() {
        for r in AttestationVerificationResult.allCases {
            #expect(!r.message.isEmpty)
            #expect(!r.remedy.isEmpty)
        }
        #expect(Set(AttestationVerificationResult.allCases.map(\.rawValue)).count == AttestationVerificationResult.allCases.count)
    }
}

/// Validity rules on the SDK's "ValInPast / ValInFuture / Val1SecBefore" chains
/// (credentials/test/attestation): the DAC is checked at the commissioner's time, the PAI and
/// PAA at the DAC's issuance, so a DAC may outlive its PAI but not predate it.
@Suite struct AttestationValidityTests {
    static let dir = "attestation/test-attestation/"
    static let cases: [(dac: String, pai: String, paa: String, expected: AttestationVerificationResult)] = [
        ("Chip-Test-DAC-FFF2-8004-0020-ValInPast", "Chip-Test-PAI-FFF2-8004-FB", "Chip-Test-PAA-NoVID", .success),
        ("Chip-Test-DAC-FFF2-8004-0021-ValInFuture", "Chip-Test-PAI-FFF2-8004-FB", "Chip-Test-PAA-NoVID", .success),
        // Issued a second before both the PAI and the PAA: the PAA is checked first, from the
        // top of the chain down, as X.509 path validation does.
        ("Chip-Test-DAC-FFF2-8004-0030-Val1SecBefore", "Chip-Test-PAI-FFF2-8004-FB", "Chip-Test-PAA-NoVID", .paaNotValidAtDACIssuance),
        // The PAI expired in 2022; the DAC it issued in 2021 is still good.
        ("Chip-Test-DAC-FFF2-8005-0022-ValInPast", "Chip-Test-PAI-FFF2-8005-ValInPast", "Chip-Test-PAA-NoVID", .success),
        ("Chip-Test-DAC-FFF2-8005-0023-ValInFuture", "Chip-Test-PAI-FFF2-8005-ValInFuture", "Chip-Test-PAA-NoVID", .success),
        ("Chip-Test-DAC-FFF2-8005-0032-Val1SecBefore", "Chip-Test-PAI-FFF2-8005-Val1SecBefore", "Chip-Test-PAA-NoVID", .paaNotValidAtDACIssuance),
        ("Chip-Test-DAC-FFF2-8005-0033-Val1SecBefore", "Chip-Test-PAI-FFF2-8005-ValInFuture", "Chip-Test-PAA-NoVID", .paiNotValidAtDACIssuance),
        ("Chip-Test-DAC-FFF2-8006-0024-ValInPast", "Chip-Test-PAI-FFF2-8006-ValInPast", "Chip-Test-PAA-FFF2-ValInPast", .success),
        ("Chip-Test-DAC-FFF2-8006-0025-ValInFuture", "Chip-Test-PAI-FFF2-8006-ValInFuture", "Chip-Test-PAA-FFF2-ValInFuture", .success),
        ("Chip-Test-DAC-FFF2-8006-0034-ValInFuture", "Chip-Test-PAI-FFF2-8006-ValInPast", "Chip-Test-PAA-FFF2-ValInPast", .paaNotValidAtDACIssuance),
        ("Chip-Test-DAC-FFF2-8006-0035-Val1SecBefore", "Chip-Test-PAI-FFF2-8006-ValInFuture", "Chip-Test-PAA-FFF2-ValInFuture", .paaNotValidAtDACIssuance),
    ]

    @Test(arguments: cases)
    func chain(_ dacName: String, _ paiName: String, _ paaName: String, _ expected: AttestationVerificationResult) throws {
        let dac = try AttestationFixtures.file(Self.dir + dacName + "-Cert.der")
        let pai = try AttestationFixtures.file(Self.dir + paiName + "-Cert.der")
        var store = PAATrustStore()
        try store.add(derCertificate: try AttestationFixtures.file(Self.dir + paaName + "-Cert.der"))
        // A day into the DAC's life: the DAC itself is valid, whatever its PAI and PAA.
        let dacCert = try X509Certificate(derEncoded: dac)
        let now = try ASN1Time(unixSeconds: dacCert.notBefore.unixSeconds + 86_400)
        let verifier = DeviceAttestationVerifier(trustStore: store, allowTestDevices: true)
        let outcome = verifier.verifyCredentials(dac: dac, pai: pai, certificationDeclaration: nil, at: now)
        #expect(outcome.result == expected, "\(outcome.detail ?? "")")
        // The same chain after the DAC expired is refused for that reason.
        if expected == .success, dacCert.notAfter.year < 9999 {
            let late = try ASN1Time(unixSeconds: dacCert.notAfter.unixSeconds + 1)
            #expect(verifier.verifyCredentials(dac: dac, pai: pai, certificationDeclaration: nil, at: late).result == .dacExpired)
        }
    }

    /// A DAC outlives its PAI and PAA: checked years after both expired, it still attests.
    @Test func dacOutlivesItsPAIAndPAA() throws {
        let dac = try AttestationFixtures.file(Self.dir + "Chip-Test-DAC-FFF2-8006-0024-ValInPast-Cert.der")
        let pai = try AttestationFixtures.file(Self.dir + "Chip-Test-PAI-FFF2-8006-ValInPast-Cert.der")
        var store = PAATrustStore()
        try store.add(derCertificate: try AttestationFixtures.file(Self.dir + "Chip-Test-PAA-FFF2-ValInPast-Cert.der"))
        let paiCert = try X509Certificate(derEncoded: pai)
        #expect(paiCert.notAfter < AttestationFixtures.revocationTime)
        let verifier = DeviceAttestationVerifier(trustStore: store, allowTestDevices: true)
        let outcome = verifier.verifyCredentials(dac: dac, pai: pai, certificationDeclaration: nil,
                                                 at: AttestationFixtures.revocationTime)
        #expect(outcome.result == .success)
        // And without allowTestDevices the FFF2 test PAA is refused.
        let strict = DeviceAttestationVerifier(trustStore: store)
        #expect(strict.verifyCredentials(dac: dac, pai: pai, certificationDeclaration: nil,
                                         at: AttestationFixtures.revocationTime).result == .testPAARejected)
    }
}
