import TestSupport
@testable import MatterNetworkCredentials

/// Seeded random datasets for the cross-check: valid ones (any subset of the known TLVs with
/// allowed values, in any order, with unknown TLVs among them) and ones with one named defect.
struct RandomDatasets {
    var rng: SeededRandom

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) } }

    /// Network names of 1-16 bytes of UTF-8, with multi-byte characters.
    mutating func name() -> [UInt8] {
        let alphabet: [String] = ["a", "Z", "-", " ", "0", "é", "ü", "€", "ω", "家", "🏠"]
        var out: [UInt8] = []
        let target = int(1...16)
        while true {
            let c = Array(alphabet[int(0...alphabet.count - 1)].utf8)
            if out.count + c.count > target { break }
            out += c
        }
        return out.isEmpty ? [0x41] : out
    }

    /// One valid TLV value for `type`.
    mutating func value(_ type: ThreadDatasetTLVType) -> [UInt8] {
        switch type {
        case .activeTimestamp, .pendingTimestamp: return bytes(8)
        case .delayTimer: return bytes(4)
        case .channel, .wakeUpChannel:
            // Mostly page 0 (channels 11-26), sometimes another page with any nonzero channel.
            if int(0...4) > 0 { return [0, 0, UInt8(int(11...26))] }
            return [UInt8(int(1...31)), UInt8(int(0...255)), UInt8(int(1...255))]
        case .channelMask:
            var v: [UInt8] = []
            for page in [0, 1, 2].shuffled(using: &rng).prefix(int(1...3)) { v += [UInt8(page), 4] + bytes(4) }
            return v
        case .panID: return bytes(2)
        case .extendedPANID, .meshLocalPrefix: return bytes(8)
        case .networkName: return name()
        case .networkKey, .pskc: return bytes(16)
        case .securityPolicy: return bytes(int(0...1) == 0 ? 3 : 4)
        default: return bytes(int(0...12))
        }
    }

    /// The TLVs of a valid dataset.
    mutating func validTLVs() -> [(UInt8, [UInt8])] {
        var types = ThreadDatasetTLVType.canonicalOrder.filter { _ in int(0...5) > 0 }
        // Unknown types: MeshCoP ones a dataset does not use, and unassigned ones.
        let unknown: [UInt8] = [6, 8, 9, 10, 11, 13, 15, 16, 59, 60, 100, 128, 200, 254]
        for t in unknown.shuffled(using: &rng).prefix(int(0...2)) { types.append(ThreadDatasetTLVType(t)) }
        types.shuffle(using: &rng)
        var tlvs: [(UInt8, [UInt8])] = []
        var size = 0
        for t in types {
            let v = value(t)
            guard size + 2 + v.count <= ThreadDataset.maxLength else { continue }
            tlvs.append((t.rawValue, v))
            size += 2 + v.count
        }
        return tlvs
    }

    static func encode(_ tlvs: [(UInt8, [UInt8])]) -> [UInt8] { tlvs.flatMap { [$0.0, UInt8($0.1.count)] + $0.1 } }

    /// A dataset with one defect, and the error code ours must give.
    mutating func malformed() -> (bytes: [UInt8], code: ThreadDatasetError.Code, defect: String) {
        var tlvs = validTLVs()
        if tlvs.isEmpty { tlvs = [(0, [0, 0, 15])] }
        switch int(0...4) {
        case 0:  // cut inside the last TLV's value or header
            let bytes = Self.encode(tlvs)
            let last = tlvs.last!
            let cut = int(1...(last.1.count + 1))
            return (Array(bytes.dropLast(cut)), .truncatedTLV, "truncated")
        case 1:  // a TLV repeated later
            let i = int(0...tlvs.count - 1)
            tlvs.insert(tlvs[i], at: int(i + 1...tlvs.count))
            if Self.encode(tlvs).count > ThreadDataset.maxLength { tlvs = [tlvs[i], tlvs[i]] }
            return (Self.encode(tlvs), .duplicateType, "duplicate")
        case 2, 3:  // a fixed-length TLV one byte too long or too short
            let fixed: [UInt8] = [0, 1, 2, 4, 5, 7, 14, 51, 52, 74]
            let t = fixed[int(0...fixed.count - 1)]
            var v = value(ThreadDatasetTLVType(t))
            if int(0...1) == 0 { v.removeLast() } else { v.append(0) }
            tlvs.removeAll { $0.0 == t }
            tlvs.insert((t, v), at: int(0...tlvs.count))
            if Self.encode(tlvs).count > ThreadDataset.maxLength { tlvs = [(t, v)] }
            return (Self.encode(tlvs), .wrongLength, "length of type \(t)")
        default:  // a network name that is not UTF-8
            tlvs.removeAll { $0.0 == 3 }
            let bad: [[UInt8]] = [[0xFF], [0xC3, 0x28], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xC0, 0xAF]]
            tlvs.insert((3, Array("Net".utf8) + bad[int(0...bad.count - 1)]), at: int(0...tlvs.count))
            if Self.encode(tlvs).count > ThreadDataset.maxLength { tlvs = [tlvs.first { $0.0 == 3 }!] }
            return (Self.encode(tlvs), .invalidValue, "network name not UTF-8")
        }
    }
}
