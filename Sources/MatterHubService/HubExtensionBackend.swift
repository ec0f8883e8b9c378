import MatterServerAPI

/// A backend that also answers MatterHub's own `matterhub/...` commands (docs/matterhub-api.md),
/// for the connections that opted in with `matterhub/enable`. The API server never routes them to
/// a plain ``HubBackend``: there they are unknown commands (error 9), as for OHF clients.
public protocol HubExtensionBackend: HubBackend {
    /// Runs one extension command (concurrently with others) and returns its result.
    func handle(_ command: HubCommand, context: HubRequestContext) async throws(HubAPIError) -> JSONValue
}

/// Who sent an extension command, and how to send events to that connection alone.
public struct HubRequestContext: Sendable {
    public let connectionID: UInt64
    public let messageID: String
    /// Sends an event to this connection only (e.g. `matterhub/discovered`).
    public let send: @Sendable (HubEvent) -> Void

    public init(connectionID: UInt64, messageID: String, send: @escaping @Sendable (HubEvent) -> Void) {
        self.connectionID = connectionID
        self.messageID = messageID
        self.send = send
    }
}
