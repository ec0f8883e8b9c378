import MatterCrypto
import Testing
import TestSupport

@Suite struct MatterGroupKeysTests {
    @Test(arguments: TestVectors.vectors("group_keys.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let epochKey = try #require(v.bytes("epoch_key"))
        let fabric = try #require(v.bytes("compressed_fabric_id"))
        guard v.valid else {
            #expect(v.expectedError != nil)
            #expect(throws: CryptoError.self) {
                try MatterGroupKeys.operationalKey(epochKey: epochKey, compressedFabricID: fabric)
            }
            return
        }
        let operational = try MatterGroupKeys.operationalKey(epochKey: epochKey, compressedFabricID: fabric)
        #expect(operational.bytes == v.bytes("operational_group_key"))
        if let privacy = v.bytes("privacy_key") {
            #expect(try MatterGroupKeys.privacyKey(operationalKey: operational).bytes == privacy)
        }
        if let session = v.bytes("group_session_id") {
            #expect(try MatterGroupKeys.sessionID(operationalKey: operational) == UInt16(session[0]) << 8 | UInt16(session[1]))
        }
    }

    @Test func wrongLengthsAreRejected() {
        #expect(throws: CryptoError.self) {
            try MatterGroupKeys.operationalKey(epochKey: [UInt8](repeating: 1, count: 16), compressedFabricID: [1, 2, 3])
        }
        #expect(throws: CryptoError.self) { try MatterGroupKeys.sessionID(operationalKey: SecretBytes([1])) }
    }
}
