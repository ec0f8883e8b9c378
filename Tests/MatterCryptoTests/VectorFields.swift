import TestSupport

/// Field access shared by the crypto suites: a byte field may be given as `name` (hex),
/// `name_hex` or `name_ascii`; JSON null means "absent".
extension Vector {
    func bytes(_ name: String) -> [UInt8]? {
        if let hex = string(name) ?? string(name + "_hex") { return Hex.decode(hex) }
        if let ascii = string(name + "_ascii") { return Array(ascii.utf8) }
        return nil
    }

    /// The expectations a vector states about failure; used to assert that a test of an
    /// invalid vector really is about failure.
    var expectedError: String? { string("expected_error") }
}
