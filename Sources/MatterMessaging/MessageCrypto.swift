import MatterCrypto

/// Message encryption and privacy (Matter Core 4.8 and 4.9): the header travels in clear as
/// AES-CCM additional data, the protocol header and payload are encrypted, a 16-byte MIC
/// follows; with privacy, the counter and node IDs are also hidden with AES-CTR.
public enum MessageCrypto {
    public static let micLength = 16

    /// The AES-CCM nonce: security flags as sent || counter (LE) || source node ID (LE; 0 when
    /// the session has none, as PASE).
    public static func nonce(securityFlags: UInt8, counter: UInt32, sourceNodeID: UInt64) -> [UInt8] {
        var n: [UInt8] = [securityFlags]
        n.appendLittleEndian(counter)
        n.appendLittleEndian(sourceNodeID)
        return n
    }

    /// The privacy nonce: session ID (big-endian) || the MIC's last 11 bytes.
    public static func privacyNonce(sessionID: UInt16, mic: [UInt8]) -> [UInt8] {
        var n: [UInt8] = []
        n.appendBigEndian(sessionID)
        return n + mic.suffix(11)
    }

    /// The privacy key of a session: HKDF(encryption key, info "PrivacyKey"), the same
    /// derivation as a group's privacy key.
    public static func privacyKey(for encryptionKey: SecretBytes) throws -> SecretBytes {
        try MatterGroupKeys.privacyKey(operationalKey: encryptionKey)
    }

    /// Encrypts a message: `payload` is the protocol header and application payload.
    /// `nonceNodeID` is the sender's node ID for the nonce (0 for PASE sessions).
    public static func seal(header: MessageHeader, payload: [UInt8], key: SecretBytes, nonceNodeID: UInt64,
                            privacyKey: SecretBytes? = nil) throws(MessagingError) -> [UInt8] {
        var header = header
        header.privacy = privacyKey != nil
        let clearHeader = header.encoded()
        let n = nonce(securityFlags: header.securityFlags, counter: header.messageCounter, sourceNodeID: nonceNodeID)
        let sealed: [UInt8]
        do {
            sealed = try AESCCM.seal(key: key.bytes, nonce: n, plaintext: payload, additionalData: clearHeader)
        } catch {
            throw .authenticationFailed
        }
        var frame = clearHeader + sealed
        if let privacyKey {
            try obfuscate(&frame, header: header, privacyKey: privacyKey)
        }
        return frame
    }

    /// Decrypts a frame whose header was already read (deobfuscated first if the P flag is set).
    /// Returns the header and the decrypted protocol header + payload.
    public static func open(frame: [UInt8], key: SecretBytes, nonceNodeID: UInt64? = nil,
                            privacyKey: SecretBytes? = nil) throws(MessagingError) -> (MessageHeader, [UInt8]) {
        var frame = frame
        guard frame.count >= 4 else { throw .truncated(offset: frame.count) }
        if frame[3] & MessageHeader.Flag.privacy != 0 {
            guard let privacyKey else { throw .invalidHeader("privacy flag set but the session has no privacy key") }
            let (peek, _) = try MessageHeader.decode(frame)
            try obfuscate(&frame, header: peek, privacyKey: privacyKey)
        }
        let (header, headerLength) = try MessageHeader.decode(frame)
        guard frame.count - headerLength >= micLength else { throw .truncated(offset: frame.count) }
        let nodeID = nonceNodeID ?? header.sourceNodeID ?? 0
        let n = nonce(securityFlags: header.securityFlags, counter: header.messageCounter, sourceNodeID: nodeID)
        do {
            let payload = try AESCCM.open(key: key.bytes, nonce: n, ciphertextAndTag: Array(frame[headerLength...]),
                                          additionalData: Array(frame[..<headerLength]))
            return (header, payload)
        } catch {
            throw .authenticationFailed
        }
    }

    /// XORs the privacy-protected header bytes (counter, source and destination IDs) with
    /// AES-CTR(privacy key, privacy nonce); the same call hides and reveals them.
    static func obfuscate(_ frame: inout [UInt8], header: MessageHeader, privacyKey: SecretBytes) throws(MessagingError) {
        var length = 4  // message counter
        if header.sourceNodeID != nil { length += 8 }
        switch header.destination {
        case .none: break
        case .node: length += 8
        case .group: length += 2
        }
        guard frame.count >= 4 + length + micLength else { throw .truncated(offset: frame.count) }
        let mic = Array(frame.suffix(micLength))
        let pn = privacyNonce(sessionID: header.sessionID, mic: mic)
        let mask: [UInt8]
        do {
            mask = try AESCTR.apply(key: privacyKey.bytes, nonce: pn, data: [UInt8](repeating: 0, count: length))
        } catch {
            throw .authenticationFailed
        }
        for i in 0..<length { frame[4 + i] ^= mask[i] }
    }
}
