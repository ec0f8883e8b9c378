import MatterInteractionMessaging
import MatterServerAPI
import MatterWebSocket
import Synchronization

/// The Matter Server WebSocket API (ws-api.md) over ``WebSocketServer``, in front of a
/// ``HubBackend``: the connection rules that keep the real client alive.
///
/// Per connection: the bare server-info frame first; commands decoded (error 9 for unknown
/// names, 8 for bad arguments) and each run as its own task, answered by `message_id` in
/// whatever order they finish; `start_listening` answered with the node list as the very next
/// frame, after which (and only then) the connection receives events. Events for a node the
/// connection has not been told about are withheld (they crash the 8.1.2 client). Non-JSON
/// text, a message that is not a command, or a binary frame closes that connection with a reason;
/// nothing one client sends affects another.
///
/// MatterHub's own `matterhub/...` commands (docs/matterhub-api.md) reach a
/// ``HubExtensionBackend`` only from connections that sent `matterhub/enable`; only those
/// connections get ``HubEvent``s. Everywhere else the namespace does not exist (error 9).
public final class HubAPIServer: Sendable {
    public let webSocket: WebSocketServer
    private let handler: ConnectionHandler

    /// Binds the addresses in `configuration`. `httpHandler` answers plain GETs other than
    /// `/info` (the dashboard, ``DashboardFiles``); `log` gets one line per notable event.
    public init(configuration: WebSocketServerConfiguration, backend: any HubBackend,
                httpHandler: (@Sendable (HTTPRequestHead) -> HTTPResponse?)? = nil,
                log: @escaping @Sendable (String) -> Void = { _ in }) throws(WebSocketServerError) {
        handler = ConnectionHandler(backend: backend, httpHandler: httpHandler, log: log)
        webSocket = try WebSocketServer(configuration: configuration, delegate: handler)
    }

    public var boundAddresses: [ListenAddress] { webSocket.boundAddresses }

    public func start() { webSocket.start() }

    /// Sends `server_shutdown` to listening clients, then closes every connection.
    public func stop() async {
        handler.publish(.serverShutdown)
        await webSocket.stop()
        handler.finishAll()
    }

    /// Sends an event to every connection that issued `start_listening` (encoded once).
    public func publish(_ event: ServerEvent) { handler.publish(event) }

    /// Sends an extension event to every connection that sent `matterhub/enable`.
    public func publish(_ event: HubEvent) { handler.publish(event) }

    /// Closes every listening connection but `kept` with 1012 (service restart), so that each
    /// client reconnects and starts again from `server_info` and the dump.
    public func restartListeners(except kept: UInt64?, reason: String) { handler.restartListeners(except: kept, reason: reason) }

    /// Connections currently open, and how many of them listen.
    public var connectionCounts: (open: Int, listening: Int) { handler.counts }
}

/// The per-connection protocol state; the WebSocket server's delegate.
final class ConnectionHandler: WebSocketServerDelegate, Sendable {
    let backend: any HubBackend
    let httpHandler: (@Sendable (HTTPRequestHead) -> HTTPResponse?)?
    let log: @Sendable (String) -> Void
    private let clients = Mutex<[UInt64: Client]>([:])
    /// The connection whose `set_default_fabric_label` counts (schema 12: the first to set it,
    /// while it stays connected), so two clients (two Home Assistants) do not overwrite each other.
    private let fabricLabelOwner = Mutex<UInt64?>(nil)
    /// `initiate_ota_upload` and the `POST /ota-upload/<id>` it authorizes.
    let uploads: OTAUploads

    init(backend: any HubBackend, httpHandler: (@Sendable (HTTPRequestHead) -> HTTPResponse?)?,
         log: @escaping @Sendable (String) -> Void) {
        self.backend = backend
        self.httpHandler = httpHandler
        self.log = log
        uploads = OTAUploads(directory: backend.otaUploadDirectory) { path throws(APIError) in try await backend.importOTAImage(atPath: path) }
    }

