import MatterTLV

/// PBKDFParamRequest (Matter Core 4.14.1.2): the commissioner opens PASE.
public struct PBKDFParamRequest: Hashable, Sendable {
    public var initiatorRandom: [UInt8]
    public var initiatorSessionID: UInt16
    /// Always 0: the default commissioning passcode.
    public var passcodeID: UInt16
    /// Whether the initiator already knows iterations and salt (then the response omits them).
    public var hasPBKDFParameters: Bool
    public var initiatorSessionParameters: SessionParameters?

    enum Tag {
        static let initiatorRandom: UInt8 = 1
        static let initiatorSessionID: UInt8 = 2
        static let passcodeID: UInt8 = 3
        static let hasPBKDFParameters: UInt8 = 4
        static let initiatorSessionParameters: UInt8 = 5
    }

    public init(initiatorRandom: [UInt8], initiatorSessionID: UInt16, passcodeID: UInt16 = 0,
                hasPBKDFParameters: Bool, initiatorSessionParameters: SessionParameters?) {
        self.initiatorRandom = initiatorRandom
        self.initiatorSessionID = initiatorSessionID
        self.passcodeID = passcodeID
        self.hasPBKDFParameters = hasPBKDFParameters
        self.initiatorSessionParameters = initiatorSessionParameters
    }

    public func encoded() -> [UInt8] {
        var m: [TLVElement] = [
            .bytes(.context(Tag.initiatorRandom), initiatorRandom),
            .unsigned(.context(Tag.initiatorSessionID), initiatorSessionID),
            .unsigned(.context(Tag.passcodeID), passcodeID),
            .bool(.context(Tag.hasPBKDFParameters), hasPBKDFParameters),
        ]
        if let p = initiatorSessionParameters { m.append(p.element(tag: Tag.initiatorSessionParameters)) }
        return TLVWriter.encode(.structure(m))
    }

    public init(decoding bytes: [UInt8]) throws(SecureChannelError) {
        do {
            let e = try TLVDecoder.decode(bytes)
            _ = try e.members(of: .structure)
            initiatorRandom = try e.required(Tag.initiatorRandom).bytes()
            initiatorSessionID = try e.required(Tag.initiatorSessionID).unsigned(as: UInt16.self)
            passcodeID = try e.required(Tag.passcodeID).unsigned(as: UInt16.self)
            hasPBKDFParameters = try e.required(Tag.hasPBKDFParameters).bool()
            initiatorSessionParameters = try e[context: Tag.initiatorSessionParameters].map(SessionParameters.init)
        } catch {
            throw .malformed(message: "PBKDFParamRequest", reason: error.description)
        }
        guard initiatorRandom.count == 32 else {
            throw .malformed(message: "PBKDFParamRequest", reason: "initiator random is \(initiatorRandom.count) bytes, not 32")
        }
    }
}

/// PBKDFParamResponse (Matter Core 4.14.1.2): the device answers with its random, its session
/// ID and, unless the initiator has them, the PBKDF iterations and salt.
public struct PBKDFParamResponse: Hashable, Sendable {
    public struct PBKDFParameters: Hashable, Sendable {
        public var iterations: UInt32
        public var salt: [UInt8]
        public init(iterations: UInt32, salt: [UInt8]) {
            self.iterations = iterations
            self.salt = salt
        }
    }

    public var initiatorRandom: [UInt8]
    public var responderRandom: [UInt8]
    public var responderSessionID: UInt16
    public var pbkdfParameters: PBKDFParameters?
    public var responderSessionParameters: SessionParameters?

    enum Tag {
        static let initiatorRandom: UInt8 = 1
        static let responderRandom: UInt8 = 2
        static let responderSessionID: UInt8 = 3
        static let pbkdfParameters: UInt8 = 4
        static let responderSessionParameters: UInt8 = 5
        static let iterations: UInt8 = 1
        static let salt: UInt8 = 2
    }

