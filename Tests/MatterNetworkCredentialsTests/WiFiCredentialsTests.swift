import MatterCrypto
import Testing
import TestSupport
import MatterNetworkCredentials

@Suite struct WiFiCredentialsTests {
    @Test(arguments: ["", "12345678", String(repeating: "p", count: 63), "correct horse battery staple",
                      String(repeating: "aB3", count: 21) + "f"])
    func acceptedPassphrase(_ p: String) throws {
        let c = try WiFiCredentials(ssid: Array("Home".utf8), passphrase: SecretBytes(Array(p.utf8)))
        #expect(c.ssidText == "Home")
        if !p.isEmpty { #expect(!"\(c)".contains(p), "the passphrase is not printed") }
    }

    @Test(arguments: ["1234567", String(repeating: "p", count: 64) + "q", "tab\there ok", "caf\u{e9} latte",
                      String(repeating: "g", count: 64)])
    func refusedPassphrase(_ p: String) {
        #expect(throws: WiFiCredentialsError.passphrase) {
            try WiFiCredentials(ssid: Array("Home".utf8), passphrase: SecretBytes(Array(p.utf8)))
        }
    }

    @Test(arguments: [0, 33])
    func refusedSSID(_ n: Int) {
        #expect(throws: WiFiCredentialsError.ssidLength(n)) {
            try WiFiCredentials(ssid: [UInt8](repeating: 0x41, count: n), passphrase: SecretBytes(Array("12345678".utf8)))
        }
    }

    @Test func errorNeverNamesThePassphrase() {
        #expect(!WiFiCredentialsError.passphrase.description.contains("1234567"))
    }
}
