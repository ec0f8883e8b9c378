public import MatterCrypto

/// A Thread operational dataset (active or pending): the MeshCoP TLVs a device needs to join a
/// Thread network (Thread 1.3, 8.10.1; what Matter's AddOrUpdateThreadNetwork carries).
///
/// Decoding is strict: every known TLV must have its defined length and an allowed value, no
/// type may appear twice, and the dataset must fit in 254 bytes. TLV types this module does not
/// interpret are kept in `unknownTLVs`, and the order of the TLVs received is kept, so
/// `encoded()` of a decoded dataset gives back the bytes it came from. The network key and PSKc
/// are `SecretBytes` (printed `<redacted>`).
public struct ThreadDataset: Sendable, Hashable {
    public var activeTimestamp: ThreadTimestamp?
    public var pendingTimestamp: ThreadTimestamp?
    /// Milliseconds until a pending dataset becomes active.
    public var delayTimer: UInt32?
    public var channel: ThreadChannel?
    public var channelMask: [ThreadChannelMaskEntry]?
    public var panID: UInt16?
    /// 8 bytes.
    public var extendedPANID: [UInt8]?
    /// 1-16 bytes of UTF-8.
    public var networkName: String?
    public var meshLocalPrefix: ThreadMeshLocalPrefix?
    /// 16 bytes.
    public var networkKey: SecretBytes?
    /// 16 bytes: the pre-shared key for the commissioner.
    public var pskc: SecretBytes?
    public var securityPolicy: ThreadSecurityPolicy?
    /// The channel of Thread 1.4 wake-up frames.
    public var wakeUpChannel: ThreadChannel?
    /// TLVs of types this module does not interpret, as received.
    public var unknownTLVs: [ThreadDatasetTLV] = []

    /// The order the TLVs were received in (not part of equality).
    var order = TLVOrder()

    /// The most bytes a dataset may hold (OpenThread's and the CHIP SDK's limit).
    public static let maxLength = 254

    public init() {}

    /// The TLV types that are present, in encoding order.
    public var types: [ThreadDatasetTLVType] { tlvs().map(\.type) }

    /// The TLVs a device needs to attach (the CHIP SDK's "commissioned" check): channel, PAN ID,
    /// extended PAN ID, network name, mesh-local prefix and network key. Throws `missingTLV`
    /// naming the first one absent.
    public func checkComplete() throws(ThreadDatasetError) {
        let needed: [(ThreadDatasetTLVType, Bool)] = [
            (.channel, channel != nil), (.panID, panID != nil), (.extendedPANID, extendedPANID != nil),
            (.networkName, networkName != nil), (.meshLocalPrefix, meshLocalPrefix != nil), (.networkKey, networkKey != nil),
        ]
        if let missing = needed.first(where: { !$0.1 }) {
            throw ThreadDatasetError(.missingTLV, "missing TLV: the dataset has no \(missing.0); a device cannot join "
                                     + "the network without it (export the complete active dataset from the border router)",
                                     tlvType: missing.0)
        }
    }
}

/// The received order of a dataset's TLV types. Always equal to another, so two datasets with
/// the same contents compare equal whatever order they were written in.
struct TLVOrder: Sendable, Hashable {
    var types: [ThreadDatasetTLVType] = []
    static func == (_: TLVOrder, _: TLVOrder) -> Bool { true }
    func hash(into _: inout Hasher) {}
}
