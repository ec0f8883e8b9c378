/// A command from a client: `{"message_id": str, "command": str, "args": object|null}`.
public struct CommandMessage: Hashable, Sendable {
    public var messageID: String
    public var command: String
    /// `nil` when absent or null (start_listening sends null).
    public var args: JSONValue?

    public init(messageID: String, command: String, args: JSONValue? = nil) {
        self.messageID = messageID
        self.command = command
        self.args = args
    }

    /// Why an incoming text is not a command message.
    public enum ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// Not JSON at all.
        case invalidJSON(JSONError)
        /// JSON, but not an object with a string `message_id`: nothing can be answered.
        case notACommand(String)
        /// Has a `message_id` but no usable `command` or `args`: answer with this error.
        case invalid(messageID: String, APIError)

        public var description: String {
            switch self {
            case .invalidJSON(let e): return "Invalid JSON: \(e)"
            case .notACommand(let why): return "Not a command message: \(why)"
            case .invalid(_, let e): return e.details
            }
        }
    }

    /// Parses a command from UTF-8 JSON text.
    public static func parse(_ text: [UInt8]) throws(ParseError) -> CommandMessage {
        let json: JSONValue
        do { json = try JSONParser.parse(text) } catch { throw .invalidJSON(error) }
        return try parse(json)
    }

    public static func parse(_ json: JSONValue) throws(ParseError) -> CommandMessage {
        guard let object = json.objectValue else { throw .notACommand("the message is \(json.typeName), not an object") }
        guard let id = object["message_id"]?.string else {
            throw .notACommand("'message_id' is missing or not a string")
        }
        guard let command = object["command"]?.string else {
            throw .invalid(messageID: id, .invalidArguments("'command' is missing or not a string"))
        }
        let args = object["args"]
        switch args {
        case nil, .null?, .object?: break
        case let other?: throw .invalid(messageID: id, .invalidArguments("\(command): 'args' must be an object or null, not \(other.typeName)"))
        }
        return CommandMessage(messageID: id, command: command, args: args == .null ? nil : args)
    }

    public var json: JSONValue {
        .object(["message_id": .string(messageID), "command": .string(command), "args": args ?? .null])
    }
}

/// Everything a server sends. The client tells them apart by key: `event`, then `error_code`,
/// then `result`, then `sdk_version` (server info).
public enum ServerMessage: Hashable, Sendable {
    /// The bare first frame on a connection.
    case serverInfo(ServerInfo)
    case success(messageID: String, result: JSONValue)
    case error(messageID: String, APIError)
    case event(ServerEvent)

    public var json: JSONValue {
        switch self {
        case .serverInfo(let info): return info.json
        case .success(let id, let result): return .object(["message_id": .string(id), "result": result])
        case .error(let id, let e):
            return .object(["message_id": .string(id), "error_code": .integer(e.code.rawValue), "details": .string(e.details)])
        case .event(let e): return .object(["event": .string(e.name.rawValue), "data": e.data])
        }
    }

    /// The compact UTF-8 JSON text of the message.
    public var encoded: [UInt8] { JSONWriter.encode(json) }
}

/// A server message as a client reads it: the kind by key, the data left as JSON (events
/// are not decoded back into ``ServerEvent``). For clients of a hub and for tests.
public enum ReceivedServerMessage: Hashable, Sendable {
    case serverInfo(ServerInfo)
    case success(messageID: String, result: JSONValue)
    case error(messageID: String, code: Int, details: String?)
    case event(name: String, data: JSONValue)

    public static func parse(_ text: [UInt8]) throws(APIError) -> ReceivedServerMessage {
        let json: JSONValue
        do { json = try JSONParser.parse(text) } catch { throw .invalidArguments("server message: \(error)") }
        guard let o = json.objectValue else { throw .invalidArguments("server message is not an object") }
        if let name = o["event"] {
            guard let n = name.string else { throw .invalidArguments("server message: 'event' is not a string") }
            return .event(name: n, data: o["data"] ?? .null)
        }
        if let code = o["error_code"] {
            guard let c = Int.read(code), let id = o["message_id"]?.string else {
                throw .invalidArguments("server message: malformed error result")
            }
            return .error(messageID: id, code: c, details: o["details"]?.string)
        }
        if let result = o["result"] {
            guard let id = o["message_id"]?.string else { throw .invalidArguments("server message: result without message_id") }
            return .success(messageID: id, result: result)
        }
        if o["sdk_version"] != nil { return .serverInfo(try ServerInfo(json: json)) }
        throw .invalidArguments("server message of unknown kind (keys: \(o.keys.joined(separator: ", ")))")
    }
}
