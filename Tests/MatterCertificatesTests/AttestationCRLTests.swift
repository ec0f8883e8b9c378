import MatterCertificates
import MatterCrypto
import Testing

/// DCL-style CRLs: a CRL is trusted only when its signer chains to a trusted PAA, and a DAC or
/// PAI it lists is refused with the CRL named; a stale CRL gives a warning.
@Suite struct AttestationCRLTests {
    typealias Builder = AttestationChainBuilder
    static let now = try! ASN1Time(year: 2026, month: 6, day: 1, hour: 0, minute: 0, second: 0)

    struct Fixture {
        let chain: (paa: Builder.Issued, pai: Builder.Issued, dac: Builder.Issued)
        let store: PAATrustStore
        init() throws {
            chain = try Builder.chain(vid: 0x1234, pid: 0x0042)
            store = PAATrustStore(certificates: [try X509Certificate(derEncoded: chain.paa.der)])
        }

        /// A CRL of `issuer` listing `serials`, with nextUpdate `next`.
        func crl(by issuer: Builder.Issued, serials: [[UInt8]], next: ASN1Time = AttestationCRLTests.now) throws -> [UInt8] {
            try CertificateRevocationList.issue(signedBy: issuer.key, issuerName: issuer.subject,
                                                thisUpdate: AttestationCRLTests.now.unixSeconds - 86_400,
                                                nextUpdate: next.unixSeconds, revokedSerialNumbers: serials,
                                                authorityKeyIdentifier: issuer.keyID)
        }

        func attestationCRL(_ der: [UInt8], signer: Builder.Issued, label: String = "Acme PAI CRL") throws -> AttestationCRL {
            try AttestationCRL(crlDER: der, signerCertificate: signer.der, issuerSubjectKeyIdentifier: signer.keyID,
                               label: label, url: "http://127.0.0.1/acme.crl", trustStore: store)
        }

        func verify(_ crls: [AttestationCRL]) -> AttestationVerification {
            DeviceAttestationVerifier(trustStore: store, crls: crls)
                .verifyCredentials(dac: chain.dac.der, pai: chain.pai.der, certificationDeclaration: nil, at: AttestationCRLTests.now)
        }
    }

    @Test func dacOnThePAICRLIsRefusedNamingTheCRL() throws {
        let f = try Fixture()
        let crl = try f.attestationCRL(try f.crl(by: f.chain.pai, serials: [[3]]), signer: f.chain.pai)
        let outcome = f.verify([crl])
        #expect(outcome.result == .dacRevoked)
        #expect(outcome.detail?.contains("'Acme PAI CRL'") == true)
        #expect(outcome.detail?.contains("http://127.0.0.1/acme.crl") == true)
    }

    @Test func paiOnThePAACRLIsRefused() throws {
        let f = try Fixture()
        let crl = try f.attestationCRL(try f.crl(by: f.chain.paa, serials: [[2]]), signer: f.chain.paa, label: "Acme PAA CRL")
        let outcome = f.verify([crl])
        #expect(outcome.result == .paiRevoked)
        #expect(outcome.detail?.contains("'Acme PAA CRL'") == true)
    }

    @Test func otherSerialsPassAndAFreshCRLGivesNoWarning() throws {
        let f = try Fixture()
        let next = try ASN1Time(unixSeconds: Self.now.unixSeconds + 86_400)
        let crl = try f.attestationCRL(try f.crl(by: f.chain.pai, serials: [[9], [0x33]], next: next), signer: f.chain.pai)
        let outcome = f.verify([crl])
        #expect(outcome.result == .success)
        #expect(outcome.warnings.isEmpty)
    }

    @Test func aCRLPastNextUpdateByMoreThanSevenDaysWarns() throws {
        let f = try Fixture()
        let eightDaysAgo = try ASN1Time(unixSeconds: Self.now.unixSeconds - 8 * 86_400)
        let sixDaysAgo = try ASN1Time(unixSeconds: Self.now.unixSeconds - 6 * 86_400)
        let stale = try f.attestationCRL(try f.crl(by: f.chain.pai, serials: [], next: eightDaysAgo), signer: f.chain.pai)
        let late = try f.attestationCRL(try f.crl(by: f.chain.pai, serials: [], next: sixDaysAgo), signer: f.chain.pai)
        let warned = f.verify([stale])
        #expect(warned.result == .success)
        #expect(warned.warnings.count == 1)
        #expect(warned.warnings.first?.contains("'Acme PAI CRL'") == true)
        #expect(warned.warnings.first?.contains("8 days past") == true)
        #expect(f.verify([late]).warnings.isEmpty)
    }

    @Test func refusesACRLNotSignedByItsSigner() throws {
        let f = try Fixture()
        // Names the PAI as issuer but is signed with the DAC's key.
        let forged = try CertificateRevocationList.issue(signedBy: f.chain.dac.key, issuerName: f.chain.pai.subject,
                                                         thisUpdate: Self.now.unixSeconds, nextUpdate: Self.now.unixSeconds + 1,
                                                         revokedSerialNumbers: [[3]], authorityKeyIdentifier: f.chain.pai.keyID)
        #expect(throws: CertificateError.self) { try f.attestationCRL(forged, signer: f.chain.pai) }
    }

    @Test func refusesASignerThatDoesNotChainToATrustedPAA() throws {
        let f = try Fixture()
        let other = try Builder.chain(vid: 0x1234, pid: 0x0042)
        let der = try f.crl(by: other.pai, serials: [[3]])
        #expect(throws: CertificateError.self) { try f.attestationCRL(der, signer: other.pai) }
    }

    @Test func refusesAnIssuerOtherThanTheSigner() throws {
        let f = try Fixture()
        let der = try f.crl(by: f.chain.pai, serials: [[3]])
        #expect(throws: CertificateError.self) { try f.attestationCRL(der, signer: f.chain.paa) }
    }

    @Test func refusesAMismatchedRevocationPointKeyID() throws {
        let f = try Fixture()
        let der = try f.crl(by: f.chain.pai, serials: [[3]])
        #expect(throws: CertificateError.self) {
            try AttestationCRL(crlDER: der, signerCertificate: f.chain.pai.der, issuerSubjectKeyIdentifier: f.chain.paa.keyID,
                               label: "x", url: nil, trustStore: f.store)
        }
    }

    @Test func paaNotFoundNamesThePAAAndWhatToRun() throws {
        let f = try Fixture()
        let outcome = DeviceAttestationVerifier(trustStore: PAATrustStore())
            .verifyCredentials(dac: f.chain.dac.der, pai: f.chain.pai.der, certificationDeclaration: nil, at: Self.now)
        #expect(outcome.result == .paaNotFound)
        let detail = try #require(outcome.detail)
        #expect(detail.contains("'Acme PAA'"))
        #expect(detail.contains("vendor ID 0x1234"))
        let colon = f.chain.paa.keyID.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: ":")
        #expect(detail.contains(colon))
        #expect(detail.contains("trust-store update"))
        #expect(detail.contains("trust-store add"))
    }
}
