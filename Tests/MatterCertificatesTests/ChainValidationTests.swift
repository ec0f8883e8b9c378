import Testing
import TestSupport
@testable import MatterCertificates
import MatterTLV

/// Chain validation over the certificates of matter_certs.json, with the time fixed at
/// 2023-01-01 as the vector notes suggest.
@Suite("MatterCertificateValidator")
struct ChainValidationTests {
    static let vectors = TestVectors.vectors("matter_certs.json")
    static let now = MatterEpochTime(unixSeconds: 1_672_531_200)!  // 2023-01-01T00:00:00Z

    static let certificates: [MatterCertificate] = vectors.filter { $0.valid }.compactMap {
        $0.hex("chip_tlv").flatMap { try? MatterCertificate(tlvEncoded: $0) }
    }

    /// The valid certificate whose subject key ID is `akid`.
    static func issuer(of cert: MatterCertificate) -> MatterCertificate? {
        certificates.first { $0.subjectKeyIdentifier == cert.authorityKeyIdentifier && $0.subject == cert.issuer }
    }

    /// Builds NOC <- ICAC? <- RCAC from the vector set by key ID linkage.
    static func chain(for noc: MatterCertificate) -> (icac: MatterCertificate?, rcac: MatterCertificate)? {
        guard let parent = issuer(of: noc) else { return nil }
        if (try? parent.certificateType()) == .root { return (nil, parent) }
        guard let root = issuer(of: parent) else { return nil }
        return (parent, root)
    }

    static var nodeCertificates: [MatterCertificate] {
        certificates.filter { (try? $0.certificateType()) == .node }
    }

    @Test func validChainsValidate() throws {
        var validated = 0
        for noc in Self.nodeCertificates {
            guard let (icac, rcac) = Self.chain(for: noc) else { continue }
            // RFC 5280 4.2: a critical extension the validator does not know rejects the chain.
            let critical = noc.futureExtensions.contains { (try? X509Extension(derNode: DER.parse($0)))?.isCritical == true }
            if critical {
                #expect(throws: CertificateError.self) {
                    try MatterCertificateValidator.validateChain(noc: noc, icac: icac, rcac: rcac, now: Self.now)
                }
                continue
            }
            let identity = try MatterCertificateValidator.validateChain(noc: noc, icac: icac, rcac: rcac, now: Self.now)
            #expect(identity.nodeID == noc.subject.nodeID)
            #expect(identity.fabricID == FabricID(0xFAB0_0000_0000_001D))
            #expect(identity.rootPublicKey == rcac.publicKey)
            validated += 1
        }
        #expect(validated >= 6)  // Node01_02 and the Node02_* family
        let node0204 = try #require(Self.nodeCertificates.first { $0.subject.nodeID == NodeID(0xDEDE_DEDE_0002_0004) })
        let (icac, rcac) = try #require(Self.chain(for: node0204))
        let identity = try MatterCertificateValidator.validateChain(noc: node0204, icac: icac, rcac: rcac, now: nil)
        #expect(identity.caseAuthenticatedTags == [CASEAuthenticatedTag(0xABCE_1002), CASEAuthenticatedTag(0xABCD_0003)])
    }

    @Test func chainChecksFailWithNamedErrors() throws {
        let noc = try #require(Self.nodeCertificates.first { Self.chain(for: $0)?.icac != nil })
        let (icacOpt, rcac) = try #require(Self.chain(for: noc))
        let icac = try #require(icacOpt)
        let otherRoot = try #require(Self.certificates.first { (try? $0.certificateType()) == .root && $0.publicKey != rcac.publicKey && $0.subject != rcac.subject })

        // Expired and not yet valid.
        #expect(throws: CertificateError.self) {
            try MatterCertificateValidator.validateChain(noc: noc, icac: icac, rcac: rcac, now: MatterEpochTime(noc.notAfter.rawValue + 1))
        }
        #expect(throws: CertificateError.self) {
            try MatterCertificateValidator.validateChain(noc: noc, icac: icac, rcac: rcac, now: MatterEpochTime(noc.notBefore.rawValue - 1))
        }
        // Missing ICAC: the NOC's issuer is not the root.
        #expect(throws: CertificateError.self) { try MatterCertificateValidator.validateChain(noc: noc, icac: nil, rcac: rcac, now: Self.now) }
        // Wrong root.
        #expect(throws: CertificateError.self) { try MatterCertificateValidator.validateChain(noc: noc, icac: icac, rcac: otherRoot, now: Self.now) }
        // Roles swapped.
        #expect(throws: CertificateError.wrongCertificateRole(expected: "NOC", found: "ICAC")) {
            try MatterCertificateValidator.validateChain(noc: icac, icac: icac, rcac: rcac, now: Self.now)
        }
        // A tampered NOC: signature no longer verifies.
        var tampered = noc
        tampered.notBefore = MatterEpochTime(noc.notBefore.rawValue + 1)
        #expect(throws: CertificateError.signatureInvalid("NOC is not signed by the issuer's key")) {
            try MatterCertificateValidator.validateChain(noc: tampered, icac: icac, rcac: rcac, now: Self.now)
        }
        // Fabric mismatch is checked on the (signed) subjects; a re-signed chain is built in the CA tests.
    }

    /// Every malformed NOC or ICAC of the vector file that loads also fails chain validation
    /// under its real issuer.
    @Test func malformedIssuedCertificatesFailChainValidation() throws {
        var checked = 0
        for v in Self.vectors where !v.valid {
            guard let bytes = v.hex("bytes"), let cert = try? MatterCertificate(anyEncoding: bytes) else { continue }
            guard let parent = Self.issuer(of: cert) else { continue }
            switch v.string("cert_role") {
            case "NOC":
                let rcac = (try? parent.certificateType()) == .root ? parent : Self.issuer(of: parent)
                guard let rcac else { continue }
                let icac = rcac == parent ? nil : parent
                #expect(throws: CertificateError.self, "\(v.id)") {
                    try MatterCertificateValidator.validateChain(noc: cert, icac: icac, rcac: rcac, now: Self.now)
                }
                checked += 1
            case "ICAC":
                guard let noc = Self.nodeCertificates.first(where: { Self.issuer(of: $0)?.subject == cert.subject }) ?? Self.nodeCertificates.first else { continue }
                #expect(throws: CertificateError.self, "\(v.id)") {
                    try MatterCertificateValidator.validateChain(noc: noc, icac: cert, rcac: parent, now: Self.now)
                }
                checked += 1
            default:
                continue
            }
        }
        #expect(checked > 10)
    }
}