    struct Client {
        enum Listening {
            case no
            /// start_listening is being answered; events wait here until the dump is out.
            case pending([ServerEvent])
            case yes
        }
        let connection: WebSocketConnection
        let inbox: AsyncStream<WebSocketMessage>.Continuation
        var listening = Listening.no
        /// Nodes this client has been told about (dump, node_added/updated), so no event for an
        /// unknown node reaches it.
        var knownNodes: Set<UInt64> = []
        /// Sent `matterhub/enable`: gets the extension commands and events.
        var extensionsEnabled = false
        /// Sent `get_network_topology`: gets `network_topology_updated` (a schema 11 client, which
        /// never asks, would drop the connection on the unknown event).
        var wantsTopology = false
        /// Sent `get_thread_diagnostics` or `get_thread_border_routers`: gets `thread_diagnostics_updated`.
        var wantsThreadDiagnostics = false
        /// Messages in the inbox that `serve` has not finished handing off yet.
        var queued = 0
        /// Events held while the client reads slowly (nil while it keeps up).
        var backlog: EventBacklog?
    }

    var counts: (open: Int, listening: Int) {
        clients.withLock { c in
            (c.count, c.values.filter { if case .yes = $0.listening { return true } else { return false } }.count)
        }
    }

    // MARK: WebSocketServerDelegate (I/O thread: never block)

    func httpResponse(for request: HTTPRequestHead) -> HTTPResponse? {
        if request.path == "/info" {
            return HTTPResponse(status: 200, reason: "OK", headers: ["Content-Type": "application/json"],
                                body: JSONWriter.encode(backend.serverInfo().json))
        }
        return httpHandler?(request)
    }

    func httpBody(for request: HTTPRequestHead, peer: String) -> HTTPBodyDecision? {
        uploads.decision(path: request.path, peer: peer, log: log)
    }

    func connectionOpened(_ connection: WebSocketConnection) {
        // The server info goes out first, before anything this connection sends is read.
        connection.send(text: ServerMessage.serverInfo(backend.serverInfo()).encoded)
        let (stream, continuation) = AsyncStream.makeStream(of: WebSocketMessage.self, bufferingPolicy: .unbounded)
        clients.withLock { $0[connection.id] = Client(connection: connection, inbox: continuation) }
        connection.setDrainHandler { [weak self] in self?.drained(connection) }
        log("api: \(connection) connected")
        Task { await self.serve(connection, stream) }
    }

    func connection(_ connection: WebSocketConnection, received message: WebSocketMessage) {
        if let (command, id) = quickCommand(message, on: connection) {
            Task {
                await self.run(command, id: id, on: connection)
                connection.handled(message)
            }
            return
        }
        clients.withLock { c in
            guard c[connection.id] != nil else { return }
            c[connection.id]!.queued += 1
            c[connection.id]!.inbox.yield(message)
        }
    }

    /// A small, well-formed plain command, decoded here when nothing of this connection waits in
    /// its inbox (so it cannot pass an earlier message): its task starts at once. Through the
    /// inbox, the reading task woke one thread and the command's task another, and the second
    /// preempted the first on its core. Everything else (start_listening, the extensions,
    /// anything malformed, large messages) goes through `serve`, which answers it.
    private func quickCommand(_ message: WebSocketMessage, on connection: WebSocketConnection) -> (ServerCommand, String)? {
        guard case .text(let text) = message, text.count <= Self.quickCommandLimit,
              clients.withLock({ $0[connection.id]?.queued == 0 }),
              let command = try? CommandMessage.parse(text), !HubCommandName.isExtension(command.command),
              let decoded = try? ServerCommand.decode(command), decoded != .startListening else { return nil }
        return (decoded, command.messageID)
    }

    /// Parsed on the I/O thread only up to this size, so no client holds that thread for long.
    static let quickCommandLimit = 4096

