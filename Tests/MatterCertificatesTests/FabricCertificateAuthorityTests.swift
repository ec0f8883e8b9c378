import Foundation
import MatterCrypto
import Testing
import TestSupport
@testable import MatterCertificates
import MatterTLV

/// The hub's CA, checked against our own validator and against OpenSSL's X.509 implementation.
@Suite("FabricCertificateAuthority")
struct FabricCertificateAuthorityTests {
    static let start = MatterEpochTime(unixSeconds: 1_700_000_000)!  // 2023-11-14
    static let validity = CertificateValidity(from: start, days: 3650)
    static let fabric = FabricID(0xFAB0_0000_0000_0042)

    static func pem(_ der: [UInt8]) -> String {
        "-----BEGIN CERTIFICATE-----\n" + Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
            + "\n-----END CERTIFICATE-----\n"
    }

    @Test(arguments: [false, true])
    func issuesAValidChain(withICAC: Bool) throws {
        let ca = try FabricCertificateAuthority.create(fabricID: Self.fabric, rcacID: 1, icacID: withICAC ? 2 : nil,
                                                       validity: Self.validity)
        let nodeKey = P256PrivateKey()
        let csr = try CertificateSigningRequest.create(privateKey: nodeKey)
        let cats = [CASEAuthenticatedTag(identifier: 0x0001, version: 1), CASEAuthenticatedTag(identifier: 0xABCD, version: 7)]
        let noc = try ca.issueNOC(csr: csr, nodeID: NodeID(0x1234), caseAuthenticatedTags: cats, validity: Self.validity)

        // Both encodings, each decoding to the same certificate and converting to the other.
        #expect(try MatterCertificate(tlvEncoded: noc.tlv).derEncoded() == noc.der)
        #expect(try MatterCertificate(derEncoded: noc.der).tlvEncoded == noc.tlv)
        #expect(noc.tlv.count <= MatterCertificate.maxTLVLength)
        #expect(noc.certificate.publicKey == nodeKey.publicKey.x962Representation)

        let identity = try MatterCertificateValidator.validateChain(
            noc: MatterCertificate(tlvEncoded: noc.tlv), icac: ca.intermediate.map { try MatterCertificate(tlvEncoded: $0.tlv) },
            rcac: MatterCertificate(tlvEncoded: ca.root.tlv), now: MatterEpochTime(Self.start.rawValue + 100))
        #expect(identity.nodeID == NodeID(0x1234))
        #expect(identity.fabricID == Self.fabric)
        #expect(identity.caseAuthenticatedTags == cats)
        #expect(try identity.operationalName().instanceName.hasSuffix("-0000000000001234"))
        #expect(ca.root.certificate.subject.fabricID == Self.fabric)
        #expect(try ca.root.certificate.certificateType() == .root)

        // OpenSSL's view: the chain verifies, and the text shows the Matter attributes and usages.
        var files = ["root.pem": Array(Self.pem(ca.root.der).utf8)]
        var verifyArgs = ["verify", "-attime", "1700000100", "-CAfile", "$DIR/root.pem"]
        if let icac = ca.intermediate {
            files["icac.pem"] = Array(Self.pem(icac.der).utf8)
            verifyArgs += ["-untrusted", "$DIR/icac.pem"]
        }
        files["noc.pem"] = Array(Self.pem(noc.der).utf8)
        let verify = try OpenSSL.run(verifyArgs + ["$DIR/noc.pem"], extraFiles: files)
        #expect(verify.status == 0, "\(verify.output)")
        #expect(verify.output.contains("OK"))

        let text = try OpenSSL.run(["x509", "-inform", "DER", "-noout", "-text"], input: noc.der)
        #expect(text.status == 0)
        #expect(text.output.contains("1.3.6.1.4.1.37244.1.1 = 0000000000001234"))
        #expect(text.output.contains("1.3.6.1.4.1.37244.1.5 = FAB0000000000042"))
        #expect(text.output.contains("1.3.6.1.4.1.37244.1.6 = ABCD0007"))
        #expect(text.output.contains("TLS Web Client Authentication, TLS Web Server Authentication"))
        #expect(text.output.contains("Digital Signature"))
        #expect(text.output.contains("ecdsa-with-SHA256"))
        let rootText = try OpenSSL.run(["x509", "-inform", "DER", "-noout", "-text"], input: ca.root.der)
        #expect(rootText.output.contains("CA:TRUE"))
        #expect(rootText.output.contains("Certificate Sign, CRL Sign"))
    }

