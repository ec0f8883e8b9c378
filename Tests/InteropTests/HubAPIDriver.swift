import Foundation
import TestSupport

/// A client of a running hub's API on its state directory's Unix socket (reachable from the test
/// process although the hub runs in a lab namespace): commands matched to their results by
/// `message_id`, every event kept in arrival order. Waits are bounded.
final class HubAPIDriver: @unchecked Sendable {
    private let socket: WebSocketTestClient
    let serverInfo: [String: Any]
    /// Every event received so far (`{"event": ..., "data": ...}`), in order.
    private(set) var events: [[String: Any]] = []
    private var results: [String: [String: Any]] = [:]
    private var counter = 0

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(stateDirectory: String) async throws {
        // Short socket reads, so that each wait below keeps its own deadline.
        socket = try WebSocketTestClient(unixPath: stateDirectory + "/hub.sock", timeout: 0.5)
        let status = try await socket.upgrade()
        guard status == 101 else { throw Failure(description: "the hub refused the upgrade: \(socket.responseHead)") }
        var info: [String: Any]?
        let deadline = Date().addingTimeInterval(10)
        while info == nil, Date() < deadline { info = try await Self.object(socket, until: deadline) }
        guard let info else { throw Failure(description: "no server info from the hub") }
        serverInfo = info
    }

    /// The next message, or nil when none arrived by `deadline`.
    private static func object(_ socket: WebSocketTestClient, until deadline: Date) async throws -> [String: Any]? {
        while Date() < deadline {
            let text: String
            do { text = try await socket.nextText() } catch let e as WebSocketTestClient.Failure where e.description.contains("timed out") {
                continue
            }
            guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                throw Failure(description: "not a JSON object: \(text.prefix(200))")
            }
            return object
        }
        return nil
    }

    private func pump(until deadline: Date) async throws -> Bool {
        guard let message = try await Self.object(socket, until: deadline) else { return false }
        if message["event"] != nil {
            events.append(message)
        } else if let id = message["message_id"] as? String {
            results[id] = message
        }
        return true
    }

    /// Sends `command` and waits for its result message (`result` or `error_code`).
    func command(_ command: String, _ args: [String: Any]? = nil, timeout: Double = 60) async throws -> [String: Any] {
        counter += 1
        let id = "t\(counter)"
        let body: [String: Any] = ["message_id": id, "command": command, "args": args ?? NSNull()]
        try await socket.sendText(String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self))
        let deadline = Date().addingTimeInterval(timeout)
        while results[id] == nil, Date() < deadline { _ = try await pump(until: deadline) }
        guard let result = results.removeValue(forKey: id) else {
            throw Failure(description: "no answer to \(command) within \(timeout) s")
        }
        return result
    }

    /// The first event named `name` at or after index `from` that satisfies `predicate`, waiting
    /// up to `timeout` seconds for it; nil when none came.
    func event(_ name: String, from: Int = 0, timeout: Double,
               where predicate: (Any?) -> Bool = { _ in true }) async throws -> (index: Int, data: Any?)? {
        let deadline = Date().addingTimeInterval(timeout)
        var checked = from
        while true {
            while checked < events.count {
                let e = events[checked]
                checked += 1
                if e["event"] as? String == name, predicate(e["data"]) { return (checked - 1, e["data"]) }
            }
            guard Date() < deadline else { return nil }
            _ = try await pump(until: deadline)
        }
    }

    /// A node_updated predicate: this node, with `available` as given.
    static func nodeUpdated(_ nodeID: UInt64, available: Bool) -> (Any?) -> Bool {
        { data in
            guard let node = data as? [String: Any] else { return false }
            return (node["node_id"] as? NSNumber)?.uint64Value == nodeID && node["available"] as? Bool == available
        }
    }
}
