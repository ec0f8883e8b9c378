import Foundation
@testable import MatterHome
import Testing

/// Room and structure names: the key that makes "Kitchen" and "KITCHEN" the same room must be
/// the one earlier stores wrote with Foundation's NFC and case folding, so existing rows still match.
@Suite struct StoreNamesTests {
    static func foundationKey(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
            .folding(options: [.caseInsensitive], locale: nil)
    }

    @Test(arguments: ["Kitchen", "KITCHEN", " Living room ", "Straße", "STRASSE", "Café", "Cafe\u{301}", "Ελληνικά ΣΣ ς",
                      "İstanbul", "ıi", "ǅungla", "ﬀ", "ŉ", "ΐ", "µ", "Ω", "K", "Å", "Ⅻ", "ⓐ", "Ꭰ", "ꭰ", "𐐀", "🏠 Home"])
    func keyAndNameMatchFoundation(_ name: String) throws {
        let (validated, key) = try StoreNames.validated(name, kind: "room")
        #expect(key == Self.foundationKey(name))
        let expectedName = name.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        #expect(Array(validated.unicodeScalars) == Array(expectedName.unicodeScalars))
    }

    /// Scalar by scalar up to U+2FFFF: Foundation's tables end before Unicode 9, so only scalars
    /// that Unicode 9 or later added or re-folded may differ.
    @Test func caseFoldingMatchesFoundationBeforeUnicode9() {
        var mismatches: [String] = []
        for v in 0...0x2FFFF {
            guard let scalar = Unicode.Scalar(v) else { continue }
            let s = String(scalar)
            guard StoreNames.caseFolded(s) != s.folding(options: [.caseInsensitive], locale: nil) else { continue }
            if (scalar.properties.age?.major ?? 0) < 9 { mismatches.append(String(v, radix: 16)) }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
    }
}
