/// Matter manual pairing codes: 11 digits, or 21 with vendor and product IDs, ending in a
/// Verhoeff check digit (Matter Core 5.1.4). Dashes and spaces between digits are ignored.
///
/// Layout: digit 1 = VID/PID-present flag (bit 2) and the top two bits of the 4-bit short
/// discriminator; 5 digits = the discriminator's low two bits << 14 | passcode bits 0-13;
/// 4 digits = passcode bits 14-26; optionally 5 digits vendor ID and 5 digits product ID.
public enum ManualPairingCode {
    /// Decodes a manual code without the validity rules of `SetupPayload.validate()`.
    public static func decode(_ text: String) throws(SetupPayloadError) -> SetupPayload {
        var digits: [UInt8] = []
        for c in text.utf8 where c != UInt8(ascii: "-") && c != UInt8(ascii: " ") {
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { throw .invalidCharacter(c) }
            digits.append(c - UInt8(ascii: "0"))
        }
        guard digits.count == 11 || digits.count == 21 else {
            throw .invalidLength("a manual pairing code has 11 or 21 digits, this one \(digits.count)")
        }
        let text = String(decoding: digits.map { $0 + UInt8(ascii: "0") }, as: UTF8.self)
        guard Verhoeff.validate(text) else { throw .checkDigitMismatch }

        let first = digits[0]
        guard first <= 7 else { throw .invalidManualCodeField("a first digit of 8 or 9 is reserved") }
        let hasVendorAndProduct = first & 0b100 != 0
        guard hasVendorAndProduct == (digits.count == 21) else {
            throw .invalidLength(hasVendorAndProduct
                ? "the first digit announces 21 digits but the code has 11"
                : "the first digit announces 11 digits but the code has 21")
        }
        let chunk2 = number(digits[1..<6])
        let chunk3 = number(digits[6..<10])
        guard chunk2 <= 0xFFFF else { throw .invalidManualCodeField("digits 2-6 exceed 65535") }
        guard chunk3 <= 0x1FFF else { throw .invalidManualCodeField("digits 7-10 exceed 8191") }
        let shortDiscriminator = UInt8((first & 0b11) << 2) | UInt8(chunk2 >> 14)
        let passcode = UInt32(chunk3 << 14 | (chunk2 & 0x3FFF))
        guard passcode != 0 else { throw .invalidPasscode(reason: "the passcode is zero") }

        var payload = SetupPayload(kind: .manualCode, vendorID: nil, productID: nil, commissioningFlow: nil,
                                   discoveryCapabilities: nil, discriminator: .short(shortDiscriminator),
                                   passcode: passcode)
        if hasVendorAndProduct {
            let vid = number(digits[10..<15]), pid = number(digits[15..<20])
            guard vid <= 0xFFFF, pid <= 0xFFFF else { throw .invalidManualCodeField("vendor or product ID exceeds 65535") }
            payload.vendorID = UInt16(vid)
            payload.productID = UInt16(pid)
            // Only the custom flow carries vendor and product in the manual code.
            payload.commissioningFlow = .custom
        }
        return payload
    }

    /// Encodes the manual code of a payload: 21 digits for the custom commissioning flow (with
    /// vendor and product IDs, zero if absent), 11 otherwise.
    public static func encode(_ p: SetupPayload, allowInvalid: Bool = false) throws(SetupPayloadError) -> String {
        if !allowInvalid { try p.validate() }
        guard p.passcode < (1 << 27) else { throw .invalidPasscode(reason: "it does not fit in 27 bits") }
        let long = p.commissioningFlow == .custom
        let s = UInt32(p.discriminator.shortValue & 0xF)
        var text = String((long ? 4 : 0) | (s >> 2))
        text += padded((s & 3) << 14 | (p.passcode & 0x3FFF), width: 5)
        text += padded(p.passcode >> 14, width: 4)
        if long {
            text += padded(UInt32(p.vendorID ?? 0), width: 5)
            text += padded(UInt32(p.productID ?? 0), width: 5)
        }
        guard let check = Verhoeff.checkDigit(for: text) else { throw .invalidManualCodeField("internal digit error") }
        return text + String(check)
    }

    /// The usual printed form, `XXXX-XXX-XXXX` (11 digits) or `XXXX-XXX-XXXX-XXXXX-XXXXX-X`.
    public static func formatted(_ code: String) -> String {
        let d = Array(code)
        guard d.count == 11 || d.count == 21 else { return code }
        var groups = [String(d[0..<4]), String(d[4..<7]), String(d[7..<11])]
        if d.count == 21 { groups += [String(d[11..<16]), String(d[16..<21])] }
        return groups.joined(separator: "-")
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> UInt32 {
        digits.reduce(0) { $0 * 10 + UInt32($1) }
    }

    private static func padded(_ v: UInt32, width: Int) -> String {
        let s = String(v)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}
