import MatterTLV

/// Reads the members of one container, turning `TLVError` into `InteractionError.malformed`
/// with the name of the type being decoded. Unknown context tags are simply never asked for.
struct FieldReader {
    let element: TLVElement
    let what: String

    /// Checks the container kind (Matter paths are lists, everything else structures).
    init(_ element: TLVElement, _ kind: TLVContainerKind, _ what: String) throws(InteractionError) {
        do { _ = try element.members(of: kind) } catch { throw .malformed(what: what, error) }
        self.element = element
        self.what = what
    }

    func has(_ tag: UInt8) -> Bool { element[context: tag] != nil }

    func optional(_ tag: UInt8) -> TLVElement? { element[context: tag] }

    func required(_ tag: UInt8) throws(InteractionError) -> TLVElement {
        do { return try element.required(tag) } catch { throw .malformed(what: what, error) }
    }

    func uint<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt8, _: T.Type = T.self) throws(InteractionError) -> T? {
        guard let e = optional(tag) else { return nil }
        do { return try e.unsigned(as: T.self) } catch { throw .malformed(what: what, error) }
    }

    func requiredUInt<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt8, _: T.Type = T.self) throws(InteractionError) -> T {
        let e = try required(tag)
        do { return try e.unsigned(as: T.self) } catch { throw .malformed(what: what, error) }
    }

    func int<T: FixedWidthInteger & SignedInteger>(_ tag: UInt8, _: T.Type = T.self) throws(InteractionError) -> T? {
        guard let e = optional(tag) else { return nil }
        do { return try e.signed(as: T.self) } catch { throw .malformed(what: what, error) }
    }

    func bool(_ tag: UInt8) throws(InteractionError) -> Bool? {
        guard let e = optional(tag) else { return nil }
        do { return try e.bool() } catch { throw .malformed(what: what, error) }
    }

    func requiredBool(_ tag: UInt8) throws(InteractionError) -> Bool {
        let e = try required(tag)
        do { return try e.bool() } catch { throw .malformed(what: what, error) }
    }

    func bytes(_ tag: UInt8) throws(InteractionError) -> [UInt8]? {
        guard let e = optional(tag) else { return nil }
        do { return try e.bytes() } catch { throw .malformed(what: what, error) }
    }

    func requiredBytes(_ tag: UInt8) throws(InteractionError) -> [UInt8] {
        let e = try required(tag)
        do { return try e.bytes() } catch { throw .malformed(what: what, error) }
    }

    func string(_ tag: UInt8) throws(InteractionError) -> String? {
        guard let e = optional(tag) else { return nil }
        do { return try e.utf8() } catch { throw .malformed(what: what, error) }
    }

    /// An optional array field whose members decode with `decode`.
    func array<T>(_ tag: UInt8, _ decode: (TLVElement) throws(InteractionError) -> T) throws(InteractionError) -> [T]? {
        guard let e = optional(tag) else { return nil }
        let members: [TLVElement]
        do { members = try e.members(of: .array) } catch { throw .malformed(what: what, error) }
        var out: [T] = []
        out.reserveCapacity(members.count)
        for m in members { out.append(try decode(m)) }
        return out
    }

    /// A mandatory array field: absent is `missingField`.
    func requiredArray<T>(_ tag: UInt8, _ decode: (TLVElement) throws(InteractionError) -> T) throws(InteractionError) -> [T] {
        guard let items = try array(tag, decode) else { throw .malformed(what: what, .missingField(.context(tag))) }
        return items
    }

    /// The Interaction Model revision (tag 0xFF); absent in some old peers' messages.
    func revision() throws(InteractionError) -> UInt8 {
        try uint(imRevisionTag, UInt8.self) ?? interactionModelRevision
    }
}

/// The context tag of InteractionModelRevision in every IM message (Matter Core 10.6.1).
let imRevisionTag: UInt8 = 0xFF

/// Builds a structure's members, dropping absent optionals.
struct FieldWriter {
    private(set) var members: [TLVElement] = []

    mutating func add(_ e: TLVElement?) { if let e { members.append(e) } }
    mutating func uint<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt8, _ v: T?) {
        if let v { members.append(.unsigned(.context(tag), v)) }
    }
    mutating func int<T: FixedWidthInteger & SignedInteger>(_ tag: UInt8, _ v: T?) {
        if let v { members.append(.signed(.context(tag), v)) }
    }
    mutating func bool(_ tag: UInt8, _ v: Bool?) {
        if let v { members.append(.bool(.context(tag), v)) }
    }
    mutating func bytes(_ tag: UInt8, _ v: [UInt8]?) {
        if let v { members.append(.bytes(.context(tag), v)) }
    }
    mutating func string(_ tag: UInt8, _ v: String?) {
        if let v { members.append(.utf8(.context(tag), v)) }
    }
    mutating func array(_ tag: UInt8, _ items: [TLVElement]?) {
        if let items { members.append(.array(.context(tag), items)) }
    }
    mutating func revision(_ v: UInt8) { members.append(.unsigned(.context(imRevisionTag), v)) }

    func structure(_ tag: TLVTag) -> TLVElement { .structure(tag, members) }
    func list(_ tag: TLVTag) -> TLVElement { .list(tag, members) }
}

/// A wire type that is one TLV element (an information block or a message body).
public protocol TLVCodable: Sendable, Hashable {
    /// Decodes from an element; the element's own tag is not checked.
    init(element: TLVElement) throws(InteractionError)
    /// Encodes as an element with the given tag.
    func element(tag: TLVTag) -> TLVElement
}

/// A whole Interaction Model message: the TLV payload of one opcode.
public protocol IMMessage: TLVCodable {
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
