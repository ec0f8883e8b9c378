import MatterTLV

/// Sigma1 (Matter Core 4.14.2.3): the initiator's random, session ID, destination ID and
/// ephemeral key; with resumption ID and MIC when it asks to resume a previous session.
public struct Sigma1: Hashable, Sendable {
    public var initiatorRandom: [UInt8]
    public var initiatorSessionID: UInt16
    public var destinationID: [UInt8]
    public var initiatorEphemeralPublicKey: [UInt8]
    public var initiatorSessionParameters: SessionParameters?
    public var resumptionID: [UInt8]?
    public var initiatorResumeMIC: [UInt8]?

    public init(initiatorRandom: [UInt8], initiatorSessionID: UInt16, destinationID: [UInt8],
                initiatorEphemeralPublicKey: [UInt8], initiatorSessionParameters: SessionParameters?,
                resumptionID: [UInt8]? = nil, initiatorResumeMIC: [UInt8]? = nil) {
        self.initiatorRandom = initiatorRandom
        self.initiatorSessionID = initiatorSessionID
        self.destinationID = destinationID
        self.initiatorEphemeralPublicKey = initiatorEphemeralPublicKey
        self.initiatorSessionParameters = initiatorSessionParameters
        self.resumptionID = resumptionID
        self.initiatorResumeMIC = initiatorResumeMIC
    }

    public func encoded() -> [UInt8] {
        var m: [TLVElement] = [
            .bytes(.context(1), initiatorRandom),
            .unsigned(.context(2), initiatorSessionID),
            .bytes(.context(3), destinationID),
            .bytes(.context(4), initiatorEphemeralPublicKey),
        ]
        if let p = initiatorSessionParameters { m.append(p.element(tag: 5)) }
        if let r = resumptionID { m.append(.bytes(.context(6), r)) }
        if let mic = initiatorResumeMIC { m.append(.bytes(.context(7), mic)) }
        return TLVWriter.encode(.structure(m))
    }

    public init(decoding bytes: [UInt8]) throws(SecureChannelError) {
        let e = try CASECodec.root(bytes, "Sigma1")
        initiatorRandom = try CASECodec.bytes(e, 1, "Sigma1", length: 32)
        initiatorSessionID = try CASECodec.uint16(e, 2, "Sigma1")
        destinationID = try CASECodec.bytes(e, 3, "Sigma1", length: 32)
        initiatorEphemeralPublicKey = try CASECodec.bytes(e, 4, "Sigma1", length: 65)
        initiatorSessionParameters = try CASECodec.parameters(e, 5, "Sigma1")
        resumptionID = try CASECodec.optionalBytes(e, 6, "Sigma1", length: 16)
        initiatorResumeMIC = try CASECodec.optionalBytes(e, 7, "Sigma1", length: 16)
        guard (resumptionID == nil) == (initiatorResumeMIC == nil) else {
            throw .malformed(message: "Sigma1", reason: "resumption ID and resume MIC must come together")
        }
    }
}

/// Sigma2: the responder's random, session ID, ephemeral key and its encrypted credentials.
public struct Sigma2: Hashable, Sendable {
    public var responderRandom: [UInt8]
    public var responderSessionID: UInt16
    public var responderEphemeralPublicKey: [UInt8]
    public var encrypted2: [UInt8]
    public var responderSessionParameters: SessionParameters?

    public init(responderRandom: [UInt8], responderSessionID: UInt16, responderEphemeralPublicKey: [UInt8],
                encrypted2: [UInt8], responderSessionParameters: SessionParameters?) {
        self.responderRandom = responderRandom
        self.responderSessionID = responderSessionID
        self.responderEphemeralPublicKey = responderEphemeralPublicKey
        self.encrypted2 = encrypted2
        self.responderSessionParameters = responderSessionParameters
    }

    public func encoded() -> [UInt8] {
        var m: [TLVElement] = [
            .bytes(.context(1), responderRandom),
            .unsigned(.context(2), responderSessionID),
            .bytes(.context(3), responderEphemeralPublicKey),
            .bytes(.context(4), encrypted2),
        ]
        if let p = responderSessionParameters { m.append(p.element(tag: 5)) }
        return TLVWriter.encode(.structure(m))
    }

    public init(decoding bytes: [UInt8]) throws(SecureChannelError) {
        let e = try CASECodec.root(bytes, "Sigma2")
        responderRandom = try CASECodec.bytes(e, 1, "Sigma2", length: 32)
        responderSessionID = try CASECodec.uint16(e, 2, "Sigma2")
        responderEphemeralPublicKey = try CASECodec.bytes(e, 3, "Sigma2", length: 65)
        encrypted2 = try CASECodec.bytes(e, 4, "Sigma2")
        responderSessionParameters = try CASECodec.parameters(e, 5, "Sigma2")
        guard encrypted2.count > 16 else { throw .malformed(message: "Sigma2", reason: "encrypted data too short") }
    }
}

/// Sigma2_Resume: the responder accepts resumption with a new resumption ID and its MIC.
public struct Sigma2Resume: Hashable, Sendable {
    public var resumptionID: [UInt8]
    public var sigma2ResumeMIC: [UInt8]
    public var responderSessionID: UInt16
    public var responderSessionParameters: SessionParameters?

