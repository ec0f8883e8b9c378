import MatterCrypto

/// The CASE key schedule (Matter Core 4.14.2): destination ID, Sigma2/Sigma3 keys, session keys
/// and the resumption MICs. Pure functions, checked against the SDK's and matter.js's vectors.
public enum CASEKeys {
    static let sigma2Nonce = Array("NCASE_Sigma2N".utf8)
    static let sigma3Nonce = Array("NCASE_Sigma3N".utf8)
    static let resume1Nonce = Array("NCASE_SigmaS1".utf8)
    static let resume2Nonce = Array("NCASE_SigmaS2".utf8)

    /// HMAC(IPK, initiator random || root public key || fabric ID (LE) || node ID (LE)).
    public static func destinationID(ipk: SecretBytes, initiatorRandom: [UInt8], rootPublicKey: [UInt8],
                                     fabricID: UInt64, nodeID: UInt64) -> [UInt8] {
        var message = initiatorRandom + rootPublicKey
        for i in 0..<8 { message.append(UInt8(truncatingIfNeeded: fabricID >> (8 * i))) }
        for i in 0..<8 { message.append(UInt8(truncatingIfNeeded: nodeID >> (8 * i))) }
        return HMACSHA256.authenticate(key: ipk.bytes, message: message)
    }

    /// S2K = HKDF(shared secret, IPK || responder random || responder key || SHA-256(Sigma1), "Sigma2").
    public static func sigma2Key(sharedSecret: SecretBytes, ipk: SecretBytes, responderRandom: [UInt8],
                                 responderEphemeralKey: [UInt8], sigma1: [UInt8]) throws(CryptoError) -> SecretBytes {
        let salt = ipk.bytes + responderRandom + responderEphemeralKey + SHA256.hash(sigma1)
        return SecretBytes(try HKDF.deriveKey(inputKeyMaterial: sharedSecret.bytes, salt: salt,
                                              info: Array("Sigma2".utf8), outputByteCount: 16))
    }

    /// S3K = HKDF(shared secret, IPK || SHA-256(Sigma1 || Sigma2), "Sigma3").
    public static func sigma3Key(sharedSecret: SecretBytes, ipk: SecretBytes, sigma1: [UInt8], sigma2: [UInt8]) throws(CryptoError) -> SecretBytes {
        let salt = ipk.bytes + SHA256.hash(sigma1 + sigma2)
        return SecretBytes(try HKDF.deriveKey(inputKeyMaterial: sharedSecret.bytes, salt: salt,
                                              info: Array("Sigma3".utf8), outputByteCount: 16))
    }

    /// I2R || R2I || attestation challenge = HKDF(shared secret, IPK || SHA-256(Sigma1 || Sigma2 || Sigma3), "SessionKeys").
    public static func sessionKeys(sharedSecret: SecretBytes, ipk: SecretBytes, sigma1: [UInt8], sigma2: [UInt8],
                                   sigma3: [UInt8]) throws(CryptoError) -> (i2r: SecretBytes, r2i: SecretBytes, challenge: SecretBytes) {
        let salt = ipk.bytes + SHA256.hash(sigma1 + sigma2 + sigma3)
        return try split(HKDF.deriveKey(inputKeyMaterial: sharedSecret.bytes, salt: salt,
                                        info: Array("SessionKeys".utf8), outputByteCount: 48))
    }

    /// Keys of a resumed session: HKDF(shared secret, initiator random || new resumption ID, "SessionResumptionKeys").
    public static func resumedSessionKeys(sharedSecret: SecretBytes, initiatorRandom: [UInt8], resumptionID: [UInt8]) throws(CryptoError)
        -> (i2r: SecretBytes, r2i: SecretBytes, challenge: SecretBytes) {
        try split(HKDF.deriveKey(inputKeyMaterial: sharedSecret.bytes, salt: initiatorRandom + resumptionID,
                                 info: Array("SessionResumptionKeys".utf8), outputByteCount: 48))
    }

    /// The resumption MIC: the AES-CCM tag over nothing, keyed by HKDF(shared secret,
    /// initiator random || resumption ID, info) (info "Sigma1_Resume" / "Sigma2_Resume").
    static func resumeMIC(sharedSecret: SecretBytes, initiatorRandom: [UInt8], resumptionID: [UInt8],
                          info: String, nonce: [UInt8]) throws(CryptoError) -> [UInt8] {
        let key = try HKDF.deriveKey(inputKeyMaterial: sharedSecret.bytes, salt: initiatorRandom + resumptionID,
                                     info: Array(info.utf8), outputByteCount: 16)
        return try AESCCM.seal(key: key, nonce: nonce, plaintext: [], additionalData: [])
    }

    public static func sigma1ResumeMIC(sharedSecret: SecretBytes, initiatorRandom: [UInt8], resumptionID: [UInt8]) throws(CryptoError) -> [UInt8] {
        try resumeMIC(sharedSecret: sharedSecret, initiatorRandom: initiatorRandom, resumptionID: resumptionID,
                      info: "Sigma1_Resume", nonce: resume1Nonce)
    }

    public static func sigma2ResumeMIC(sharedSecret: SecretBytes, initiatorRandom: [UInt8], resumptionID: [UInt8]) throws(CryptoError) -> [UInt8] {
        try resumeMIC(sharedSecret: sharedSecret, initiatorRandom: initiatorRandom, resumptionID: resumptionID,
                      info: "Sigma2_Resume", nonce: resume2Nonce)
    }

    private static func split(_ k: [UInt8]) -> (i2r: SecretBytes, r2i: SecretBytes, challenge: SecretBytes) {
        (SecretBytes(Array(k[0..<16])), SecretBytes(Array(k[16..<32])), SecretBytes(Array(k[32..<48])))
    }
}
