import Synchronization

/// How long the hub waits on each step of a firmware update before it names the step that failed
/// and ends the update (no transfer hangs for days; a retry can follow at once).
public struct OTAUpdateTimeouts: Sendable, Hashable {
    /// AnnounceOTAProvider until the node's QueryImage.
    public var query: Duration
    /// QueryImage answered until the node starts the download (BDX ReceiveInit).
    public var transferStart: Duration
    /// No BlockQuery for this long ends a transfer (the BDX sender's stall timeout).
    public var transferStall: Duration
    /// The last block until the node's ApplyUpdateRequest.
    public var applyRequest: Duration
    /// Proceed until the node runs the new version (it restarts; matter.js resets an update stalled 15 minutes).
    public var reboot: Duration

    public init(query: Duration = .seconds(60), transferStart: Duration = .seconds(60), transferStall: Duration = .seconds(60),
                applyRequest: Duration = .seconds(60), reboot: Duration = .seconds(15 * 60)) {
        self.query = query
        self.transferStart = transferStart
        self.transferStall = transferStall
        self.applyRequest = applyRequest
        self.reboot = reboot
    }
}

/// Per node, how far its update has come as the hub's OTA provider and BDX sender saw it: what
/// `update_node` follows to say when the update ended, and why when it failed.
final class OTAUpdateLedger: Sendable {
    enum Step: Sendable, Equatable {
        /// QueryImage answered with this image.
        case offered(image: String)
        /// QueryImage answered NotAvailable (or no common download protocol): why.
        case notOffered(String)
        /// The transfer is under way: bytes sent of its length.
        case downloading(sent: UInt64, length: UInt64)
        /// The last block was acknowledged.
        case downloaded
        /// The transfer ended early: how far it came and why.
        case transferFailed(sent: UInt64, length: UInt64, reason: String)
        /// ApplyUpdateRequest answered Proceed for this version.
        case applying(version: UInt32)
        /// NotifyUpdateApplied with this version.
        case applied(version: UInt32)
    }

    struct Entry: Sendable {
        var step: Step
        var at: ContinuousClock.Instant
    }

    private let state = Mutex<(entries: [UInt64: Entry], following: Set<UInt64>)>(([:], []))

    func record(_ node: UInt64, _ step: Step) {
        state.withLock { $0.entries[node] = Entry(step: step, at: .now) }
    }

    func entry(of node: UInt64) -> Entry? { state.withLock { $0.entries[node] } }

    /// Starts following the node's update (one `update_node` at a time per node), forgetting
    /// what an earlier attempt left; false when one is being followed already.
    func beginFollowing(_ node: UInt64) -> Bool {
        state.withLock { s in
            guard s.following.insert(node).inserted else { return false }
            s.entries[node] = nil
            return true
        }
    }

    func endFollowing(_ node: UInt64) { state.withLock { _ = $0.following.remove(node) } }
}
