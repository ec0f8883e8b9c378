import MatterCrypto

extension ThreadDataset {
    /// Decodes the TLVs of a dataset (e.g. what `ot-ctl dataset active -x` prints, as bytes).
    public init(tlvs bytes: [UInt8]) throws(ThreadDatasetError) {
        guard bytes.count <= Self.maxLength else {
            throw ThreadDatasetError(.tooLong, "too long: the dataset is \(bytes.count) bytes; a Thread dataset holds at most \(Self.maxLength)")
        }
        self.init()
        var seen = Set<ThreadDatasetTLVType>()
        var offset = 0
        while offset < bytes.count {
            guard offset + 2 <= bytes.count else {
                throw ThreadDatasetError(.truncatedTLV, "truncated TLV: the TLV at byte \(offset) has a type but no length byte",
                                         tlvType: ThreadDatasetTLVType(bytes[offset]), offset: offset)
            }
            let type = ThreadDatasetTLVType(bytes[offset])
            let length = Int(bytes[offset + 1])
            guard offset + 2 + length <= bytes.count else {
                throw ThreadDatasetError(.truncatedTLV, "truncated TLV: the \(type) at byte \(offset) declares \(length) bytes "
                                         + "but only \(bytes.count - offset - 2) remain", tlvType: type, offset: offset)
            }
            guard seen.insert(type).inserted else {
                throw ThreadDatasetError(.duplicateType, "duplicate type: the \(type) appears a second time at byte \(offset)",
                                         tlvType: type, offset: offset)
            }
            try apply(type, Array(bytes[offset + 2 ..< offset + 2 + length]), at: offset)
            order.types.append(type)
            offset += 2 + length
        }
    }

    /// The dataset's TLVs: those received in their order, then any set since in OpenThread's order.
    /// Throws when a field holds a value the TLV cannot carry (the same checks as decoding).
    public func encoded() throws(ThreadDatasetError) -> [UInt8] {
        var out: [UInt8] = []
        for tlv in tlvs() {
            guard tlv.value.count <= 255 else {
                throw ThreadDatasetError(.tooLong, "too long: the \(tlv.type) holds \(tlv.value.count) bytes; a TLV holds at most 255",
                                         tlvType: tlv.type)
            }
            out += [tlv.type.rawValue, UInt8(tlv.value.count)] + tlv.value
        }
        // The same validation as decoding (lengths, values, total size), so what we write we accept.
        guard try ThreadDataset(tlvs: out) == self else {
            throw ThreadDatasetError(.invalidValue, "invalid value: the dataset holds a value that does not survive encoding")
        }
        return out
    }

    /// Decodes one TLV's value into its field.
    private mutating func apply(_ type: ThreadDatasetTLVType, _ v: [UInt8], at offset: Int) throws(ThreadDatasetError) {
        func need(_ n: Int) throws(ThreadDatasetError) {
            guard v.count == n else { throw .wrongLength(type, at: offset, got: v.count, expected: "\(n)") }
        }
        switch type {
        case .activeTimestamp, .pendingTimestamp:
            try need(8)
            let t = ThreadTimestamp(wire: Self.bigEndian(v))
            if type == .activeTimestamp { activeTimestamp = t } else { pendingTimestamp = t }
        case .delayTimer:
            try need(4)
            delayTimer = UInt32(Self.bigEndian(v))
        case .channel, .wakeUpChannel:
            try need(3)
            let c = ThreadChannel(page: v[0], number: UInt16(v[1]) << 8 | UInt16(v[2]))
            if let defect = c.defect { throw .invalid(type, at: offset, defect) }
            if type == .channel { channel = c } else { wakeUpChannel = c }
        case .channelMask:
            channelMask = try Self.channelMask(v, at: offset)
        case .panID:
            try need(2)
            panID = UInt16(v[0]) << 8 | UInt16(v[1])
        case .extendedPANID:
            try need(8)
            extendedPANID = v
        case .networkName:
            guard (1...16).contains(v.count) else { throw .wrongLength(type, at: offset, got: v.count, expected: "1-16") }
            guard let name = String(validating: v, as: UTF8.self) else { throw .invalid(type, at: offset, "is not UTF-8") }
            networkName = name
        case .meshLocalPrefix:
            try need(8)
            meshLocalPrefix = ThreadMeshLocalPrefix(v)
        case .networkKey:
            try need(16)
            networkKey = SecretBytes(v)
        case .pskc:
            try need(16)
            pskc = SecretBytes(v)
        case .securityPolicy:
            guard v.count == 3 || v.count == 4 else { throw .wrongLength(type, at: offset, got: v.count, expected: "3 or 4") }
            securityPolicy = ThreadSecurityPolicy(rotationTimeHours: UInt16(v[0]) << 8 | UInt16(v[1]), flags: Array(v[2...]))
        default:
            unknownTLVs.append(ThreadDatasetTLV(type: type, value: v))
        }
    }

