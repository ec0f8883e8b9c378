import MatterServerAPI

/// What the API server needs from the hub behind it (the node runtime implements it).
///
/// The server answers `start_listening` itself (with ``nodes()``, as the very next frame), and
/// `server_info`, `get_nodes` and `get_node` from ``serverInfo()`` and ``nodes()``; every other
/// decoded command goes to ``handle(_:)``. Events go the other way, through
/// ``HubAPIServer/publish(_:)``.
public protocol HubBackend: Sendable {
    /// The current server info. Called from the I/O thread too (`GET /info`): return at once.
    func serverInfo() -> ServerInfo
    /// Every node, with all its attributes.
    func nodes() async -> [MatterNodeData]
    /// Runs one command and returns its result (`.null` for void commands). Runs concurrently
    /// with other commands; must not wait on a device without a timeout.
    func handle(_ command: ServerCommand) async throws(APIError) -> JSONValue
    /// Runs a command for one connection (schema 14's subscriptions belong to the connection
    /// that opened them); by default ``handle(_:)``.
    func handle(_ command: ServerCommand, connection: UInt64) async throws(APIError) -> JSONValue
    /// A connection closed: whatever it held (its subscriptions, a commissioning session) is released.
    func connectionClosed(_ connectionID: UInt64) async
    /// Where `POST /ota-upload/<id>` stages firmware images (schema 13); nil when the hub takes none.
    var otaUploadDirectory: String? { get }
    /// Checks a staged `.ota` image and adds it to the images the hub offers; answers
    /// python-matter-server's MatterSoftwareVersion, or error 101 saying why the image was refused.
    func importOTAImage(atPath path: String) async throws(APIError) -> JSONValue
}

extension HubBackend {
    public func handle(_ command: ServerCommand, connection: UInt64) async throws(APIError) -> JSONValue {
        try await handle(command)
    }
    public func connectionClosed(_ connectionID: UInt64) async {}
    public var otaUploadDirectory: String? { nil }
    public func importOTAImage(atPath path: String) async throws(APIError) -> JSONValue {
        throw APIError(.otaUploadError, "This hub takes no firmware images")
    }
}