    /// Whether `connection` owns the fabric label (claiming it when nobody does).
    private func claimFabricLabel(for connection: UInt64) -> Bool {
        fabricLabelOwner.withLock { owner in
            if owner == nil { owner = connection }
            return owner == connection
        }
    }

    func connectionClosed(_ connection: WebSocketConnection, code: WebSocketCloseCode?, reason: String) {
        fabricLabelOwner.withLock { if $0 == connection.id { $0 = nil } }
        let client = clients.withLock { $0.removeValue(forKey: connection.id) }
        client?.inbox.finish()
        if client != nil {
            let backend = self.backend
            Task { await backend.connectionClosed(connection.id) }
        }
        log("api: \(connection) closed (\(code.map { "code \($0)" } ?? "no close frame"): \(reason))")
    }

    func finishAll() {
        let all = clients.withLock { c -> [Client] in
            defer { c = [:] }
            return Array(c.values)
        }
        for c in all { c.inbox.finish() }
    }

    // MARK: Commands

    /// Reads one connection's messages in order. start_listening is answered in line (so its
    /// result is the next frame); every other command runs as its own task, in a discarding
    /// group: a plain task group keeps every finished child until the connection ends (13 KB a
    /// command, 25 MB over a day of a client sending ten commands a second).
    private func serve(_ connection: WebSocketConnection, _ inbox: AsyncStream<WebSocketMessage>) async {
        await withDiscardingTaskGroup { group in
            for await message in inbox {
                defer { clients.withLock { _ = $0[connection.id]?.queued -= 1 } }
                // Each message counts against the connection's in-flight limit until answered.
                var handedOff = false
                defer { if !handedOff { connection.handled(message) } }
                guard case .text(let text) = message else {
                    connection.close(.unsupportedData, reason: "binary frames are not accepted; send JSON text")
                    return
                }
                let command: CommandMessage
                do throws(CommandMessage.ParseError) {
                    command = try CommandMessage.parse(text)
                } catch {
                    switch error {
                    case .invalidJSON, .notACommand:
                        log("api: \(connection): \(error); closing")
                        connection.close(error.closeCode, reason: error.description)
                        return
                    case .invalid(let id, let apiError):
                        send(.error(messageID: id, apiError), to: connection)
                        continue
                    }
                }
                if let ext = backend as? any HubExtensionBackend, HubCommandName.isExtension(command.command),
                   enableExtensions(connection, if: command.command == HubCommandName.enable.rawValue) {
                    handedOff = true
                    group.addTask {
                        await self.runExtension(command, ext, on: connection)
                        connection.handled(message)
                    }
                    continue
                }
                let decoded: ServerCommand
                do throws(APIError) {
                    decoded = try ServerCommand.decode(command)
                } catch {
                    send(.error(messageID: command.messageID, error), to: connection)
                    continue
                }
                if decoded == .startListening {
                    await startListening(connection, messageID: command.messageID)
                    continue
                }
                handedOff = true
                group.addTask {
                    await self.run(decoded, id: command.messageID, on: connection)
                    connection.handled(message)
                }
            }
        }
    }

