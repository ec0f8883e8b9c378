import MatterCrypto

/// ECDSA P-256 SHA-256 checks over the bytes that were signed.
package enum AttestationSignatures {
    /// Whether `certificate` carries a valid ecdsa-with-SHA256 signature by `issuer`'s P-256 key,
    /// checked over its tbsCertificate as received.
    package static func verify(_ certificate: X509Certificate, signedBy issuer: X509Certificate) -> Bool {
        guard certificate.signatureAlgorithm.algorithm == .ecdsaWithSHA256,
              let keyBytes = try? issuer.subjectPublicKeyInfo.p256PublicKey(),
              let key = try? P256PublicKey(x962Representation: keyBytes),
              let signature = try? P256Signature(derRepresentation: certificate.signature)
        else { return false }
        return key.isValidSignature(signature, for: certificate.tbsBytes)
    }
}
