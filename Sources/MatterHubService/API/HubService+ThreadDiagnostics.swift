import FoundationEssentials
import MatterHome
import MatterInteraction
import MatterServerAPI
import Synchronization

/// `get_thread_diagnostics` and `thread_diagnostics_updated` (schema 12), from the hub's Thread
/// nodes' own diagnostics (``ThreadDiagnosticsBuilder``), with matterjs-server's semantics: without
/// `ext_pan_id` the current batches come back at once and a refresh runs in the background, its
/// batches sent as events; with one, that network's batch (read again first when `force`).
extension HubService {
    /// A background refresh not asked with `force` runs at most this often (each is radio traffic).
    static let threadDiagnosticsRefreshInterval = Duration.seconds(60)

    func threadDiagnostics(extPanID: String?, force: Bool) async -> JSONValue {
        guard let extPanID else {
            let current = await threadDiagnosticsBatches()
            if threadDiagnosticsRefresh.withLock({ $0.begin(force: force, interval: Self.threadDiagnosticsRefreshInterval) }) {
                Task { [weak self] in
                    guard let self else { return }
                    await readTopologyAttributes(thread: ThreadDiagnosticsBuilder.paths, wifi: [])
                    threadDiagnosticsRefresh.withLock { $0.end() }
                    for batch in await threadDiagnosticsBatches() { publish(.threadDiagnosticsUpdated(batch)) }
                }
            }
            return .array(current)
        }
        if force { await readTopologyAttributes(thread: ThreadDiagnosticsBuilder.paths, wifi: []) }
        return await threadDiagnosticsBatches().first { $0["extPanIdHex"]?.string == extPanID }
            ?? ThreadDiagnosticsBuilder.emptyBatch(extPanID: extPanID, collectedAt: Self.nowMilliseconds)
    }

    func threadDiagnosticsBatches() async -> [JSONValue] {
        let nodes = await nodesConverted { path in
            path.endpoint == 0 && [.threadNetworkDiagnostics, .generalDiagnostics, .networkCommissioning, .basicInformation].contains(path.cluster)
        }
        return ThreadDiagnosticsBuilder.batches(nodes: nodes, collectedAt: Self.nowMilliseconds)
    }

    static var nowMilliseconds: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

/// When the last background diagnostics refresh ran, and whether one runs now (one at a time).
struct RefreshThrottle {
    var running = false
    var last: ContinuousClock.Instant?

    /// Whether a refresh may start now (and marks it started).
    mutating func begin(force: Bool, interval: Duration) -> Bool {
        guard !running else { return false }
        if !force, let last, ContinuousClock.now - last < interval { return false }
        running = true
        return true
    }

    mutating func end() {
        running = false
        last = .now
    }
}
