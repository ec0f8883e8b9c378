import MatterCrypto
import MatterNetworkCredentials

/// How `matterctl thread` prints a dataset: OpenThread-like lines, or the JSON object whose keys
/// the documentation lists. The network key and PSKc are redacted unless asked for.
enum ThreadDatasetView {
    static let redacted = "<redacted>"

    static func json(_ d: ThreadDataset, showSecrets: Bool) -> JSON {
        func secret(_ s: SecretBytes?) -> JSON {
            guard let s else { return .null }
            return showSecrets ? .string(s.bytes.hexString) : .string(redacted)
        }
        return .object([
            ("activeTimestamp", timestamp(d.activeTimestamp)),
            ("pendingTimestamp", timestamp(d.pendingTimestamp)),
            ("delayTimer", JSON.from(d.delayTimer)),
            ("channel", JSON.from(d.channel?.number)),
            ("wakeUpChannel", JSON.from(d.wakeUpChannel?.number)),
            ("channelMask", d.channelMask.map { entries in
                .array(entries.map { e in
                    .object([("page", .uint(UInt64(e.page))), ("mask", .string(e.mask.hexString)),
                             ("channels", .array(e.channels.map { .uint(UInt64($0)) }))])
                })
            } ?? .null),
            ("panId", JSON.from(d.panID)),
            ("extPanId", JSON.from(d.extendedPANID?.hexString)),
            ("networkName", JSON.from(d.networkName)),
            ("meshLocalPrefix", JSON.from(d.meshLocalPrefix?.description)),
            ("networkKey", secret(d.networkKey)),
            ("pskc", secret(d.pskc)),
            ("securityPolicy", d.securityPolicy.map {
                .object([("rotationTime", .uint(UInt64($0.rotationTimeHours))), ("flags", .string($0.flags.hexString))])
            } ?? .null),
            ("unknown", .array(d.unknownTLVs.map { .object([("type", .uint(UInt64($0.type.rawValue))), ("value", .string($0.value.hexString))]) })),
        ])
    }

    static func timestamp(_ t: ThreadTimestamp?) -> JSON {
        guard let t else { return .null }
        return .object([("seconds", .uint(t.seconds)), ("ticks", .uint(UInt64(t.ticks))), ("authoritative", .bool(t.isAuthoritative))])
    }

    static func lines(_ d: ThreadDataset, showSecrets: Bool) -> [String] {
        var out: [String] = []
        func add(_ label: String, _ value: String?) { if let value { out.append("\(label): \(value)") } }
        func ts(_ t: ThreadTimestamp?) -> String? {
            t.map { "\($0.seconds)" + ($0.ticks > 0 ? " (+\($0.ticks) ticks)" : "") + ($0.isAuthoritative ? " authoritative" : "") }
        }
        func channel(_ c: ThreadChannel?) -> String? { c.map { $0.page == 0 ? "\($0.number)" : "\($0.number) (page \($0.page))" } }
        add("Pending Timestamp", ts(d.pendingTimestamp))
        add("Active Timestamp", ts(d.activeTimestamp))
        add("Channel", channel(d.channel))
        add("Wake-up Channel", channel(d.wakeUpChannel))
        add("Channel Mask", d.channelMask.map { $0.map { "page \($0.page): \(ranges($0.channels)) (\($0.mask.hexString))" }.joined(separator: "; ") })
        add("Delay", d.delayTimer.map { "\($0) ms" })
        add("Ext PAN ID", d.extendedPANID?.hexString)
        add("Mesh Local Prefix", d.meshLocalPrefix?.description)
        add("Network Key", d.networkKey.map { showSecrets ? $0.bytes.hexString : redacted })
        add("Network Name", d.networkName)
        add("PAN ID", d.panID.map { "0x" + String($0, radix: 16).leftPadded(4) })
        add("PSKc", d.pskc.map { showSecrets ? $0.bytes.hexString : redacted })
        add("Security Policy", d.securityPolicy.map { "\($0.rotationTimeHours) hours, flags \($0.flags.hexString)" })
        for u in d.unknownTLVs { out.append("TLV \(u.type.rawValue): \(u.value.hexString)") }
        return out
    }

    /// `11-26`, `11, 15, 20-22`.
    static func ranges(_ channels: [UInt16]) -> String {
        var parts: [String] = []
        var i = 0
        while i < channels.count {
            var j = i
            while j + 1 < channels.count && channels[j + 1] == channels[j] + 1 { j += 1 }
            parts.append(j > i ? "\(channels[i])-\(channels[j])" : "\(channels[i])")
            i = j + 1
        }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}
