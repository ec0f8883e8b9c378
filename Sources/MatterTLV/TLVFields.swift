/// An error type a decoder built on ``TLVFieldReader`` throws: it says what was being decoded
/// and which TLV rule the input broke. An enum case `malformed(what:_:)` satisfies it.
public protocol TLVDecodingFailure: Error {
    static func malformed(what: String, _ error: TLVError) -> Self
}

/// Reads the members of one container, turning `TLVError` into the decoder's own error with
/// the name of the type being decoded. Unknown context tags are simply never asked for.
public struct TLVFieldReader<Failure: TLVDecodingFailure> {
    public let element: TLVElement
    public let what: String

    /// Checks the container kind (Matter paths are lists, everything else structures).
    public init(_ element: TLVElement, _ kind: TLVContainerKind, _ what: String) throws(Failure) {
        do { _ = try element.members(of: kind) } catch { throw .malformed(what: what, error) }
        self.element = element
        self.what = what
    }

    public func has(_ tag: UInt8) -> Bool { element[context: tag] != nil }

    public func optional(_ tag: UInt8) -> TLVElement? { element[context: tag] }

    public func required(_ tag: UInt8) throws(Failure) -> TLVElement {
        do { return try element.required(tag) } catch { throw .malformed(what: what, error) }
    }

    public func uint<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt8, _: T.Type = T.self) throws(Failure) -> T? {
        guard let e = optional(tag) else { return nil }
        do { return try e.unsigned(as: T.self) } catch { throw .malformed(what: what, error) }
    }

    public func requiredUInt<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt8, _: T.Type = T.self) throws(Failure) -> T {
        let e = try required(tag)
        do { return try e.unsigned(as: T.self) } catch { throw .malformed(what: what, error) }
    }

    /// An identifier field (node, fabric, endpoint, cluster...), if present.
    public func identifier<ID: MatterIdentifier>(_ tag: UInt8, _: ID.Type = ID.self) throws(Failure) -> ID? {
        try uint(tag, ID.RawValue.self).map(ID.init(rawValue:))
    }

    public func int<T: FixedWidthInteger & SignedInteger>(_ tag: UInt8, _: T.Type = T.self) throws(Failure) -> T? {
        guard let e = optional(tag) else { return nil }
        do { return try e.signed(as: T.self) } catch { throw .malformed(what: what, error) }
    }

    public func bool(_ tag: UInt8) throws(Failure) -> Bool? {
        guard let e = optional(tag) else { return nil }
        do { return try e.bool() } catch { throw .malformed(what: what, error) }
    }

    public func requiredBool(_ tag: UInt8) throws(Failure) -> Bool {
        let e = try required(tag)
        do { return try e.bool() } catch { throw .malformed(what: what, error) }
    }

    public func bytes(_ tag: UInt8) throws(Failure) -> [UInt8]? {
        guard let e = optional(tag) else { return nil }
        do { return try e.bytes() } catch { throw .malformed(what: what, error) }
    }

    public func requiredBytes(_ tag: UInt8) throws(Failure) -> [UInt8] {
        let e = try required(tag)
        do { return try e.bytes() } catch { throw .malformed(what: what, error) }
    }

    public func string(_ tag: UInt8) throws(Failure) -> String? {
        guard let e = optional(tag) else { return nil }
        do { return try e.utf8() } catch { throw .malformed(what: what, error) }
    }

    /// An optional array field whose members decode with `decode`.
    public func array<T>(_ tag: UInt8, _ decode: (TLVElement) throws(Failure) -> T) throws(Failure) -> [T]? {
        guard let e = optional(tag) else { return nil }
        let members: [TLVElement]
        do { members = try e.members(of: .array) } catch { throw .malformed(what: what, error) }
        var out: [T] = []
        out.reserveCapacity(members.count)
        for m in members { out.append(try decode(m)) }
        return out
    }

    /// A mandatory array field: absent is `missingField`.
    public func requiredArray<T>(_ tag: UInt8, _ decode: (TLVElement) throws(Failure) -> T) throws(Failure) -> [T] {
        guard let items = try array(tag, decode) else { throw .malformed(what: what, .missingField(.context(tag))) }
        return items
    }
}

/// Builds a structure's members, dropping absent optionals.
public struct TLVFieldWriter: Sendable {
    public private(set) var members: [TLVElement] = []

    public init() {}

    public mutating func add(_ e: TLVElement?) { if let e { members.append(e) } }
    public mutating func uint<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt8, _ v: T?) {
        if let v { members.append(.unsigned(.context(tag), v)) }
    }
    /// An identifier field, as its unsigned integer.
    public mutating func identifier<ID: MatterIdentifier>(_ tag: UInt8, _ v: ID?) {
        if let v { members.append(.unsigned(.context(tag), v.rawValue)) }
    }
    public mutating func int<T: FixedWidthInteger & SignedInteger>(_ tag: UInt8, _ v: T?) {
        if let v { members.append(.signed(.context(tag), v)) }
    }
    public mutating func bool(_ tag: UInt8, _ v: Bool?) {
        if let v { members.append(.bool(.context(tag), v)) }
    }
    public mutating func bytes(_ tag: UInt8, _ v: [UInt8]?) {
        if let v { members.append(.bytes(.context(tag), v)) }
    }
    public mutating func string(_ tag: UInt8, _ v: String?) {
        if let v { members.append(.utf8(.context(tag), v)) }
    }
    public mutating func array(_ tag: UInt8, _ items: [TLVElement]?) {
        if let items { members.append(.array(.context(tag), items)) }
    }

    public func structure(_ tag: TLVTag) -> TLVElement { .structure(tag, members) }
    public func list(_ tag: TLVTag) -> TLVElement { .list(tag, members) }
}

/// A wire type that is one TLV element (an information block, a message body, a cluster
/// struct): every layer's types decode and encode through the same pair.
public protocol TLVCodable<Failure>: Sendable, Hashable {
    /// What decoding throws (the module's own error type).
    associatedtype Failure: Error
    /// Decodes from an element; the element's own tag is not checked.
    init(element: TLVElement) throws(Failure)
    /// Encodes as an element with the given tag.
    func element(tag: TLVTag) -> TLVElement
}