    /// Channel Mask TLV: one or more entries of page (1), mask length (1), mask.
    private static func channelMask(_ v: [UInt8], at offset: Int) throws(ThreadDatasetError) -> [ThreadChannelMaskEntry] {
        guard !v.isEmpty else { throw .wrongLength(.channelMask, at: offset, got: 0, expected: "at least 2 (one entry)") }
        var entries: [ThreadChannelMaskEntry] = []
        var i = 0
        while i < v.count {
            guard i + 2 <= v.count, i + 2 + Int(v[i + 1]) <= v.count else {
                throw .wrongLength(.channelMask, at: offset, got: v.count,
                                   expected: "a whole number of entries (page, mask length, mask); the entry at value byte \(i) is cut short")
            }
            let n = Int(v[i + 1])
            guard n > 0 else { throw .invalid(.channelMask, at: offset, "has an entry for page \(v[i]) with an empty mask") }
            entries.append(ThreadChannelMaskEntry(page: v[i], mask: Array(v[i + 2 ..< i + 2 + n])))
            i += 2 + n
        }
        if let dup = Set(entries.map(\.page)).first(where: { p in entries.filter { $0.page == p }.count > 1 }) {
            throw .invalid(.channelMask, at: offset, "has two entries for page \(dup)")
        }
        return entries
    }

    private static func bigEndian(_ v: [UInt8]) -> UInt64 { v.reduce(0) { $0 << 8 | UInt64($1) } }

    /// The present TLVs in encoding order.
    func tlvs() -> [ThreadDatasetTLV] {
        var byType: [ThreadDatasetTLVType: [UInt8]] = [:]
        func put(_ t: ThreadDatasetTLVType, _ v: [UInt8]?) { if let v { byType[t] = v } }
        put(.activeTimestamp, activeTimestamp.map { Self.bytes($0.wire ?? .max, 8) })
        put(.pendingTimestamp, pendingTimestamp.map { Self.bytes($0.wire ?? .max, 8) })
        put(.delayTimer, delayTimer.map { Self.bytes(UInt64($0), 4) })
        put(.channel, channel.map { [$0.page] + Self.bytes(UInt64($0.number), 2) })
        put(.wakeUpChannel, wakeUpChannel.map { [$0.page] + Self.bytes(UInt64($0.number), 2) })
        put(.channelMask, channelMask.map { $0.flatMap { [$0.page, UInt8(truncatingIfNeeded: $0.mask.count)] + $0.mask } })
        put(.extendedPANID, extendedPANID)
        put(.meshLocalPrefix, meshLocalPrefix?.bytes)
        put(.networkKey, networkKey?.bytes)
        put(.networkName, networkName.map { Array($0.utf8) })
        put(.panID, panID.map { Self.bytes(UInt64($0), 2) })
        put(.pskc, pskc?.bytes)
        put(.securityPolicy, securityPolicy.map { Self.bytes(UInt64($0.rotationTimeHours), 2) + $0.flags })
        var unknown = unknownTLVs
        var out: [ThreadDatasetTLV] = []
        for t in order.types + ThreadDatasetTLVType.canonicalOrder {
            if let v = byType.removeValue(forKey: t) {
                out.append(ThreadDatasetTLV(type: t, value: v))
            } else if let i = unknown.firstIndex(where: { $0.type == t }) {
                out.append(unknown.remove(at: i))
            }
        }
        return out + unknown
    }

    private static func bytes(_ v: UInt64, _ n: Int) -> [UInt8] {
        (0..<n).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) }
    }
}
