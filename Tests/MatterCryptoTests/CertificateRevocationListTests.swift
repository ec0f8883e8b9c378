import MatterCrypto
import Testing
import TestSupport

/// CRLs as OpenSSL parses them: what `issue` signs reads back, the signature binds the issuer
/// key, and malformed input is refused with an error, never a trap.
@Suite struct CertificateRevocationListTests {
    /// Name ::= SEQUENCE { SET { SEQUENCE { OID commonName, UTF8String "CRL Test PAI" } } }
    static let issuer: [UInt8] = [0x30, 0x17, 0x31, 0x15, 0x30, 0x13, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0C, 0x0C]
        + Array("CRL Test PAI".utf8)
    static let akid = [UInt8](repeating: 0xA5, count: 20)

    static func issue(_ key: P256PrivateKey, serials: [[UInt8]]) throws -> [UInt8] {
        try CertificateRevocationList.issue(signedBy: key, issuerName: issuer, thisUpdate: 1_700_000_000,
                                            nextUpdate: 1_700_604_800, revokedSerialNumbers: serials,
                                            authorityKeyIdentifier: akid)
    }

    @Test func readsBackWhatWasIssued() throws {
        let key = P256PrivateKey()
        let crl = try CertificateRevocationList(derEncoded: try Self.issue(key, serials: [[0x03], [0x00, 0x9F, 0x01]]))
        #expect(crl.issuerName == Self.issuer)
        #expect(crl.thisUpdate == 1_700_000_000)
        #expect(crl.nextUpdate == 1_700_604_800)
        #expect(crl.authorityKeyIdentifier == Self.akid)
        #expect(crl.isECDSAWithSHA256)
        #expect(Set(crl.entries.map(\.serialNumber)) == [[0x03], [0x9F, 0x01]])
        #expect(crl.lists(serialNumber: [0x00, 0x03]))
        #expect(crl.lists(serialNumber: [0x9F, 0x01]))
        #expect(!crl.lists(serialNumber: [0x04]))
        #expect(crl.isSignatureValid(publicKey: key.publicKey))
        #expect(!crl.isSignatureValid(publicKey: P256PrivateKey().publicKey))
    }

    @Test func emptyCRLHasNoEntries() throws {
        let crl = try CertificateRevocationList(derEncoded: try Self.issue(P256PrivateKey(), serials: []))
        #expect(crl.entries.isEmpty)
    }

    @Test func refusesTrailingTruncatedAndEmptyInput() throws {
        let der = try Self.issue(P256PrivateKey(), serials: [[0x01]])
        #expect(throws: CryptoError.self) { try CertificateRevocationList(derEncoded: der + [0x00]) }
        #expect(throws: CryptoError.self) { try CertificateRevocationList(derEncoded: Array(der.dropLast())) }
        #expect(throws: CryptoError.self) { try CertificateRevocationList(derEncoded: []) }
        #expect(throws: CryptoError.self) { try CertificateRevocationList(derEncoded: Array("not a CRL".utf8)) }
    }

    /// A tampered CRL either fails to parse or fails its signature; it never traps.
    @Test func mutationsNeverTrapAndNeverVerify() throws {
        let key = P256PrivateKey()
        let der = try Self.issue(key, serials: [[0x01], [0x02]])
        var rng = SeededRandom(seed: 0xC71)
        for _ in 0..<300 {
            var bytes = der
            let i = Int(rng.next() % UInt64(bytes.count))
            bytes[i] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
            if let crl = try? CertificateRevocationList(derEncoded: bytes) {
                #expect(!crl.isSignatureValid(publicKey: key.publicKey) || crl.derBytes == der)
            }
        }
    }
}