    @Test func restoresFromStorageAndRejectsMismatches() throws {
        let ca = try FabricCertificateAuthority.create(fabricID: Self.fabric, rcacID: 7, icacID: 8, validity: .noExpiry(from: Self.start))
        #expect(ca.root.certificate.notAfter.rawValue == 0)
        let noExpiry = DERWriter.element(.generalizedTime, Array("99991231235959Z".utf8))
        #expect(ca.root.der.indices.contains { ca.root.der[$0...].starts(with: noExpiry) })
        let restored = try FabricCertificateAuthority(fabricID: Self.fabric, rootKey: ca.rootKey, rootCertificate: ca.root.der,
                                                      intermediateKey: ca.intermediateKey, intermediateCertificate: ca.intermediate?.tlv)
        #expect(restored.root == ca.root)
        #expect(restored.intermediate == ca.intermediate)
        #expect(throws: CertificateError.self) {
            try FabricCertificateAuthority(fabricID: Self.fabric, rootKey: P256PrivateKey(), rootCertificate: ca.root.tlv)
        }
        #expect(throws: CertificateError.self) {
            try FabricCertificateAuthority(fabricID: FabricID(99), rootKey: ca.rootKey, rootCertificate: ca.root.tlv)
        }
        #expect(throws: CertificateError.self) {
            try FabricCertificateAuthority(fabricID: Self.fabric, rootKey: ca.rootKey, rootCertificate: ca.root.tlv,
                                           intermediateKey: ca.rootKey, intermediateCertificate: ca.intermediate?.tlv)
        }
    }

    @Test func rejectsBadRequests() throws {
        let ca = try FabricCertificateAuthority.create(fabricID: Self.fabric, rcacID: 1, validity: Self.validity)
        let key = P256PrivateKey().publicKey.x962Representation
        #expect(throws: CertificateError.invalidNodeID(0)) { try ca.issueNOC(publicKey: key, nodeID: NodeID(0), validity: Self.validity) }
        #expect(throws: CertificateError.self) {
            try ca.issueNOC(publicKey: key, nodeID: NodeID(0xFFFF_FFFF_0000_0001), validity: Self.validity)
        }
        #expect(throws: CertificateError.invalidPublicKey) {
            try ca.issueNOC(publicKey: [UInt8](repeating: 0, count: 65), nodeID: NodeID(1), validity: Self.validity)
        }
        #expect(throws: CertificateError.self) {  // CAT version 0
            try ca.issueNOC(publicKey: key, nodeID: NodeID(1), caseAuthenticatedTags: [CASEAuthenticatedTag(0x0001_0000)], validity: Self.validity)
        }
        #expect(throws: CertificateError.self) {  // four CATs
            try ca.issueNOC(publicKey: key, nodeID: NodeID(1), caseAuthenticatedTags: (1...4).map { CASEAuthenticatedTag(identifier: UInt16($0), version: 1) },
                            validity: Self.validity)
        }
        #expect(throws: CertificateError.invalidFabricID) {
            try FabricCertificateAuthority.create(fabricID: FabricID(0), rcacID: 1, validity: Self.validity)
        }
    }

    @Test func serialNumbersAreRandomAndSeedable() throws {
        let ca = try FabricCertificateAuthority.create(fabricID: Self.fabric, rcacID: 1, validity: Self.validity)
        let key = P256PrivateKey().publicKey.x962Representation
        let a = try ca.issueNOC(publicKey: key, nodeID: NodeID(1), validity: Self.validity)
        let b = try ca.issueNOC(publicKey: key, nodeID: NodeID(1), validity: Self.validity)
        #expect(a.certificate.serialNumber != b.certificate.serialNumber)
        let seeded = try ca.issueNOC(publicKey: key, nodeID: NodeID(1), validity: Self.validity,
                                     random: FixedRandomSource([[0x80, 1, 2, 3, 4, 5, 6, 7]]))
        #expect(seeded.certificate.serialNumber == [0x01, 1, 2, 3, 4, 5, 6, 7])  // top bit cleared, kept non-zero
    }

    @Test func fabricMismatchIsDetected() throws {
        let ca = try FabricCertificateAuthority.create(fabricID: Self.fabric, rcacID: 1, validity: Self.validity)
        // A well-formed NOC for fabric 5, properly signed by this root: only the fabric differs.
        let key = P256PrivateKey().publicKey.x962Representation
        var random = SystemRandomSource()
        let noc = try FabricCertificateAuthority.sign(
            subject: MatterDistinguishedName([try .nodeID(NodeID(2)), try .fabricID(FabricID(5))]),
            issuer: ca.root.certificate.subject, publicKey: key,
            extensions: [.basicConstraints(BasicConstraints(isCA: false)), .keyUsage(.digitalSignature),
                         .extendedKeyUsage([.clientAuth, .serverAuth]),
                         .subjectKeyIdentifier(FabricCertificateAuthority.keyIdentifier(key)),
                         .authorityKeyIdentifier(ca.root.certificate.subjectKeyIdentifier ?? [])],
            validity: Self.validity, signer: ca.rootKey, random: &random)
        #expect(throws: CertificateError.fabricIDMismatch("RCAC fabric FAB0000000000042 differs from NOC fabric 0000000000000005")) {
            try MatterCertificateValidator.validateChain(noc: noc.certificate, icac: nil, rcac: ca.root.certificate, now: nil)
        }
    }

    @Test func pathLengthAndCAFlagAreEnforced() throws {
        var random = SystemRandomSource()
        let rootKey = P256PrivateKey()
        let rootSKID = FabricCertificateAuthority.keyIdentifier(rootKey.publicKey.x962Representation)
        let rootDN = MatterDistinguishedName([try .rcacID(1), try .fabricID(Self.fabric)])
        func root(pathLength: Int?) throws -> IssuedCertificate {
            var bc = BasicConstraints(isCA: true)
            bc.pathLengthConstraint = pathLength
            return try FabricCertificateAuthority.sign(
                subject: rootDN, issuer: rootDN, publicKey: rootKey.publicKey.x962Representation,
                extensions: [.basicConstraints(bc), .keyUsage([.keyCertSign, .cRLSign]),
                             .subjectKeyIdentifier(rootSKID), .authorityKeyIdentifier(rootSKID)],
                validity: Self.validity, signer: rootKey, random: &random)
        }
        let icacKey = P256PrivateKey()
        func icac(isCA: Bool) throws -> IssuedCertificate {
            try FabricCertificateAuthority.sign(
                subject: MatterDistinguishedName([try .icacID(2), try .fabricID(Self.fabric)]), issuer: rootDN,
                publicKey: icacKey.publicKey.x962Representation,
                extensions: [.basicConstraints(BasicConstraints(isCA: isCA)), .keyUsage([.keyCertSign, .cRLSign]),
                             .subjectKeyIdentifier(FabricCertificateAuthority.keyIdentifier(icacKey.publicKey.x962Representation)),
                             .authorityKeyIdentifier(rootSKID)],
                validity: Self.validity, signer: rootKey, random: &random)
        }
        // pathlen 1 allows one ICAC; pathlen 0 allows none; pathlen 2 is over Matter's limit.
        let ca = try FabricCertificateAuthority(fabricID: Self.fabric, rootKey: rootKey, rootCertificate: root(pathLength: 1).tlv,
                                                intermediateKey: icacKey, intermediateCertificate: icac(isCA: true).tlv)
        let noc = try ca.issueNOC(publicKey: P256PrivateKey().publicKey.x962Representation, nodeID: NodeID(3), validity: Self.validity)
        let strictRoot = try root(pathLength: 0).certificate
        #expect(throws: CertificateError.pathLengthExceeded("RCAC path length 0 allows no ICAC")) {
            try MatterCertificateValidator.validateChain(noc: noc.certificate, icac: ca.intermediate?.certificate, rcac: strictRoot, now: nil)
        }
        #expect(throws: CertificateError.usageNotAllowed("RCAC", "path length constraint 2 exceeds 1")) {
            try MatterCertificateValidator.validateRoot(root(pathLength: 2).certificate)
        }
        #expect(throws: CertificateError.usageNotAllowed("ICAC", "basic constraints must mark it a CA")) {
            try MatterCertificateValidator.validateChain(noc: noc.certificate, icac: icac(isCA: false).certificate,
                                                         rcac: ca.root.certificate, now: nil)
        }
    }
}
