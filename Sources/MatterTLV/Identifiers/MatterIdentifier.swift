/// An identifier newtype over an unsigned integer: node, fabric, vendor, product, endpoint,
/// cluster, attribute, command, event. Conforming types declare the stored `rawValue` and
/// `init(rawValue:)`; the unlabeled init, the ordering, the integer literal and the description
/// (`0x` and uppercase hex) come from here, and so does their TLV coding (an unsigned integer).
public protocol MatterIdentifier: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible
where RawValue: FixedWidthInteger & UnsignedInteger & Sendable {
    init(rawValue: RawValue)
}

extension MatterIdentifier {
    public init(_ rawValue: RawValue) { self.init(rawValue: rawValue) }
    public init(integerLiteral value: RawValue) { self.init(rawValue: value) }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    /// `0x` and uppercase hex digits, no padding (`0x6`, `0xFFF1`).
    public var description: String { "0x" + String(rawValue, radix: 16, uppercase: true) }
    /// Uppercase hex, zero-padded to the width of the raw value (16 digits for 64 bits), no `0x`:
    /// the form of certificates' subject fields and DNS-SD instance names.
    public var paddedHex: String {
        let digits = String(rawValue, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, RawValue.bitWidth / 4 - digits.count)) + digits
    }
}

extension TLVElement {
    /// An identifier as an unsigned integer element, in its shortest form.
    public static func unsigned<ID: MatterIdentifier>(_ tag: TLVTag, _ id: ID) -> TLVElement {
        .unsigned(tag, id.rawValue)
    }

    /// This element as an identifier: an unsigned integer that fits the identifier's width.
    /// - Throws: `TLVError` when the element is not an unsigned integer or is too large.
    public func identifier<ID: MatterIdentifier>(_: ID.Type = ID.self) throws(TLVError) -> ID {
        ID(rawValue: try unsigned(as: ID.RawValue.self))
    }
}
