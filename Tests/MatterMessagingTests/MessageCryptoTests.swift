import MatterCrypto
import MatterMessaging
import Testing
import TestSupport

/// The SDK's message encryption vectors: unicast (PASE test key) and group frames, with privacy.
@Suite struct MessageCryptoTests {
    @Test(arguments: TestVectors.vectors("message_encryption.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        if v.string("plain_frame") == nil {
            // Privacy nonce construction only.
            let sessionText = try #require(v.string("session_id"))
            let sessionID = try #require(UInt16(sessionText, radix: 16))
            #expect(MessageCrypto.privacyNonce(sessionID: sessionID, mic: try #require(v.hex("mic"))) == v.hex("privacy_nonce"))
            return
        }
        let key = SecretBytes(try #require(v.hex("encrypt_key")))
        let plain = try #require(v.hex("plain_frame"))
        let encrypted = try #require(v.hex("encrypted_frame"))
        let privateFrame = try #require(v.hex("privacy_frame"))
        let privacyKey = v.hex("privacy_key").map(SecretBytes.init)
        let headerLength = try #require(v.int("header_length"))
        // The nonce carries the source node ID from the header (the vectors' `source_node_id`
        // field is not always the header's value), or 0 when the header has none (PASE).
        let nonceNode: UInt64 = try MessageHeader.decode(plain).0.sourceNodeID ?? 0
        let counter = try #require(v.int("message_counter"))
        #expect(MessageCrypto.nonce(securityFlags: encrypted[3], counter: UInt32(counter), sourceNodeID: nonceNode)
            == v.hex("nonce"))

        guard v.valid else {
            switch v.string("expected_error") {
            case "duplicate_message_counter":
                // The same frame received twice: the second is dropped by the reception window.
                let (header, _) = try MessageCrypto.open(frame: privateFrame, key: key, privacyKey: privacyKey)
                var window = MessageReceptionState(policy: .rollover)
                try window.accept(header.messageCounter)
                #expect(throws: MessagingError.duplicate(counter: header.messageCounter)) {
                    try window.accept(header.messageCounter)
                }
            default:
                #expect(throws: MessagingError.self) {
                    try MessageCrypto.open(frame: privateFrame, key: key, privacyKey: privacyKey)
                }
            }
            return
        }
        // Decrypt what went on the wire (with privacy where the vector has it).
        let (header, payload) = try MessageCrypto.open(frame: privateFrame, key: key, privacyKey: privacyKey)
        #expect(payload == Array(plain[headerLength...]))
        // Encrypt the plain frame and get the same bytes.
        let sealed = try MessageCrypto.seal(header: header, payload: Array(plain[headerLength...]), key: key,
                                            nonceNodeID: header.sourceNodeID ?? 0,
                                            privacyKey: header.privacy ? privacyKey : nil)
        #expect(sealed == privateFrame)
        #expect(Array(sealed.suffix(16)) == v.hex("mic"))
    }

    @Test func alteredFramesAreRejected() throws {
        let key = SecretBytes(Array(repeating: 7, count: 16))
        let header = MessageHeader(sessionID: 0x1234, messageCounter: 99)
        let frame = try MessageCrypto.seal(header: header, payload: [1, 2, 3, 4], key: key, nonceNodeID: 0)
        var rng = SeededRandom(seed: 5)
        for _ in 0..<500 {
            var bad = frame
            bad[Int.random(in: 0..<bad.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
            #expect(throws: MessagingError.self) { try MessageCrypto.open(frame: bad, key: key) }
        }
        #expect(try MessageCrypto.open(frame: frame, key: key).1 == [1, 2, 3, 4])
    }

    @Test func unicastPrivacyRoundTrip() throws {
        let key = SecretBytes(Array(0..<16))
        let privacyKey = try MessageCrypto.privacyKey(for: key)
        let header = MessageHeader(sessionID: 7, messageCounter: 0xABCDEF, sourceNodeID: 0x1122, destination: .node(0x3344))
        let frame = try MessageCrypto.seal(header: header, payload: [9, 9], key: key, nonceNodeID: 0x1122, privacyKey: privacyKey)
        #expect(!frame.contains(0xEF) || frame[4] != 0xEF)  // counter not in clear
        let (back, payload) = try MessageCrypto.open(frame: frame, key: key, privacyKey: privacyKey)
        #expect(back.messageCounter == 0xABCDEF && back.destination == .node(0x3344) && payload == [9, 9])
    }
}
