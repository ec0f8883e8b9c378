import MatterTLV
import MatterCrypto

// Network (client) identities for Wi-Fi per-device credentials (Matter Core 11.24): self-signed
// certificates whose every field but the public key and signature is fixed, which is why they
// also have a compact TLV form `{9: ec-pub-key, 11: signature}`.

extension MatterCertificate {
    /// The fixed fields of a network identity.
    public enum NetworkIdentityProfile {
        public static let serialNumber: [UInt8] = [0x01]
        public static let notBefore = MatterEpochTime(1)
        public static let notAfter = MatterEpochTime(0)
        public static let extensions: [MatterCertificateExtension] = [
            .basicConstraints(BasicConstraints(isCA: false)),
            .keyUsage(.digitalSignature),
            .extendedKeyUsage([.clientAuth, .serverAuth]),
        ]
    }

    /// The network identity for a public key, with the given signature (64 bytes r||s).
    public static func networkIdentity(publicKey: [UInt8], signature: [UInt8]) -> MatterCertificate {
        MatterCertificate(serialNumber: NetworkIdentityProfile.serialNumber, issuer: .networkIdentity,
                          notBefore: NetworkIdentityProfile.notBefore, notAfter: NetworkIdentityProfile.notAfter,
                          subject: .networkIdentity, publicKey: publicKey,
                          extensions: NetworkIdentityProfile.extensions, signature: signature)
    }

    /// Whether every field is the network identity's fixed value (so the compact form applies).
    public var hasNetworkIdentityProfile: Bool {
        serialNumber == NetworkIdentityProfile.serialNumber && issuer == .networkIdentity && subject == .networkIdentity
            && notBefore == NetworkIdentityProfile.notBefore && notAfter == NetworkIdentityProfile.notAfter
            && extensions == NetworkIdentityProfile.extensions
    }

    /// The compact-pdc-identity TLV form, for a certificate with the network identity profile.
    public var compactNetworkIdentityTLV: [UInt8]? {
        guard hasNetworkIdentityProfile else { return nil }
        return TLVElement.structure(.anonymous, [
            .bytes(.context(Tag.publicKey), publicKey), .bytes(.context(Tag.signature), signature),
        ]).encoded
    }

    /// Decodes the compact form: exactly the public key (tag 9) then the signature (tag 11).
    init(compactNetworkIdentity members: [TLVElement]) throws(CertificateError) {
        var fields = FieldCursor(members)
        let key = try Self.bytes(try fields.next(Tag.publicKey, "ec-pub-key"), "ec-pub-key")
        guard key.count == 65, key[0] == 0x04 else { throw .invalidPublicKey }
        let signature = try Self.bytes(try fields.next(Tag.signature, "signature"), "signature")
        guard signature.count == 64 else { throw .malformedField("signature", "must be 64 bytes r||s") }
        try fields.end()
        self = Self.networkIdentity(publicKey: key, signature: signature)
    }
}

extension MatterCertificateValidator {
    /// Checks a network client identity: every fixed field as Matter Core 11.24 mandates, a
    /// valid P-256 key, and a self-signature.
    public static func validateNetworkIdentity(_ cert: MatterCertificate) throws(CertificateError) {
        try requireRole(cert, .networkIdentity)
        guard cert.hasNetworkIdentityProfile else {
            throw .wrongCertificateRole(expected: "network identity", found: "a CN=* certificate with other fields")
        }
        guard (try? P256PublicKey(x962Representation: cert.publicKey)) != nil else { throw .invalidPublicKey }
        try verifySignature(of: cert, issuerKey: cert.publicKey, "network identity")
    }
}
