import MatterHome
import MatterPlatform
import MatterServerAPI
import Synchronization

/// What the extension commands keep between calls: which connection holds the commissioning
/// session (and its structure), where extension events go, and the server's own details for
/// `matterhub/hub_status`.
final class ExtensionState: Sendable {
    struct ServerDetails: Sendable {
        var addresses: [String] = []
        var connections: @Sendable () -> Int = { 0 }
    }

    private let sessions = Mutex<[UInt64: Structure]>([:])
    private let sink = SettableCallback<HubEvent>()
    /// Closes the API's listening connections but the one given (``HubService/setListenerRestart(_:)``).
    let listenerRestart = SettableCallback<UInt64?>()
    let details = Mutex(ServerDetails())
    let started = ContinuousClock.now

    func setSink(_ publish: @escaping @Sendable (HubEvent) -> Void) { sink.set(publish) }

    func publish(_ event: HubEvent) { sink(event) }

    func holdSession(_ structure: Structure, for connection: UInt64) { sessions.withLock { $0[connection] = structure } }

    func session(of connection: UInt64) -> Structure? { sessions.withLock { $0[connection] } }

    func releaseSession(of connection: UInt64) -> Structure? { sessions.withLock { $0.removeValue(forKey: connection) } }
}
