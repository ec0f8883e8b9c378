import FoundationEssentials
import MatterMessaging
import MatterServerAPI
import MatterWebSocket
import Synchronization

/// One connection to a hub's Matter Server API with MatterHub's extension commands enabled
/// (`matterhub/enable`): commands matched to their results by message ID, `matterhub/...`
/// events routed to the command that asked for them, error envelopes turned back into the
/// `HomeError` the hub raised.
final class HubConnection: Sendable {
    let url: String
    let serverInfo: ServerInfo
    private let client: WebSocketClient
    private let state = Mutex(State())

    private struct State {
        var pending: [String: CheckedContinuation<Result<JSONValue, HomeError>, Never>] = [:]
        /// Event handlers by the message ID of the command they belong to.
        var listeners: [String: @Sendable (String, String, JSONValue) -> Void] = [:]  // by message ID
        var closed: HomeError?
    }

    private init(url: String, serverInfo: ServerInfo, client: WebSocketClient) {
        self.url = url
        self.serverInfo = serverInfo
        self.client = client
    }

    /// Connects, reads the server-info frame and enables the extension commands.
    static func open(_ target: WebSocketURL, timeout: Duration = .seconds(10)) async throws(HomeError) -> HubConnection {
        let shown = target.description
        let client: WebSocketClient
        do { client = try await WebSocketClient.connect(to: target, timeout: timeout) } catch {
            throw HomeError(.hubUnavailable, "cannot reach the hub at \(shown): \(error)")
        }
        let messages = client.messages
        guard let first = await first(within: timeout, { () async -> WebSocketMessage? in
                  for await m in messages { return m }
                  return nil
              }),
              case .text(let text) = first, case .serverInfo(let info)? = try? ReceivedServerMessage.parse(text) else {
            await client.close(.protocolError, reason: "expected the server info")
            throw HomeError(.hubUnavailable, "\(shown) did not greet with the Matter Server API's server info; is it a hub?")
        }
        let connection = HubConnection(url: shown, serverInfo: info, client: client)
        Task { await connection.readLoop() }
        do {
            _ = try await connection.call(.enable(apiVersion: nil))
        } catch {
            await connection.close()
            throw HomeError(.hubUnavailable, "the hub at \(shown) does not offer MatterHub's commands (\(error.message)); update it")
        }
        return connection
    }

    /// Runs an extension command, its name and arguments as ``HubCommand`` declares them (the
    /// hub decodes it with the same type).
    func call(_ command: HubCommand, timeout: Duration = .seconds(60),
              onEvent: (@Sendable (_ messageID: String, _ event: String, _ data: JSONValue) -> Void)? = nil) async throws(HomeError) -> JSONValue {
        try await call(command.name.rawValue, command.arguments, timeout: timeout, onEvent: onEvent)
    }

    /// Runs one of the Matter Server API's own commands (``CommandName``) with its arguments.
    func call(_ command: CommandName, _ args: KeyValuePairs<String, JSONValue>, timeout: Duration = .seconds(60)) async throws(HomeError) -> JSONValue {
        try await call(command.rawValue, .object(args), timeout: timeout)
    }

    /// Runs a command and returns its result. `onEvent` hears every `matterhub/...` event until
    /// the result arrives, with the command's message ID.
    private func call(_ command: String, _ args: JSONValue = .object(JSONObject()), timeout: Duration = .seconds(60),
              onEvent: (@Sendable (_ messageID: String, _ event: String, _ data: JSONValue) -> Void)? = nil) async throws(HomeError) -> JSONValue {
        let id = UUID().uuidString.replacing("-", with: "").lowercased()
        let message = CommandMessage(messageID: id, command: command, args: args)
        let result = await withCheckedContinuation { (k: CheckedContinuation<Result<JSONValue, HomeError>, Never>) in
            let closed = state.withLock { s -> HomeError? in
                if let c = s.closed { return c }
                s.pending[id] = k
                if let onEvent { s.listeners[id] = onEvent }
                return nil
            }
            if let closed { return k.resume(returning: .failure(closed)) }
            do throws(WebSocketClientError) { try client.send(text: JSONWriter.encode(message.json)) } catch {
                return resolve(id, .failure(HomeError(.hubUnavailable, "cannot send \(command) to the hub at \(url): \(error)")))
            }
            Task { [url] in
                try? await Task.sleep(for: timeout)
                self.resolve(id, .failure(HomeError(.hubUnavailable, "the hub at \(url) did not answer \(command) within \(timeout)")))
            }
        }
        return try result.get()
    }

    private func resolve(_ id: String, _ result: Result<JSONValue, HomeError>) {
        let k = state.withLock { s in
            s.listeners[id] = nil
            return s.pending.removeValue(forKey: id)
        }
        k?.resume(returning: result)
    }

    private func readLoop() async {
        for await message in client.messages {
            guard case .text(let text) = message, let json = try? JSONParser.parse(text), let o = json.objectValue else { continue }
            if let event = o["event"]?.string {
                // Events go to every command that listens (each picks its own by request_id).
                let data = o["data"] ?? .null
                let listeners = state.withLock { $0.listeners }
                for (id, listener) in listeners { listener(id, event, data) }
            } else if let id = o["message_id"]?.string {
                if o["error_code"] != nil {
                    resolve(id, .failure(RemoteRecords.homeError(json)))
                } else if let result = o["result"] {
                    resolve(id, .success(result))
                }
            }
        }
        let info = client.closeInfo
        let why = HomeError(.hubUnavailable, "the hub at \(url) closed the connection"
                            + (info.map { $0.reason.isEmpty ? "" : " (\($0.reason))" } ?? "") + "; is it still running?")
        let waiting = state.withLock { s in
            s.closed = why
            s.listeners = [:]
            defer { s.pending = [:] }
            return s.pending
        }
        for k in waiting.values { k.resume(returning: .failure(why)) }
    }

    var isOpen: Bool { state.withLock { $0.closed == nil } }

    func close() async {
        await client.close(.normal, reason: "client done")
    }
}
