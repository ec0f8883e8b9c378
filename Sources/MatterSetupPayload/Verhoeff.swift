/// The Verhoeff check digit over decimal strings (dihedral group D5), which Matter manual pairing
/// codes end with (Matter Core 5.1.4.1). It catches every single-digit error and every swap of
/// adjacent digits.
public enum Verhoeff {
    private static let multiply: [[UInt8]] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
        [2, 3, 4, 0, 1, 7, 8, 9, 5, 6], [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
        [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
        [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
        [8, 7, 6, 5, 9, 3, 2, 1, 0, 4], [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    ]
    private static let permute: [[UInt8]] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
        [5, 8, 0, 3, 7, 9, 6, 1, 4, 2], [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
        [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
        [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
    ]
    private static let inverse: [UInt8] = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]

    /// The check digit for a string of decimal digits, or nil if it holds anything else.
    public static func checkDigit(for digits: String) -> Character? {
        var c: UInt8 = 0
        let values = Array(digits.utf8)
        for (i, ch) in values.reversed().enumerated() {
            guard ch >= UInt8(ascii: "0"), ch <= UInt8(ascii: "9") else { return nil }
            c = multiply[Int(c)][Int(permute[(i + 1) % 8][Int(ch - UInt8(ascii: "0"))])]
        }
        return Character(Unicode.Scalar(inverse[Int(c)] + UInt8(ascii: "0")))
    }

    /// Whether the last digit of `digits` is the Verhoeff check digit of the ones before it.
    public static func validate(_ digits: String) -> Bool {
        guard let last = digits.last, digits.count >= 2 else { return false }
        return checkDigit(for: String(digits.dropLast())) == last
    }
}
