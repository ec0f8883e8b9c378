#if canImport(Glibc)
import Glibc
#endif

// FoundationEssentials has neither `String(format:)` nor `trimmingCharacters(in:)` (they live in
// Foundation proper, which brings ICU, libcurl and 10 MB of mappings into every process).

extension String {
    /// A duration in seconds as error messages give it: "2 s", "0.3 s".
    package init(seconds t: Double) {
        self = t == t.rounded() ? "\(Int(t)) s" : "\(t) s"
    }

    /// printf-style formatting of numbers (`%02x`, `%016llX`, `%.0f`, `%g`), through the C library's
    /// `vsnprintf`: the same text `String(format:)` gives for these conversions. Only numeric
    /// arguments: a `%s` or `%@` conversion is not supported.
    package init(printf format: String, _ arguments: any CVarArg...) {
        self = Self.printf(format, arguments)
    }

    /// `init(printf:_:)` with the arguments in an array.
    package init(printf format: String, arguments: [any CVarArg]) {
        self = Self.printf(format, arguments)
    }

    private static func printf(_ format: String, _ arguments: [any CVarArg]) -> String {
        withVaList(arguments) { list in
            var buffer = [CChar](repeating: 0, count: 128)
            // vsnprintf consumes the va_list, so a retry with a larger buffer needs a fresh one.
            let needed = Int(vsnprintf(&buffer, buffer.count, format, list))
            guard needed >= buffer.count else {
                return String(decoding: buffer[0..<Swift.max(0, needed)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            return withVaList(arguments) { again in
                var large = [CChar](repeating: 0, count: needed + 1)
                let n = Int(vsnprintf(&large, large.count, format, again))
                return String(decoding: large[0..<Swift.max(0, Swift.min(n, needed))].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
    }
}

extension StringProtocol {
    /// The string without leading and trailing whitespace: what Foundation's
    /// `trimmingCharacters(in: .whitespaces)` removes (tab, the Unicode space separators Zs, and
    /// U+200B ZERO WIDTH SPACE, which Foundation's set still counts).
    package func trimmingWhitespace() -> String { trimming(Self.isWhitespace) }

    /// The string without leading and trailing whitespace and line breaks: Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` (those and U+000A-U+000D, U+0085, U+2028, U+2029).
    package func trimmingWhitespaceAndNewlines() -> String {
        trimming { Self.isWhitespace($0) || Self.isNewline($0) }
    }

    private func trimming(_ drop: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !drop($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !drop($0) })!
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: scalars[first...last])
        return String(kept)
    }

    private static func isWhitespace(_ s: Unicode.Scalar) -> Bool {
        s == "\t" || s == "\u{200B}" || s.properties.generalCategory == .spaceSeparator
    }

    private static func isNewline(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
        default: return false
        }
    }
}

extension String {
    /// The string with every UTF-8 byte outside `A-Z a-z 0-9` written as `%XX` (uppercase hex):
    /// safe as a URL query value. (FoundationEssentials keeps `addingPercentEncoding` private.)
    package var percentEncodedAlphanumerics: String {
        var out = ""
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(printf: "%%%02X", byte)
            }
        }
        return out
    }
}
