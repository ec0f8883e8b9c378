/// Matter group key derivations (Matter Core 4.17.2 and 4.17.3).
public enum MatterGroupKeys {
    /// Operational group key = HKDF(epoch key, salt = compressed fabric ID, "GroupKey v1.0", 16).
    /// - Throws: `CryptoError.invalidArgument` unless the epoch key is 16 bytes and the
    ///   compressed fabric ID 8 bytes.
    public static func operationalKey(epochKey: [UInt8], compressedFabricID: [UInt8]) throws(CryptoError) -> SecretBytes {
        guard epochKey.count == 16 else { throw CryptoError.length("group epoch key", is: epochKey.count, expected: "16") }
        guard compressedFabricID.count == 8 else {
            throw CryptoError.length("compressed fabric ID", is: compressedFabricID.count, expected: "8")
        }
        return SecretBytes(try HKDF.deriveKey(inputKeyMaterial: epochKey, salt: compressedFabricID,
                                              info: Array("GroupKey v1.0".utf8), outputByteCount: 16))
    }

    /// Group session ID = the first 2 bytes, big-endian, of HKDF(operational key, "GroupKeyHash").
    public static func sessionID(operationalKey: SecretBytes) throws(CryptoError) -> UInt16 {
        try checkOperationalKey(operationalKey)
        let hash = try HKDF.deriveKey(inputKeyMaterial: operationalKey.bytes, salt: [],
                                      info: Array("GroupKeyHash".utf8), outputByteCount: 2)
        return UInt16(hash[0]) << 8 | UInt16(hash[1])
    }

    /// Privacy key = HKDF(operational key, "PrivacyKey", 16), for message header obfuscation.
    public static func privacyKey(operationalKey: SecretBytes) throws(CryptoError) -> SecretBytes {
        try checkOperationalKey(operationalKey)
        return SecretBytes(try HKDF.deriveKey(inputKeyMaterial: operationalKey.bytes, salt: [],
                                              info: Array("PrivacyKey".utf8), outputByteCount: 16))
    }

    private static func checkOperationalKey(_ key: SecretBytes) throws(CryptoError) {
        guard key.count == 16 else { throw CryptoError.length("operational group key", is: key.count, expected: "16") }
    }
}
