import Foundation
import Testing
import TestSupport
@testable import MatterNetworkCredentials

/// Our decoder against python-otbr-api 3.1.0's `parse_tlv` (Home Assistant's OTBR client, which
/// we did not write): thousands of seeded random datasets give the same TLVs and decoded fields
/// both ways, and malformed ones are refused by ours with the defect named (and by theirs where
/// it checks that defect: truncation, duplicates, timestamp and delay-timer lengths, names).
@Suite struct ThreadDatasetCrossCheckTests {
    static let python = Lab.repositoryRoot.appendingPathComponent(".peers/otbr/bin/python").path
    static let script = Lab.repositoryRoot.appendingPathComponent("scripts/otbr-dataset.py").path

    /// Runs python-otbr-api over the datasets; one JSON object per dataset.
    static func otbr(_ datasets: [[UInt8]]) throws -> [[String: Any]] {
        try #require(FileManager.default.isExecutableFile(atPath: python),
                     "python-otbr-api is not installed: run scripts/peers (scripts/test does)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("otbr-\(UInt64.random(in: 0...UInt64.max)).hex")
        try datasets.map(Hex.encode).joined(separator: "\n").appending("\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try ProcessRunner.run(python, [script, file.path])
        try #require(r.status == 0, "otbr-dataset.py failed: \(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:] }
        try #require(lines.count == datasets.count, "one answer per dataset")
        return lines
    }

    @Test func randomDatasetsAgreeFieldByField() throws {
        var gen = RandomDatasets(rng: SeededRandom(seed: 0x7_4EAD))
        let datasets = (0..<5000).map { _ in RandomDatasets.encode(gen.validTLVs()) }
        let theirs = try Self.otbr(datasets)
        var compared = 0
        for (bytes, other) in zip(datasets, theirs) {
            let hex = Hex.encode(bytes)
            let ours = try #require(try? ThreadDataset(tlvs: bytes), "ours refused a valid dataset \(hex)")
            let tlvs = try #require(other["tlvs"] as? [[String: Any]], "python-otbr-api refused \(hex): \(other)")
            #expect(tlvs.compactMap { $0["type"] as? Int } == ours.types.map { Int($0.rawValue) }, "TLV order of \(hex)")
            for t in tlvs {
                let type = ThreadDatasetTLVType(UInt8(t["type"] as? Int ?? -1))
                let data = t["data"] as? String
                #expect(Self.field(ours, type).map(Hex.encode) == data, "\(type) of \(hex)")
                switch type {
                case .activeTimestamp, .pendingTimestamp:
                    let ts = try #require(type == .activeTimestamp ? ours.activeTimestamp : ours.pendingTimestamp)
                    #expect(Int(ts.seconds) == t["seconds"] as? Int && Int(ts.ticks) == t["ticks"] as? Int
                            && ts.isAuthoritative == t["authoritative"] as? Bool, "\(type) of \(hex)")
                case .channel:
                    let c = try #require(ours.channel)
                    #expect(Int(c.page) << 16 | Int(c.number) == t["channel"] as? Int, "channel of \(hex)")
                case .delayTimer:
                    #expect(ours.delayTimer.map(Int.init) == t["delay"] as? Int, "delay of \(hex)")
                case .networkName:
                    #expect(ours.networkName == t["name"] as? String, "name of \(hex)")
                default: break
                }
                compared += 1
            }
        }
        #expect(compared > 30_000, "\(compared) TLVs compared")
    }

    /// The bytes of one TLV as our typed fields hold them (written out here, not by the encoder).
    static func field(_ d: ThreadDataset, _ type: ThreadDatasetTLVType) -> [UInt8]? {
        func be(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
        func ts(_ t: ThreadTimestamp?) -> [UInt8]? {
            t.map { be($0.seconds << 16 | UInt64($0.ticks) << 1 | ($0.isAuthoritative ? 1 : 0), 8) }
        }
        switch type {
        case .activeTimestamp: return ts(d.activeTimestamp)
        case .pendingTimestamp: return ts(d.pendingTimestamp)
        case .delayTimer: return d.delayTimer.map { be(UInt64($0), 4) }
        case .channel: return d.channel.map { [$0.page] + be(UInt64($0.number), 2) }
        case .wakeUpChannel: return d.wakeUpChannel.map { [$0.page] + be(UInt64($0.number), 2) }
        case .channelMask: return d.channelMask.map { $0.flatMap { [$0.page, UInt8($0.mask.count)] + $0.mask } }
        case .panID: return d.panID.map { be(UInt64($0), 2) }
        case .extendedPANID: return d.extendedPANID
        case .networkName: return d.networkName.map { Array($0.utf8) }
        case .meshLocalPrefix: return d.meshLocalPrefix?.bytes
        case .networkKey: return d.networkKey?.bytes
        case .pskc: return d.pskc?.bytes
        case .securityPolicy: return d.securityPolicy.map { be(UInt64($0.rotationTimeHours), 2) + $0.flags }
        default: return d.unknownTLVs.first { $0.type == type }?.value
        }
    }

    @Test func malformedDatasetsAreRefused() throws {
        var gen = RandomDatasets(rng: SeededRandom(seed: 0xBAD_DA7A))
        let cases = (0..<2000).map { _ in gen.malformed() }
        let theirs = try Self.otbr(cases.map(\.bytes))
        var theyRefused = 0
        for (c, other) in zip(cases, theirs) {
            let hex = Hex.encode(c.bytes)
            let error = try #require(throws: ThreadDatasetError.self, "ours accepted \(c.defect): \(hex)") {
                try ThreadDataset(tlvs: c.bytes)
            }
            #expect(error.code == c.code, "\(c.defect) in \(hex) gave \(error)")
            // python-otbr-api checks truncation, duplicates, timestamp/delay lengths and names.
            let theyCheck: Bool
            switch c.code {
            case .truncatedTLV, .duplicateType, .invalidValue: theyCheck = true
            case .wrongLength: theyCheck = [14, 51, 52].contains(error.tlvType?.rawValue ?? 0)
            default: theyCheck = false
            }
            if other["error"] != nil { theyRefused += 1 }
            if theyCheck { #expect(other["error"] != nil, "python-otbr-api accepted \(c.defect): \(hex)") }
        }
        #expect(theyRefused > 1000, "python-otbr-api refused \(theyRefused) of \(cases.count)")
    }
}
