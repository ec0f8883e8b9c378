import MatterSecureChannel
import Testing
import TestSupport

/// The ICD Check-In payload against the CHIP SDK's vectors (testvectors/checkin_message.json):
/// each opens to its counter and data and is sealed back byte for byte; the SDK's invalid-nonce
/// payload (good MIC, wrong nonce) and tampered bytes are refused.
@Suite struct CheckInMessageTests {
    @Test(arguments: TestVectors.vectors("checkin_message.json").filter { $0.bool("invalid") != true })
    func sdkVectorsOpenAndSeal(_ v: Vector) throws {
        let key = try #require(v.hex("key")), payload = try #require(v.hex("payload"))
        let counter = UInt32(try #require(v.int("counter"))), data = try #require(v.hex("applicationData"))
        let opened = try CheckInMessage.open(key: key, payload: payload)
        #expect(opened.counter == counter)
        #expect(opened.applicationData == data)
        #expect(CheckInMessage.nonce(key: key, counter: counter) == v.hex("nonce"))
        #expect(try CheckInMessage.seal(key: key, counter: counter, applicationData: data) == payload)
        var tampered = payload
        tampered[0] ^= 0xFF
        #expect(throws: CheckInMessage.Failure.self) { try CheckInMessage.open(key: key, payload: tampered) }
        tampered = payload
        tampered[tampered.count - 1] ^= 0x01
        #expect(throws: CheckInMessage.Failure(kind: .notAuthentic)) { try CheckInMessage.open(key: key, payload: tampered) }
        let otherKey = key.map { $0 ^ 0x5A }
        #expect(throws: CheckInMessage.Failure(kind: .notAuthentic)) { try CheckInMessage.open(key: otherKey, payload: payload) }
    }

    @Test func theSDKsInvalidNonceVectorIsRefusedByTheNonceCheck() throws {
        let v = try #require(TestVectors.vectors("checkin_message.json").first { $0.bool("invalid") == true })
        #expect(throws: CheckInMessage.Failure(kind: .nonceMismatch)) {
            try CheckInMessage.open(key: try #require(v.hex("key")), payload: try #require(v.hex("payload")))
        }
    }

    @Test func shortPayloadsAndWrongKeysAreTypedErrors() {
        #expect(throws: CheckInMessage.Failure(kind: .tooShort)) { try CheckInMessage.open(key: [UInt8](repeating: 1, count: 16), payload: [1, 2]) }
        #expect(throws: CheckInMessage.Failure(kind: .wrongKeyLength)) { try CheckInMessage.seal(key: [1], counter: 1) }
    }

    /// CHIP's CheckInHandler window (matter.js CheckInMessageTest's cases): the offset from the
    /// registration counter, wrapping; a key refresh past 2^31.
    @Test func counterOffsetsWrap() {
        #expect(CheckInMessage.offset(of: 15, from: 10) == 5)
        #expect(CheckInMessage.offset(of: 5, from: 0xFFFF_FFFA) == 11)
        #expect(CheckInMessage.offset(of: 0x8000_0001, from: 1) > CheckInMessage.keyRefreshOffset - 1)
        // An ICD's application data is its ActiveModeThreshold, uint16 LE.
        #expect(CheckInMessage.Opened(counter: 1, applicationData: [0x88, 0x13]).activeModeThreshold == 5000)
    }
}
