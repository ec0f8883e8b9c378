import MatterTLV

/// Matter QR code payloads: `MT:` followed by base-38 text of an 88-bit packed header and
/// optional TLV data (Matter Core 5.1.3). Several devices may share one code, joined by `*`.
public enum QRCode {
    public static let prefix = "MT:"
    static let headerByteCount = 11

    /// Where each field sits in the little-endian 88-bit header.
    private enum Field {
        static let version = (offset: 0, bits: 3)
        static let vendorID = (offset: 3, bits: 16)
        static let productID = (offset: 19, bits: 16)
        static let flow = (offset: 35, bits: 2)
        static let capabilities = (offset: 37, bits: 8)
        static let discriminator = (offset: 45, bits: 12)
        static let passcode = (offset: 57, bits: 27)
    }

    /// The TLV tag of the serial number in the optional data.
    static let serialNumberTag: UInt8 = 0x00

    /// The base-38 text of a QR code: the `%`-delimited section that starts with `MT:`, without
    /// the prefix (scanners may hand over text around the payload). Empty if there is none.
    public static func extractPayload(_ text: String) -> String {
        for section in text.split(separator: "%", omittingEmptySubsequences: false) where section.hasPrefix(prefix) {
            return String(section.dropFirst(prefix.count))
        }
        return ""
    }

    /// Decodes every payload of a QR code string, without the validity rules of
    /// `SetupPayload.validate()` (which `SetupPayload.parse` applies).
    public static func decode(_ text: String) throws(SetupPayloadError) -> [SetupPayload] {
        guard !text.isEmpty else { throw .emptyInput }
        guard text.hasPrefix(prefix) || text.contains("%" + prefix) else { throw .invalidPrefix }
        let body = extractPayload(text)
        guard !body.isEmpty else { throw .invalidLength("nothing follows 'MT:'") }
        var payloads: [SetupPayload] = []
        for part in body.split(separator: "*", omittingEmptySubsequences: false) {
            guard !part.isEmpty else { throw .invalidLength("an empty payload between '*' separators") }
            payloads.append(try decodeSingle(String(part)))
        }
        return payloads
    }

    static func decodeSingle(_ base38: String) throws(SetupPayloadError) -> SetupPayload {
        let bytes = try Base38.decode(base38)
        guard bytes.count >= headerByteCount else {
            throw .invalidLength("a QR payload holds at least \(headerByteCount) bytes, this one \(bytes.count)")
        }
        let bits = BitReader(bytes: Array(bytes.prefix(headerByteCount)))
        var payload = SetupPayload(
            kind: .qrCode,
            version: UInt8(bits.read(Field.version)),
            vendorID: UInt16(bits.read(Field.vendorID)),
            productID: UInt16(bits.read(Field.productID)),
            commissioningFlow: CommissioningFlow(rawValue: UInt8(bits.read(Field.flow))),
            discoveryCapabilities: DiscoveryCapabilities(rawValue: UInt8(bits.read(Field.capabilities))),
            discriminator: .long(UInt16(bits.read(Field.discriminator))),
            passcode: UInt32(bits.read(Field.passcode)))
        if bytes.count > headerByteCount {
            try readOptionalData(Array(bytes.dropFirst(headerByteCount)), into: &payload)
        }
        return payload
    }

    /// Optional data is one anonymous TLV structure of context-tagged elements (Matter Core 5.1.5).
    private static func readOptionalData(_ tlv: [UInt8], into payload: inout SetupPayload) throws(SetupPayloadError) {
        let root: TLVElement
        do {
            root = try TLVDecoder.decode(tlv, maxDepth: 4)
        } catch {
            throw .invalidExtensionData(error.description)
        }
        guard case .container(.structure, let members) = root.value else {
            throw .invalidExtensionData("it is not a TLV structure")
        }
        for m in members {
            guard case .context(let tag) = m.tag else {
                throw .invalidExtensionData("element tag \(m.tag) is not a context tag")
            }
            if tag == serialNumberTag {
                switch m.value {
                case .utf8(let s): payload.serialNumber = s
                case .unsigned(let n): payload.serialNumber = String(n)
                case .signed(let n) where n >= 0: payload.serialNumber = String(n)
                default: throw .invalidExtensionData("the serial number is neither a string nor an integer")
                }
            } else {
                guard case .container = m.value else {
                    payload.extensions.append(SetupPayloadExtension(tag: tag, value: m.value))
                    continue
                }
                throw .invalidExtensionData("element \(tag) is a container")
            }
        }
    }

    /// Encodes payloads into one QR code string. Each needs a long discriminator; absent vendor,
    /// product, flow and capabilities are written as zero.
    public static func encode(_ payloads: [SetupPayload], allowInvalid: Bool = false) throws(SetupPayloadError) -> String {
        var parts: [String] = []
        for p in payloads {
            if !allowInvalid { try p.validate() }
            guard case .long(let discriminator) = p.discriminator else {
                throw .invalidLength("a QR code needs the full 12-bit discriminator")
            }
            guard discriminator <= 0xFFF else { throw .invalidDiscriminator(discriminator) }
            guard p.passcode < (1 << 27) else { throw .invalidPasscode(reason: "it does not fit in 27 bits") }
            var bits = BitWriter(byteCount: headerByteCount)
            bits.write(UInt64(p.version), Field.version)
            bits.write(UInt64(p.vendorID ?? 0), Field.vendorID)
            bits.write(UInt64(p.productID ?? 0), Field.productID)
            bits.write(UInt64(p.commissioningFlow?.rawValue ?? 0), Field.flow)
            bits.write(UInt64(p.discoveryCapabilities?.rawValue ?? 0), Field.capabilities)
            bits.write(UInt64(discriminator), Field.discriminator)
            bits.write(UInt64(p.passcode), Field.passcode)
            parts.append(Base38.encode(bits.bytes + optionalData(p)))
        }
        return prefix + parts.joined(separator: "*")
    }

    /// Vendor elements first, then the serial number and other Matter-defined elements: the order
    /// the SDK writes.
    private static func optionalData(_ p: SetupPayload) -> [UInt8] {
        guard p.serialNumber != nil || !p.extensions.isEmpty else { return [] }
        var members = p.extensions.filter(\.isVendorDefined).map { TLVElement(tag: .context($0.tag), $0.value) }
        if let serial = p.serialNumber { members.append(.utf8(.context(serialNumberTag), serial)) }
        members += p.extensions.filter { !$0.isVendorDefined }.map { TLVElement(tag: .context($0.tag), $0.value) }
        return TLVWriter.encode(.structure(.anonymous, members))
    }
}

/// Reads little-endian bit fields from the QR header.
private struct BitReader {
    let bytes: [UInt8]
    func read(_ field: (offset: Int, bits: Int)) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<field.bits {
            let bit = field.offset + i
            if bytes[bit / 8] & (1 << UInt8(bit % 8)) != 0 { v |= 1 << UInt64(i) }
        }
        return v
    }
}

private struct BitWriter {
    var bytes: [UInt8]
    init(byteCount: Int) { bytes = [UInt8](repeating: 0, count: byteCount) }
    mutating func write(_ value: UInt64, _ field: (offset: Int, bits: Int)) {
        for i in 0..<field.bits where value & (1 << UInt64(i)) != 0 {
            let bit = field.offset + i
            bytes[bit / 8] |= 1 << UInt8(bit % 8)
        }
    }
}