    public init(initiatorRandom: [UInt8], responderRandom: [UInt8], responderSessionID: UInt16,
                pbkdfParameters: PBKDFParameters?, responderSessionParameters: SessionParameters?) {
        self.initiatorRandom = initiatorRandom
        self.responderRandom = responderRandom
        self.responderSessionID = responderSessionID
        self.pbkdfParameters = pbkdfParameters
        self.responderSessionParameters = responderSessionParameters
    }

    public func encoded() -> [UInt8] {
        var m: [TLVElement] = [
            .bytes(.context(Tag.initiatorRandom), initiatorRandom),
            .bytes(.context(Tag.responderRandom), responderRandom),
            .unsigned(.context(Tag.responderSessionID), responderSessionID),
        ]
        if let p = pbkdfParameters {
            m.append(.structure(.context(Tag.pbkdfParameters), [
                .unsigned(.context(Tag.iterations), p.iterations),
                .bytes(.context(Tag.salt), p.salt),
            ]))
        }
        if let p = responderSessionParameters { m.append(p.element(tag: Tag.responderSessionParameters)) }
        return TLVWriter.encode(.structure(m))
    }

    public init(decoding bytes: [UInt8]) throws(SecureChannelError) {
        do {
            let e = try TLVDecoder.decode(bytes)
            _ = try e.members(of: .structure)
            initiatorRandom = try e.required(Tag.initiatorRandom).bytes()
            responderRandom = try e.required(Tag.responderRandom).bytes()
            responderSessionID = try e.required(Tag.responderSessionID).unsigned(as: UInt16.self)
            if let p = e[context: Tag.pbkdfParameters] {
                _ = try p.members(of: .structure)
                pbkdfParameters = PBKDFParameters(iterations: try p.required(Tag.iterations).unsigned(as: UInt32.self),
                                                  salt: try p.required(Tag.salt).bytes())
            } else {
                pbkdfParameters = nil
            }
            responderSessionParameters = try e[context: Tag.responderSessionParameters].map(SessionParameters.init)
        } catch {
            throw .malformed(message: "PBKDFParamResponse", reason: error.description)
        }
        guard responderRandom.count == 32 else {
            throw .malformed(message: "PBKDFParamResponse", reason: "responder random is \(responderRandom.count) bytes, not 32")
        }
    }
}

/// Pake1, Pake2 and Pake3 (Matter Core 4.14.1.2): the SPAKE2+ shares and confirmations.
public enum PAKEMessage {
    static let shareTag: UInt8 = 1
    static let confirmationTag: UInt8 = 2

    public static func pake1(X: [UInt8]) -> [UInt8] {
        TLVWriter.encode(.structure([.bytes(.context(1), X)]))
    }

    public static func pake2(Y: [UInt8], cB: [UInt8]) -> [UInt8] {
        TLVWriter.encode(.structure([.bytes(.context(1), Y), .bytes(.context(2), cB)]))
    }

    public static func pake3(cA: [UInt8]) -> [UInt8] {
        TLVWriter.encode(.structure([.bytes(.context(1), cA)]))
    }

    /// The fields of a Pake message: (tag 1, tag 2 if present), with their expected lengths.
    static func decode(_ bytes: [UInt8], name: String, lengths: [Int]) throws(SecureChannelError) -> [[UInt8]] {
        do {
            let e = try TLVDecoder.decode(bytes)
            _ = try e.members(of: .structure)
            var out: [[UInt8]] = []
            for (i, length) in lengths.enumerated() {
                let field = try e.required(UInt8(i + 1)).bytes()
                guard field.count == length else {
                    throw SecureChannelError.malformed(message: name, reason: "field \(i + 1) is \(field.count) bytes, not \(length)")
                }
                out.append(field)
            }
            return out
        } catch let e as SecureChannelError {
            throw e
        } catch let e as TLVError {
            throw .malformed(message: name, reason: e.description)
        } catch {
            throw .malformed(message: name, reason: "\(error)")
        }
    }
}
