/// Why a Thread operational dataset was refused: a stable `code`, the TLV and byte offset it
/// concerns, and a sentence for the user. Messages never contain TLV values (a dataset holds the
/// network key).
public struct ThreadDatasetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable code for each kind of defect.
    public enum Code: String, Sendable, Hashable {
        /// A TLV header (type, length) or value runs past the end of the dataset.
        case truncatedTLV
        /// A TLV whose length is not the one its type defines.
        case wrongLength
        /// The same TLV type appears twice.
        case duplicateType
        /// A TLV of the right length whose value is not allowed (e.g. a channel outside 11-26,
        /// a network name that is not UTF-8).
        case invalidValue
        /// More than the 254 bytes a Thread dataset may hold.
        case tooLong
        /// A TLV the operation needs is absent (e.g. no network key in a dataset to commission with).
        case missingTLV
    }

    public let code: Code
    /// The TLV concerned, when there is one.
    public let tlvType: ThreadDatasetTLVType?
    /// The byte offset of that TLV's type byte in the dataset, when known.
    public let offset: Int?
    /// A sentence naming the defect.
    public let message: String

    public init(_ code: Code, _ message: String, tlvType: ThreadDatasetTLVType? = nil, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.tlvType = tlvType
        self.offset = offset
    }

    public var description: String { message }

    static func wrongLength(_ type: ThreadDatasetTLVType, at offset: Int, got: Int, expected: String) -> Self {
        Self(.wrongLength, "wrong length: the \(type) at byte \(offset) is \(got) bytes; it must be \(expected)",
             tlvType: type, offset: offset)
    }

    static func invalid(_ type: ThreadDatasetTLVType, at offset: Int?, _ reason: String) -> Self {
        let place = offset.map { " at byte \($0)" } ?? ""
        return Self(.invalidValue, "invalid value: the \(type)\(place) \(reason)", tlvType: type, offset: offset)
    }
}
