import Foundation
import MatterPlatform
import Testing

/// `String(printf:)`, the whitespace trimmers and the percent-encoder, judged by Foundation's own
/// `String(format:)`, `trimmingCharacters(in:)` and `addingPercentEncoding` (tests may link it).
@Suite struct TextFormattingTests {
    /// Every format the sources use, and a result longer than the first buffer.
    static var formats: [(String, [any CVarArg])] { [
        ("%02x", [UInt8(0x0A)]), ("%02X", [UInt8(0xFF)]), ("%02x", [UInt8(0)]), ("%%%02X", [UInt8(0x2F)]),
        ("%016llX", [UInt64(0xDEAD_BEEF_0000_0001)]), ("%016llX", [UInt64.max]), ("0x%016llX  ", [UInt64(42)]),
        ("0x%04X  0x%04X", [UInt16(0xFFF1), UInt16(0x8000)]), (":%04X", [UInt16(5540)]),
        ("Matter device %04X:%04X", [UInt16(0x1), UInt16(0xABCD)]),
        ("Commissioned node 0x%016llX (vendor 0x%04X, product 0x%04X) in %.0f ms",
         [UInt64(0x1122_3344_5566_7788), UInt16(0xFFF1), UInt16(0x8001), 1234.5]),
        ("%g", [3.0]), ("%g", [2.5]), ("%g", [0.1]), ("%g", [1e20]), ("%g", [-0.0]), ("%.0f", [0.5]), ("%.0f", [1.5]),
        ("%0300d", [Int32(7)]),
    ] }

    @Test(arguments: formats.indices)
    func printfMatchesStringFormat(_ i: Int) {
        let (format, args) = Self.formats[i]
        #expect(String(printf: format, arguments: args) == String(format: format, arguments: args), "\(format)")
    }

    @Test func printfVariadicFormsTheSameText() {
        #expect(String(printf: "%02x%02x", UInt8(1), UInt8(0xAB)) == "01ab")
        #expect(String(printf: "%0200d", Int32(1)).count == 200)
    }

    /// Every scalar of the Basic Multilingual Plane alone, and inside text.
    @Test func trimmingMatchesFoundationForEveryBMPScalar() {
        var mismatches: [String] = []
        for v in 0...0xFFFF {
            guard let scalar = Unicode.Scalar(v) else { continue }
            let s = String(scalar)
            for text in [s, s + "a" + s, "a" + s + s + "b"] {
                if text.trimmingWhitespace() != text.trimmingCharacters(in: .whitespaces)
                    || text.trimmingWhitespaceAndNewlines() != text.trimmingCharacters(in: .whitespacesAndNewlines) {
                    mismatches.append(String(v, radix: 16))
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
    }

    @Test(arguments: ["", " ", "\t\n", " kitchen ", "\u{A0}Living room\u{3000}", "a\u{200B}", "\r\nline\r\n", " two  words ",
                      "\u{85}x\u{2028}", "e\u{301} ", " 🏠\u{FE0F} "])
    func trimmingSamples(_ text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
        #expect(text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(text[...].trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// ASCII only: Foundation's `.alphanumerics` also keeps non-ASCII letters, which a query must not.
    @Test func percentEncodingMatchesFoundationOnASCII() {
        let ascii = String(decoding: Array(0...127) as [UInt8], as: UTF8.self)
        #expect(ascii.percentEncodedAlphanumerics == ascii.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        #expect("a+b/c=".percentEncodedAlphanumerics == "a%2Bb%2Fc%3D")
        #expect("é".percentEncodedAlphanumerics == "%C3%A9")
    }
}
