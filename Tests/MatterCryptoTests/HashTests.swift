import MatterCrypto
import Testing
import TestSupport

@Suite struct SHA256Tests {
    @Test(arguments: TestVectors.vectors("sha256.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let data = try #require(v.bytes("data"))
        let expected = try #require(v.bytes("hash"))
        #expect((SHA256.hash(data) == expected) == v.valid)

        // The incremental hasher agrees whatever way the input is split.
        for split in Set([0, data.count / 3, data.count]) {
            var hasher = SHA256.Hasher()
            hasher.update(data[..<split])
            let snapshot = hasher  // copies are independent
            hasher.update(data[split...])
            #expect((hasher.finalize() == expected) == v.valid)
            #expect(snapshot.finalize() == SHA256.hash(data[..<split]))
        }
    }
}

@Suite struct HMACSHA256Tests {
    @Test(arguments: TestVectors.vectors("hmac_sha256.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let key = try #require(v.bytes("key"))
        let message = try #require(v.bytes("message"))
        let expected = try #require(v.bytes("mac"))
        // RFC 4231 publishes some MACs truncated; compare the published prefix.
        let mac = HMACSHA256.authenticate(key: key, message: message)
        #expect((Array(mac.prefix(expected.count)) == expected) == v.valid)
    }

    @Test func emptyKeyAndMessage() {
        // HMAC-SHA256("", "") from RFC 2104 definitions, cross-checked with Python's hmac module.
        #expect(Hex.encode(HMACSHA256.authenticate(key: [], message: []))
            == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }
}

@Suite struct SHA1Tests {
    @Test(arguments: TestVectors.vectors("sha1.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let data = try #require(v.bytes("data"))
        let expected = try #require(v.bytes("hash"))
        #expect(SHA1.hash(data) == expected)
    }
}
