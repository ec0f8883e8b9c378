import MatterTLV

/// The Interaction Model's decoders read and write fields with MatterTLV's reader and writer;
/// the reader throws `InteractionError.malformed` naming the type being decoded.
typealias FieldReader = TLVFieldReader<InteractionError>
typealias FieldWriter = TLVFieldWriter

extension InteractionError: TLVDecodingFailure {}

/// The context tag of InteractionModelRevision in every IM message (Matter Core 10.6.1).
let imRevisionTag: UInt8 = 0xFF

extension TLVFieldReader where Failure == InteractionError {
    /// The Interaction Model revision (tag 0xFF); absent in some old peers' messages.
    func revision() throws(InteractionError) -> UInt8 {
        try uint(imRevisionTag, UInt8.self) ?? interactionModelRevision
    }
}

extension TLVFieldWriter {
    mutating func revision(_ v: UInt8) { add(.unsigned(.context(imRevisionTag), v)) }
}

/// A whole Interaction Model message: the TLV payload of one opcode.
public protocol IMMessage: TLVCodable where Failure == InteractionError {
    static var opcode: IMOpcode { get }
}

extension IMMessage {
    /// Decodes a message payload: exactly one anonymous structure, nothing after it.
    public init(payload: [UInt8]) throws(InteractionError) {
        let element: TLVElement
        do { element = try TLVDecoder.decode(payload) } catch {
            throw .malformed(what: "\(Self.opcode)", error)
        }
        guard element.tag == .anonymous else {
            throw .invalidValue(what: "\(Self.opcode)", reason: "the message structure must be anonymous")
        }
        try self.init(element: element)
    }

    /// The message payload bytes.
    public var payload: [UInt8] { TLVWriter.encode(element(tag: .anonymous)) }
}
