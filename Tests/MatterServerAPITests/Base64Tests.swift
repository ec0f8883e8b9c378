import MatterServerAPI
import Testing

@Suite struct Base64Tests {
    @Test func rfc4648Vectors() {
        // RFC 4648 section 10.
        let cases = [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
                     ("foobar", "Zm9vYmFy")]
        for (plain, encoded) in cases {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
        }
    }

    @Test func refusesMalformed() {
        for bad in ["Zg", "Zg=", "Z===", "Zh==", "Zm9=", "Zg==Zg==", "Zm9v!A==", "Zm 9v", "=Zm9"] {
            #expect(Base64.decode(bad) == nil, "\(bad)")
        }
    }
}
