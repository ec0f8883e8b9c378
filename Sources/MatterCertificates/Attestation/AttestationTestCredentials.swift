/// Credentials that exist only for development and testing. A commissioner refuses devices that
/// use them unless it is explicitly told to allow test devices.
public enum AttestationTestCredentials {
    /// Subject key identifiers of the SDK's test and development PAAs (connectedhomeip
    /// `credentials/test/attestation/Chip-Test-PAA-*` and `credentials/development/attestation/
    /// Chip-Development-PAA-Cert`), whose private keys are published.
    public static let testPAASubjectKeyIdentifiers: [[UInt8]] = [
        "6afd22771f511fecbf1641976710dcdc31a1717e",  // Matter Test PAA, VID FFF1
        "785ce705b86b8f4e6fc793aa60cb43ea696882d5",  // Matter Test PAA, no VID
        "7f1daaf24498b986680ea08fc18921e848489d17",  // Matter Test PAA FFF2, valid in future
        "9bb299bba6497db5a04e1e18c7c20eaec54c42e9",  // Matter Test PAA FFF2, valid in past
        "fa92cf095efa42e11430651632fefe1b2c77a7c8",  // Matter Development PAA
    ].map(hexBytes)

    /// Vendor IDs reserved for testing (Matter Core 2.5.2, "Test Vendor" 0xFFF1...0xFFF4).
    public static let testVendorIDs: ClosedRange<UInt16> = 0xFFF1...0xFFF4

    /// Whether a PAA is a test PAA: one of the SDK's, or one that carries a test vendor ID.
    public static func isTestPAA(_ paa: X509Certificate, vendorID: UInt16?) -> Bool {
        if let skid = paa.subjectKeyIdentifier, testPAASubjectKeyIdentifiers.contains(skid) { return true }
        if let vendorID, testVendorIDs.contains(vendorID) { return true }
        return false
    }

    private static func hexBytes(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var it = s.utf8.makeIterator()
        while let h = it.next(), let l = it.next() {
            out.append(UInt8(hexValue(h) << 4 | hexValue(l)))
        }
        return out
    }

    private static func hexValue(_ c: UInt8) -> UInt8 {
        c <= UInt8(ascii: "9") ? c - UInt8(ascii: "0") : c - UInt8(ascii: "a") + 10
    }
}