    private func run(_ command: ServerCommand, id: String, on connection: WebSocketConnection) async {
        if case .setDefaultFabricLabel(let label) = command, !claimFabricLabel(for: connection.id) {
            log("api: \(connection)'s set_default_fabric_label (\(label.map { "\"\($0)\"" } ?? "null")) is ignored: another connection set the label")
            send(.success(messageID: id, result: .null), to: connection)
            return
        }
        switch command {
        case .getNetworkTopology: clients.withLock { c in c[connection.id]?.wantsTopology = true }
        case .getThreadDiagnostics, .getThreadBorderRouters: clients.withLock { c in c[connection.id]?.wantsThreadDiagnostics = true }
        default: break
        }
        if case .initiateOtaUpload = command {
            do throws(APIError) {
                send(.success(messageID: id, result: try uploads.reserve(peer: connection.peer)), to: connection)
            } catch {
                log("api: initiate_ota_upload failed: \(error)")
                send(.error(messageID: id, error), to: connection)
            }
            return
        }
        // A one-interaction command answers before it acknowledges the device's reply.
        let deferred: DeferredExchangeClose? = switch command {
        case .deviceCommand, .readAttribute, .writeAttribute, .batchedDeviceCommands, .read: DeferredExchangeClose()
        default: nil
        }
        let outcome: Result<JSONValue, APIError>
        if let deferred {
            outcome = await deferred.run { await self.result(of: command, connection: connection.id) }
        } else {
            outcome = await result(of: command, connection: connection.id)
        }
        switch outcome {
        case .success(let result): send(.success(messageID: id, result: result), to: connection)
        case .failure(let error):
            log("api: \(command.name.rawValue) failed: \(error)")
            send(.error(messageID: id, error), to: connection)
        }
        await deferred?.closeAll()
    }

    private func result(of command: ServerCommand, connection: UInt64) async -> Result<JSONValue, APIError> {
        do throws(APIError) { return .success(try await answer(command, connection: connection)) } catch { return .failure(error) }
    }

    /// Whether the connection may use the extensions; `enable` turns them on first (in line, so
    /// the next command already sees it).
    private func enableExtensions(_ connection: WebSocketConnection, if enable: Bool) -> Bool {
        clients.withLock { c in
            guard var client = c[connection.id] else { return false }
            if enable && !client.extensionsEnabled {
                client.extensionsEnabled = true
                c[connection.id] = client
            }
            return client.extensionsEnabled
        }
    }

    private func runExtension(_ message: CommandMessage, _ backend: any HubExtensionBackend, on connection: WebSocketConnection) async {
        let context = HubRequestContext(connectionID: connection.id, messageID: message.messageID) { event in
            connection.send(text: event.encoded)
        }
        do throws(HubAPIError) {
            let command: HubCommand
            do throws(APIError) { command = try HubCommand.decode(message) } catch { throw HubAPIError(error) }
            let result = try await backend.handle(command, context: context)
            send(.success(messageID: message.messageID, result: result), to: connection)
        } catch {
            log("api: \(message.command) failed: \(error)")
            connection.send(text: error.encoded(messageID: message.messageID))
        }
    }

    private func answer(_ command: ServerCommand, connection: UInt64) async throws(APIError) -> JSONValue {
        switch command {
        case .serverInfo: return backend.serverInfo().json
        case .getNodes(let onlyAvailable):
            return .array(await backend.nodes().filter { !onlyAvailable || $0.available }.map(\.json))
        case .getNode(let id):
            guard let node = await backend.nodes().first(where: { $0.nodeID == id }) else {
                throw APIError(.nodeNotExists, "Node \(id) does not exist; get_nodes lists the known nodes")
            }
            return node.json
        default:
            return try await backend.handle(command, connection: connection)
        }
    }

    private func startListening(_ connection: WebSocketConnection, messageID: String) async {
        let alreadyListening = clients.withLock { c -> Bool in
            guard var client = c[connection.id] else { return true }
            if case .no = client.listening {
                client.listening = .pending([])
                c[connection.id] = client
                return false
            }
            return true
        }
        if alreadyListening {
            send(.error(messageID: messageID, APIError(.unknownError, "start_listening was already issued on this connection")),
                 to: connection)
            return
        }
        let nodes = await backend.nodes()
        // The dump and the events that arrived meanwhile go out under the lock, so no event
        // published now can overtake them.
        clients.withLock { c in
            guard var client = c[connection.id], case .pending(let held) = client.listening else { return }
            client.knownNodes = Set(nodes.map(\.nodeID))
            connection.send(text: ServerMessage.success(messageID: messageID, result: .array(nodes.map(\.json))).encoded)
            for event in held where Self.admit(event, to: &client) {
                connection.send(text: ServerMessage.event(event).encoded)
            }
            client.listening = .yes
            c[connection.id] = client
        }
        log("api: \(connection) listening (\(nodes.count) nodes)")
    }

    /// A message that cannot be queued is lost with its connection, whose close is logged once.
    private func send(_ message: ServerMessage, to connection: WebSocketConnection) {
        connection.send(text: message.encoded)
    }

    // MARK: Events

    func publish(_ event: ServerEvent) {
        let frame = ServerMessage.event(event).encoded
        clients.withLock { c in
            for (id, var client) in c {
                switch client.listening {
                case .no: continue
                case .pending(var held):
                    held.append(event)
                    client.listening = .pending(held)
                case .yes:
                    if client.backlog != nil || client.connection.isBacklogged {
                        hold(event, for: &client)
                        // The queue may have drained before the hold (the drain handler found
                        // nothing to send): then nothing would wake the backlog again.
                        if !client.connection.isBacklogged { flush(&client) }
                    } else if Self.admit(event, to: &client) {
                        client.connection.send(text: frame)
                    }
                }
                c[id] = client
            }
        }
    }

    /// Holds an event for a client that reads slowly; drops the client once it is too far behind.
    private func hold(_ event: ServerEvent, for client: inout Client) {
        var backlog = client.backlog ?? EventBacklog()
        if backlog.hold(event) {
            client.backlog = backlog
        } else if client.backlog != nil {
            client.backlog = nil  // given up on: one close, one log line
            client.connection.close(.policyViolation, reason: "the client read too slowly (\(EventBacklog.limit) events behind)")
            log("api: \(client.connection) is \(EventBacklog.limit) events behind; closing it")
        }
    }

    /// The connection's queue came down: what was held goes out, coalesced and in order.
    private func drained(_ connection: WebSocketConnection) {
        clients.withLock { c in
            guard var client = c[connection.id], client.backlog != nil else { return }
            flush(&client)
            c[connection.id] = client
        }
    }

    private func flush(_ client: inout Client) {
        guard let held = client.backlog?.take() else { return }
        client.backlog = nil
        for event in held where Self.admit(event, to: &client) {
            client.connection.send(text: ServerMessage.event(event).encoded)
        }
    }

    func restartListeners(except kept: UInt64?, reason: String) {
        let listening = clients.withLock { c in
            c.values.filter { client in
                if case .no = client.listening { return false }
                return client.connection.id != kept
            }.map(\.connection)
        }
        for connection in listening { connection.close(.serviceRestart, reason: reason) }
        if !listening.isEmpty { log("api: closed \(listening.count) listening connection\(listening.count == 1 ? "" : "s") (\(reason))") }
    }

    func publish(_ event: HubEvent) {
        let frame = event.encoded
        clients.withLock { c in
            for client in c.values where client.extensionsEnabled { client.connection.send(text: frame) }
        }
    }

    /// Whether a client may see `event` now, updating what it knows: a node must reach it (dump,
    /// node_added, node_updated) before any other event about that node.
    static func admit(_ event: ServerEvent, to client: inout Client) -> Bool {
        switch event {
        case .nodeAdded(let n), .nodeUpdated(let n):
            client.knownNodes.insert(n.nodeID)
            return true
        case .nodeRemoved(let id):
            return client.knownNodes.remove(id) != nil
        case .attributeUpdated, .nodeEvent, .endpointAdded, .endpointRemoved:
            return event.nodeID.map { client.knownNodes.contains($0) } ?? false
        case .serverShutdown, .serverInfoUpdated:
            return true
        case .networkTopologyUpdated:
            return client.wantsTopology
        case .threadDiagnosticsUpdated:
            return client.wantsThreadDiagnostics
        case .subscriptionReport(let connection, _, _), .subscriptionEnded(let connection, _, _):
            return client.connection.id == connection
        }
    }
}

extension CommandMessage.ParseError {
    /// The close code for a message that cannot be answered.
    var closeCode: WebSocketCloseCode {
        switch self {
        case .invalidJSON: return .invalidPayload
        case .notACommand, .invalid: return .policyViolation
        }
    }
}
