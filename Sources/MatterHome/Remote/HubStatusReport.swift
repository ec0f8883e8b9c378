import MatterServerAPI

/// What a running hub says about itself (`matterhub/hub_status`).
public struct HubStatusReport: Sendable, Hashable {
    public var pid: Int
    public var stateDirectory: String
    /// Where clients reach it: `ws://127.0.0.1:5580/ws`, `unix:<state>/hub.sock`.
    public var addresses: [String]
    public var nodes: Int
    /// Nodes with a live subscription.
    public var available: Int
    public var uptimeSeconds: Double
    /// Clients connected now (this one included).
    public var connections: Int
    /// What the hub's messaging holds and has done (nil from an older hub).
    public var messaging: HubMessagingStatus?
    /// Its resident memory and the allocator's heap in use and held free (nil from an older hub).
    public var memory: HubMemoryStatus?

    init(_ s: HubStatus) {
        pid = s.pid
        stateDirectory = s.stateDirectory
        addresses = s.addresses
        nodes = s.nodes
        available = s.available
        uptimeSeconds = s.uptimeSeconds
        connections = s.connections
        messaging = s.messaging
        memory = s.memory
    }
}

extension Home {
    /// The status of the hub this home goes through; nil in embedded mode (no hub runs).
    public func hubStatus() async throws(HomeError) -> HubStatusReport? {
        guard let remote = backend as? RemoteBackend else { return nil }
        let json = try await remote.connection.call(.hubStatus)
        return HubStatusReport(try RemoteRecords.decode("hub status") { () throws(APIError) in try HubStatus(json: json) })
    }
}