    public init(resumptionID: [UInt8], sigma2ResumeMIC: [UInt8], responderSessionID: UInt16,
                responderSessionParameters: SessionParameters?) {
        self.resumptionID = resumptionID
        self.sigma2ResumeMIC = sigma2ResumeMIC
        self.responderSessionID = responderSessionID
        self.responderSessionParameters = responderSessionParameters
    }

    public func encoded() -> [UInt8] {
        var m: [TLVElement] = [
            .bytes(.context(1), resumptionID),
            .bytes(.context(2), sigma2ResumeMIC),
            .unsigned(.context(3), responderSessionID),
        ]
        if let p = responderSessionParameters { m.append(p.element(tag: 4)) }
        return TLVWriter.encode(.structure(m))
    }

    public init(decoding bytes: [UInt8]) throws(SecureChannelError) {
        let e = try CASECodec.root(bytes, "Sigma2_Resume")
        resumptionID = try CASECodec.bytes(e, 1, "Sigma2_Resume", length: 16)
        sigma2ResumeMIC = try CASECodec.bytes(e, 2, "Sigma2_Resume", length: 16)
        responderSessionID = try CASECodec.uint16(e, 3, "Sigma2_Resume")
        responderSessionParameters = try CASECodec.parameters(e, 4, "Sigma2_Resume")
    }
}

/// The signed (TBS) and encrypted (TBE) parts of Sigma2 and Sigma3.
public enum SigmaData {
    /// TBSData2/TBSData3: sender NOC, sender ICAC?, sender ephemeral key, receiver ephemeral key.
    public static func tbs(noc: [UInt8], icac: [UInt8]?, senderKey: [UInt8], receiverKey: [UInt8]) -> [UInt8] {
        var m: [TLVElement] = [.bytes(.context(1), noc)]
        if let icac { m.append(.bytes(.context(2), icac)) }
        m.append(.bytes(.context(3), senderKey))
        m.append(.bytes(.context(4), receiverKey))
        return TLVWriter.encode(.structure(m))
    }

    /// TBEData2 (with a resumption ID) / TBEData3 (without).
    public static func tbe(noc: [UInt8], icac: [UInt8]?, signature: [UInt8], resumptionID: [UInt8]?) -> [UInt8] {
        var m: [TLVElement] = [.bytes(.context(1), noc)]
        if let icac { m.append(.bytes(.context(2), icac)) }
        m.append(.bytes(.context(3), signature))
        if let r = resumptionID { m.append(.bytes(.context(4), r)) }
        return TLVWriter.encode(.structure(m))
    }

    /// Reads decrypted TBE data: (NOC, ICAC?, signature, resumption ID?).
    static func readTBE(_ bytes: [UInt8], _ name: String, withResumptionID: Bool) throws(SecureChannelError)
        -> (noc: [UInt8], icac: [UInt8]?, signature: [UInt8], resumptionID: [UInt8]?) {
        let e = try CASECodec.root(bytes, name)
        let noc = try CASECodec.bytes(e, 1, name)
        let icac = try CASECodec.optionalBytes(e, 2, name)
        let signature = try CASECodec.bytes(e, 3, name, length: 64)
        let r = withResumptionID ? try CASECodec.bytes(e, 4, name, length: 16) : nil
        return (noc, icac, signature, r)
    }
}

/// Shared field readers that turn TLV defects into `SecureChannelError.malformed`.
enum CASECodec {
    static func root(_ bytes: [UInt8], _ name: String) throws(SecureChannelError) -> TLVElement {
        do {
            let e = try TLVDecoder.decode(bytes)
            _ = try e.members(of: .structure)
            return e
        } catch {
            throw .malformed(message: name, reason: error.description)
        }
    }

    static func bytes(_ e: TLVElement, _ tag: UInt8, _ name: String, length: Int? = nil) throws(SecureChannelError) -> [UInt8] {
        guard let v = try optionalBytes(e, tag, name, length: length) else {
            throw .malformed(message: name, reason: "field \(tag) is missing")
        }
        return v
    }

    static func optionalBytes(_ e: TLVElement, _ tag: UInt8, _ name: String, length: Int? = nil) throws(SecureChannelError) -> [UInt8]? {
        guard let f = e[context: tag] else { return nil }
        let v: [UInt8]
        do { v = try f.bytes() } catch { throw .malformed(message: name, reason: error.description) }
        if let length, v.count != length {
            throw .malformed(message: name, reason: "field \(tag) is \(v.count) bytes, not \(length)")
        }
        return v
    }

    static func uint16(_ e: TLVElement, _ tag: UInt8, _ name: String) throws(SecureChannelError) -> UInt16 {
        do { return try e.required(tag).unsigned(as: UInt16.self) } catch {
            throw .malformed(message: name, reason: error.description)
        }
    }

    static func parameters(_ e: TLVElement, _ tag: UInt8, _ name: String) throws(SecureChannelError) -> SessionParameters? {
        guard let p = e[context: tag] else { return nil }
        do { return try SessionParameters(p) } catch { throw .malformed(message: name, reason: error.description) }
    }
}
