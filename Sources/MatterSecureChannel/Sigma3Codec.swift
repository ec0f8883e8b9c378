import MatterTLV

/// Sigma3 (Matter Core 4.14.2.3): { encrypted3 [1] }.
public enum Sigma3Codec {
    public static func encode(_ encrypted3: [UInt8]) -> [UInt8] {
        TLVWriter.encode(.structure([.bytes(.context(1), encrypted3)]))
    }

    public static func decode(_ bytes: [UInt8]) throws(SecureChannelError) -> [UInt8] {
        let e = try CASECodec.root(bytes, "Sigma3")
        let v = try CASECodec.bytes(e, 1, "Sigma3")
        guard v.count > 16 else { throw .malformed(message: "Sigma3", reason: "encrypted data too short") }
        return v
    }
}
