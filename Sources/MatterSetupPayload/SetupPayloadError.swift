/// Why a setup code could not be read or is not valid. Each message says what is wrong with
/// the code, so a user can compare it with the label on the device.
public enum SetupPayloadError: Error, Hashable, Sendable {
    case emptyInput
    /// A QR code string without the `MT:` prefix.
    case invalidPrefix
    /// A character outside the base-38 alphabet (QR) or a non-digit (manual code).
    case invalidCharacter(UInt8)
    case invalidLength(String)
    case invalidBase38Value(String)
    /// The QR payload's version field is not 0, the only version Matter defines.
    case invalidVersion(UInt8)
    /// The passcode itself is never included: it is a secret.
    case invalidPasscode(reason: String)
    case invalidDiscriminator(UInt16)
    case invalidVendorID(UInt16)
    case invalidProductID(UInt16, vendorID: UInt16)
    case invalidCommissioningFlow(UInt8)
    /// The last digit of a manual code does not match the Verhoeff check digit of the others.
    case checkDigitMismatch
    /// A field of a manual code holds a value its bit width cannot carry.
    case invalidManualCodeField(String)
    /// The optional TLV data after the QR header is malformed.
    case invalidExtensionData(String)
}

extension SetupPayloadError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .emptyInput:
            return "the setup code is empty"
        case .invalidPrefix:
            return "a Matter QR code starts with 'MT:'; this one does not"
        case .invalidCharacter(let c):
            let shown = c >= 0x20 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : "byte 0x\(String(c, radix: 16))"
            return "the setup code contains \(shown), which cannot appear in it (check for typos)"
        case .invalidLength(let why):
            return "the setup code has the wrong length: \(why)"
        case .invalidBase38Value(let why):
            return "the QR code is corrupt: \(why)"
        case .invalidVersion(let v):
            return "the QR code has payload version \(v); only version 0 exists"
        case .invalidPasscode(let reason):
            return "the setup code carries an invalid passcode: \(reason)"
        case .invalidDiscriminator(let d):
            return "discriminator \(d) is out of range (0...4095)"
        case .invalidVendorID(let v):
            return "vendor ID 0x\(String(v, radix: 16, uppercase: true)) is not a valid vendor ID"
        case .invalidProductID(let p, let v):
            return "product ID \(p) is not valid with vendor ID 0x\(String(v, radix: 16, uppercase: true))"
        case .invalidCommissioningFlow(let f):
            return "commissioning flow \(f) is reserved"
        case .checkDigitMismatch:
            return "the manual pairing code's check digit does not match: a digit was mistyped or two digits swapped"
        case .invalidManualCodeField(let why):
            return "the manual pairing code is malformed: \(why)"
        case .invalidExtensionData(let why):
            return "the QR code's extra data is malformed: \(why)"
        }
    }
}
