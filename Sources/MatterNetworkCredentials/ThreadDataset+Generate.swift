public import MatterCrypto

extension ThreadDataset {
    /// A new, complete active dataset with fresh secrets, as OpenThread's `dataset init new`
    /// makes one: random PAN ID, extended PAN ID, network key, PSKc and mesh-local prefix
    /// (`fd` + a 40-bit global ID, subnet 0), a random page-0 channel unless given, all page-0
    /// channels in the mask, OpenThread's default security policy and active timestamp 1.
    ///
    /// - Parameters:
    ///   - networkName: 1-16 bytes of UTF-8; default `MatterHub-XXXX` after the PAN ID.
    ///   - channel: 11-26; default random.
    ///   - random: the entropy (`SystemRandomSource` outside tests).
    public static func generate(networkName: String? = nil, channel: UInt16? = nil,
                                random: inout some RandomSource) throws(ThreadDatasetError) -> ThreadDataset {
        if let channel, !ThreadChannel.page0Channels.contains(channel) {
            throw .invalid(.channel, at: nil, "cannot be \(channel): page-0 channels are 11-26")
        }
        if let networkName, !(1...16).contains(networkName.utf8.count) {
            throw .wrongLength(.networkName, at: 0, got: networkName.utf8.count, expected: "1-16")
        }
        var d = ThreadDataset()
        var pan: UInt16 = 0xFFFF
        while pan == 0xFFFF {  // 0xFFFF is the broadcast PAN ID
            let b = random.bytes(2)
            pan = UInt16(b[0]) << 8 | UInt16(b[1])
        }
        d.panID = pan
        d.activeTimestamp = ThreadTimestamp(seconds: 1)
        let pick = random.bytes(1)[0]
        d.channel = ThreadChannel(page: 0, number: channel ?? (11 + UInt16(pick % 16)))
        d.channelMask = [.allPage0]
        d.extendedPANID = random.bytes(8)
        d.meshLocalPrefix = ThreadMeshLocalPrefix([0xFD] + random.bytes(5) + [0, 0])
        d.networkKey = SecretBytes(random.bytes(16))
        d.networkName = networkName ?? "MatterHub-" + String(pan, radix: 16, uppercase: true).leftPadded(4)
        d.pskc = SecretBytes(random.bytes(16))
        d.securityPolicy = .openThreadDefault
        return d
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
