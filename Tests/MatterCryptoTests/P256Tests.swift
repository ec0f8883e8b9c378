import Foundation
import MatterCrypto
import Testing
import TestSupport

@Suite struct ECDHTests {
    @Test(arguments: TestVectors.vectors("ecdh_p256.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let privateBytes = try #require(v.bytes("private_key"))
        let peerBytes = try #require(v.bytes("peer_public_key"))
        let expected = try #require(v.bytes("shared_secret"))
        guard v.valid else {
            #expect(throws: CryptoError.self) {
                try P256PrivateKey(rawRepresentation: privateBytes)
                    .sharedSecret(with: P256PublicKey(x962Representation: peerBytes))
            }
            return
        }
        let key = try P256PrivateKey(rawRepresentation: privateBytes)
        let peer = try P256PublicKey(x962Representation: peerBytes)
        #expect(try key.sharedSecret(with: peer) == SecretBytes(expected))
    }

    @Test func bothSidesAgree() throws {
        let a = P256PrivateKey(), b = P256PrivateKey()
        let ab = try a.sharedSecret(with: b.publicKey)
        #expect(ab == (try b.sharedSecret(with: a.publicKey)))
        #expect(ab.count == 32)
    }
}

@Suite struct ECDSATests {
    @Test(arguments: TestVectors.vectors("ecdsa_p256.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        switch v.string("kind") {
        case "ecdsa_verify":
            try verify(v)
        case "raw_der_signature_conversion":
            let length = try #require(v.int("fe_length_bytes"))
            let raw = try #require(v.bytes("raw")), der = try #require(v.bytes("der"))
            #expect(try ECDSASignatureDER.encode(raw: raw, coordinateLength: length) == der)
            #expect(try ECDSASignatureDER.decode(der, coordinateLength: length) == raw)
            if length == 32 {
                #expect(try P256Signature(rawRepresentation: raw).derRepresentation == der)
                #expect(try P256Signature(derRepresentation: der).rawRepresentation == raw)
            }
        case "raw_integer_to_der":
            let candidate = try #require(v.bytes("candidate"))
            #expect(ASN1Integer.encode(unsigned: candidate) == v.bytes("expected_der_integer"))
            #expect(ASN1Integer.content(unsigned: candidate) == v.bytes("expected_without_tag"))
        default:
            Issue.record("unknown ecdsa vector kind \(v.string("kind") ?? "nil")")
        }
    }

    private func verify(_ v: Vector) throws {
        #expect(v.string("hash") ?? "SHA-256" == "SHA-256")
        let message = try #require(v.bytes("message"))
        let publicKey = try? P256PublicKey(x962Representation: try #require(v.bytes("public_key")))
        // A vector is valid only if the key parses and the signature, in each form given, verifies.
        var forms: [P256Signature?] = []
        if let raw = v.bytes("signature_raw") { forms.append(try? P256Signature(rawRepresentation: raw)) }
        if let der = v.bytes("signature_der") { forms.append(try? P256Signature(derRepresentation: der)) }
        #expect(!forms.isEmpty)
        for signature in forms {
            let verified = signature.map { publicKey?.isValidSignature($0, for: message) ?? false } ?? false
            #expect(verified == v.valid)
        }
        if v.valid, let raw = v.bytes("signature_raw"), let der = v.bytes("signature_der") {
            #expect(try P256Signature(derRepresentation: der).rawRepresentation == raw)
            #expect(try P256Signature(rawRepresentation: raw).derRepresentation == der)
        }
    }

    @Test func signThenVerify() throws {
        let key = P256PrivateKey()
        let message = Array("Matter attestation".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.rawRepresentation.count == 64)
        #expect(key.publicKey.isValidSignature(signature, for: message))
        #expect(!key.publicKey.isValidSignature(signature, for: message + [0]))
        #expect(!P256PrivateKey().publicKey.isValidSignature(signature, for: message))
        // r = 0 or s = 0 never verifies.
        let zeroR = try P256Signature(rawRepresentation: [UInt8](repeating: 0, count: 32) + signature.rawRepresentation.suffix(32))
        #expect(!key.publicKey.isValidSignature(zeroR, for: message))
    }

    @Test(arguments: [
        "", "30", "3000", "300602010102010100", "3006020100020100ff", "30060201ff020101", "300702020001020101",
        "30260221" + String(repeating: "11", count: 33) + "020101", "308106020101020101",
    ])
    func malformedDERIsRejected(hex: String) {
        let bytes = Hex.decode(hex) ?? [0xFF]
        #expect(throws: CryptoError.self) { try P256Signature(derRepresentation: bytes) }
    }

    @Test func malformedKeysAndRawSignaturesAreRejected() {
        #expect(throws: CryptoError.self) { try P256Signature(rawRepresentation: [UInt8](repeating: 1, count: 63)) }
        #expect(throws: CryptoError.self) { try P256PublicKey(x962Representation: []) }
        #expect(throws: CryptoError.self) { try P256PublicKey(x962Representation: [4] + [UInt8](repeating: 1, count: 64)) }
        // The identity has no 65-byte form; x = 0 with a non-curve y is off the curve.
        #expect(throws: CryptoError.self) { try P256PublicKey(x962Representation: [0]) }
        #expect(throws: CryptoError.self) { try P256PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: CryptoError.self) { try P256PrivateKey(rawRepresentation: [UInt8](repeating: 0xFF, count: 32)) }
        #expect(throws: CryptoError.self) { try P256PrivateKey(rawRepresentation: [1] + [UInt8](repeating: 0, count: 32)) }
    }

    @Test func seededMutationsOfSignaturesNeverTrap() throws {
        let key = P256PrivateKey()
        let message: [UInt8] = [1, 2, 3]
        let der = try key.signature(for: message).derRepresentation
        var rng = SeededRandom(seed: 0x5EED)
        for _ in 0..<500 {
            let mutated = Mutation.mutate(der, using: &rng)
            // Strict DER has one encoding per (r, s), so any other bytes must not verify.
            guard mutated != der, let signature = try? P256Signature(derRepresentation: mutated) else { continue }
            #expect(!key.publicKey.isValidSignature(signature, for: message))
        }
    }
}

@Suite struct P256KeyTests {
    @Test func compressedAndUncompressedPublicKeysAreEqual() throws {
        let key = P256PrivateKey().publicKey
        let uncompressed = key.x962Representation
        let compressed = [0x02 | (uncompressed[64] & 1)] + Array(uncompressed[1...32])
        #expect(try P256PublicKey(x962Representation: compressed) == key)
        #expect(try P256PublicKey(derRepresentation: key.derRepresentation) == key)
        // The hybrid form (06/07 || X || Y) is valid SEC1 but not a form Matter uses.
        #expect(throws: CryptoError.self) {
            try P256PublicKey(x962Representation: [0x06 | (uncompressed[64] & 1)] + uncompressed.dropFirst())
        }
    }

