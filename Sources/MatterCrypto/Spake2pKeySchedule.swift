/// The SPAKE2+ constants and key schedule Matter PASE uses: P-256, SHA-256, HKDF-SHA256,
/// HMAC-SHA256, with the key schedule of draft-bar-cfrg-spake2plus-01 (Matter Core 3.10).
/// RFC 9383 later changed the schedule; Matter did not.
package enum Spake2p {
    /// M = 02886e2f...fa12f (compressed SEC1), from the SPAKE2+ draft for P-256.
    package static let M = try! P256Point(x962: [0x04] + Array(fromHex:
        "886e2f97ace46e55ba9dd7242579f2993b64e16ef3dcab95afd497333d8fa12f"
        + "5ff355163e43ce224e0b0e65ff02ac8e5c7be09419c785e0ca547d55a12e2d20"))

    /// N = 03d8bbd6...92b49 (compressed SEC1), from the SPAKE2+ draft for P-256.
    package static let N = try! P256Point(x962: [0x04] + Array(fromHex:
        "d8bbd6c639c62937b04d997f38c3770719c629d7014d49a24b4f98baa1292b49"
        + "07d60aa6bfade45008a636337f5168c64d9bd36034808cd564490b1e656edbe7"))

    /// Everything the key schedule derives; package-visible so tests can compare each value
    /// with published vectors.
    package struct Keys: Sendable {
        package let Z: [UInt8]
        package let V: [UInt8]
        package let Ka: SecretBytes
        package let Ke: SecretBytes
        package let KcA: SecretBytes
        package let KcB: SecretBytes
        /// HMAC(KcA, Y): the prover's confirmation.
        package let cA: [UInt8]
        /// HMAC(KcB, X): the verifier's confirmation.
        package let cB: [UInt8]
    }

    /// TT = each of Context, idProver, idVerifier, M, N, X, Y, Z, V, w0 prefixed by its length
    /// as 8-byte little-endian; Ka || Ke = SHA-256(TT); KcA || KcB = HKDF(Ka, "ConfirmationKeys").
    package static func keySchedule(context: [UInt8], idProver: [UInt8], idVerifier: [UInt8],
                                    X: P256Point, Y: P256Point, Z: P256Point, V: P256Point,
                                    w0: P256Scalar) throws(CryptoError) -> Keys {
        var transcript = SHA256.Hasher()
        for field in [context, idProver, idVerifier, M.x962, N.x962, X.x962, Y.x962, Z.x962, V.x962, w0.bytes] {
            let length = UInt64(field.count)
            transcript.update((0..<8).map { UInt8(truncatingIfNeeded: length >> (8 * $0)) })
            transcript.update(field)
        }
        let digest = transcript.finalize()
        let Ka = Array(digest.prefix(16)), Ke = Array(digest.suffix(16))
        let confirmation = try HKDF.deriveKey(inputKeyMaterial: Ka, salt: [], info: Array("ConfirmationKeys".utf8),
                                              outputByteCount: 32)
        let KcA = Array(confirmation.prefix(16)), KcB = Array(confirmation.suffix(16))
        return Keys(Z: Z.x962, V: V.x962, Ka: SecretBytes(Ka), Ke: SecretBytes(Ke), KcA: SecretBytes(KcA),
                    KcB: SecretBytes(KcB), cA: HMACSHA256.authenticate(key: KcA, message: Y.x962),
                    cB: HMACSHA256.authenticate(key: KcB, message: X.x962))
    }

    /// Parses a peer's share (pA or pB): it must be a 65-byte uncompressed point on the curve.
    static func peerShare(_ bytes: [UInt8], name: String) throws(CryptoError) -> P256Point {
        guard bytes.count == 65, bytes.first == 0x04 else {
            throw CryptoError(.invalidPoint, "SPAKE2+ share \(name) must be a 65-byte uncompressed point")
        }
        return try P256Point(x962: bytes)
    }
}