    /// One key shared by concurrent tasks (keys are Sendable and OpenSSL keys are read-only).
    @Test func concurrentUseOfOneKey() async throws {
        let key = P256PrivateKey(), peer = P256PrivateKey().publicKey
        let expected = try key.sharedSecret(with: peer)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<16 {
                group.addTask {
                    let message = [UInt8(index)]
                    let signature = try key.signature(for: message)
                    let secret = try key.sharedSecret(with: peer)
                    return key.publicKey.isValidSignature(signature, for: message) && secret == expected
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 16 && results.allSatisfy { $0 })
    }

    @Test func privateKeyFormsRoundTrip() throws {
        let key = P256PrivateKey()
        let raw = key.rawRepresentation
        #expect(raw.count == 32)
        #expect(try P256PrivateKey(rawRepresentation: raw.bytes).publicKey == key.publicKey)
        #expect(try P256PrivateKey(derRepresentation: key.pkcs8DERRepresentation.bytes).rawRepresentation == raw)
        #expect(try P256PrivateKey(derRepresentation: key.sec1DERRepresentation.bytes).rawRepresentation == raw)
        let pem = String(decoding: key.pemRepresentation.bytes, as: UTF8.self)
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try P256PrivateKey(pemRepresentation: pem).rawRepresentation == raw)
        #expect(throws: CryptoError.self) { try P256PrivateKey(derRepresentation: key.pkcs8DERRepresentation.bytes + [0]) }
        #expect(throws: CryptoError.self) { try P256PrivateKey(derRepresentation: key.publicKey.derRepresentation) }
        #expect(throws: CryptoError.self) { try P256PrivateKey(pemRepresentation: "-----BEGIN PRIVATE KEY-----\n") }
    }

    /// Found by fuzz-crypto: OpenSSL accepts a SEC1 key whose embedded public key does not
    /// belong to its scalar; such a (corrupted) key must be refused.
    @Test func mismatchedEmbeddedPublicKeyIsRefused() throws {
        let sec1 = P256PrivateKey().sec1DERRepresentation.bytes
        var corrupted = sec1
        corrupted[7 + 31] ^= 0x01  // last byte of the 32-byte scalar (30 77 02 01 01 04 20 <scalar>)
        #expect(throws: CryptoError.self) { try P256PrivateKey(derRepresentation: corrupted) }
        let crash = Hex.decode(
            "30770201010420846519c4b8fc590459985c19466ab04b0e9bffb2927df9ce6feb47826b1dce38a00a06082a8648ce3d"
            + "030107a144034200047dd00830437ffbd7070938493184b4bc56464f7d8100cdef33f8929939bebc8d533695d71f4c0da9bf1c8e847fdd708b5cd3abd62ee3358169bd32085a3528dd")!
        #expect(throws: CryptoError.self) { try P256PrivateKey(derRepresentation: crash) }
    }

    /// The SDK's test key files (SEC1, DER and PEM) load, agree with each other, and hold the
    /// key of the certificate with the same name (public key from attestation_certs.json).
    @Test func sdkTestKeyFilesLoad() throws {
        let folder = TestVectors.directory.appendingPathComponent("attestation/test-attestation")
        let index = try TestVectors.load("attestation/attestation_certs.json")
        var certificateKeys: [String: String] = [:]
        for entry in index {
            if let file = entry["file"] as? String, let summary = entry["x509_summary"] as? [String: Any],
               let key = summary["public_key"] as? String { certificateKeys[file] = key }
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix("-Key.der") }
        var matched = 0, loaded = 0
        for file in files.sorted() {
            let der = try [UInt8](Data(contentsOf: folder.appendingPathComponent(file)))
            let key = try P256PrivateKey(derRepresentation: der)
            loaded += 1
            let pemFile = folder.appendingPathComponent(file.replacingOccurrences(of: ".der", with: ".pem"))
            if let pem = try? String(contentsOf: pemFile, encoding: .utf8) {
                #expect(try P256PrivateKey(pemRepresentation: pem).rawRepresentation == key.rawRepresentation, "\(file)")
            }
            let certificate = "attestation/test-attestation/" + file.replacingOccurrences(of: "-Key.der", with: "-Cert.der")
            if let expected = certificateKeys[certificate] {
                #expect(Hex.encode(key.publicKey.x962Representation) == expected, "\(file)")
                matched += 1
            }
            let signature = try key.signature(for: der)
            #expect(key.publicKey.isValidSignature(signature, for: der))
        }
        #expect(loaded == files.count && loaded > 0)
        #expect(matched > 0)
    }
}
