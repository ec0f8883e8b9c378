/// MatterHub's extension events (docs/matterhub-api.md, "Events"): sent only to connections that
/// sent `matterhub/enable`, never to an OHF client (whose listen loop an unknown event name ends).
public enum HubEvent: Hashable, Sendable {
    public enum Source: String, Hashable, Sendable {
        /// `matterhub/perform_commissioning`.
        case matterhub
        /// An OHF client's `commission_with_code` / `commission_on_network`.
        case ohf
    }

    case commissioningStarted(requestID: String, devices: Int, source: Source)
    case commissioningStep(HubCommissioningStep)
    case commissioningFinished(requestID: String, results: [HubDeviceOutcome])
    case deviceUpdated(HubDevice)
    case deviceRemoved(nodeID: UInt64)
    case roomAdded(HubRoom)
    /// To the connection that sent `matterhub/discover` (`requestID` is its message id); `node`
    /// is the OHF `discover` result shape (CommissionableNodeData).
    case discovered(requestID: String, node: JSONValue)
    /// To the connection that sent `matterhub/subscribe` (`requestID` is its message id).
    case report(HubReport)

    public enum Name: String, Hashable, Sendable, CaseIterable {
        case commissioningStarted = "matterhub/commissioning_started"
        case commissioningStep = "matterhub/commissioning_step"
        case commissioningFinished = "matterhub/commissioning_finished"
        case deviceUpdated = "matterhub/device_updated"
        case deviceRemoved = "matterhub/device_removed"
        case roomAdded = "matterhub/room_added"
        case discovered = "matterhub/discovered"
        case report = "matterhub/report"
    }

    public var name: Name {
        switch self {
        case .commissioningStarted: .commissioningStarted
        case .commissioningStep: .commissioningStep
        case .commissioningFinished: .commissioningFinished
        case .deviceUpdated: .deviceUpdated
        case .deviceRemoved: .deviceRemoved
        case .roomAdded: .roomAdded
        case .discovered: .discovered
        case .report: .report
        }
    }

    public var data: JSONValue {
        switch self {
        case .commissioningStarted(let id, let n, let source):
            return .object(["request_id": .string(id), "devices": .integer(n), "source": .string(source.rawValue)])
        case .commissioningStep(let step): return step.json
        case .commissioningFinished(let id, let results):
            return .object(["request_id": .string(id), "results": .array(results.map(\.json))])
        case .deviceUpdated(let d): return d.json
        case .deviceRemoved(let id): return .object(["node_id": .integer(id)])
        case .roomAdded(let r): return r.json
        case .discovered(let id, let node): return .object(["request_id": .string(id), "node": node])
        case .report(let r): return r.json
        }
    }

    /// An event as a client receives it (`ReceivedServerMessage.event`); nil for a name outside
    /// this namespace's events (a newer hub's), error 8 for a known name with malformed data.
    public static func decode(name: String, data: JSONValue) throws(APIError) -> HubEvent? {
        guard let n = Name(rawValue: name) else { return nil }
        let r = try ObjectReader(data, context: name)
        switch n {
        case .commissioningStarted:
            let s: String = try r.required("source")
            guard let source = Source(rawValue: s) else { throw .invalidArguments("\(name): unknown source \(s)") }
            return .commissioningStarted(requestID: try r.required("request_id"), devices: try r.required("devices"), source: source)
        case .commissioningStep: return .commissioningStep(try HubCommissioningStep(json: data))
        case .commissioningFinished:
            var results: [HubDeviceOutcome] = []
            for item in try r.required("results", [JSONValue].self) { results.append(try HubDeviceOutcome(json: item)) }
            return .commissioningFinished(requestID: try r.required("request_id"), results: results)
        case .deviceUpdated: return .deviceUpdated(try HubDevice(json: data))
        case .deviceRemoved: return .deviceRemoved(nodeID: try r.required("node_id"))
        case .roomAdded: return .roomAdded(try HubRoom(json: data))
        case .discovered: return .discovered(requestID: try r.required("request_id"), node: try r.required("node"))
        case .report: return .report(try HubReport(json: data))
        }
    }
}

/// The error of an extension command: the OHF error envelope plus the Home API's error code and,
/// for a commissioning failure, the step that failed, so a remote Home API rebuilds the same error.
public struct HubAPIError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The OHF code, for clients that know only those.
    public var code: ErrorCode
    /// The Home API's message, verbatim.
    public var details: String
    /// `HomeError.Code.rawValue`; nil for argument errors (8) and unknown commands (9).
    public var homeError: String?
    public var commissioning: HubCommissioningFailure?

    public init(code: ErrorCode, details: String, homeError: String? = nil, commissioning: HubCommissioningFailure? = nil) {
        self.code = code
        self.details = details
        self.homeError = homeError
        self.commissioning = commissioning
    }

    /// An error without a Home API code (bad arguments, unknown command).
    public init(_ error: APIError) {
        self.init(code: error.code, details: error.details)
    }

    public var description: String { "\(homeError ?? code.name): \(details)" }

    /// The error result frame for `messageID`.
    public func json(messageID: String) -> JSONValue {
        var o = JSONObject()
        o.append("message_id", .string(messageID))
        o.append("error_code", .integer(code.rawValue))
        o.append("details", .string(details))
        if let homeError { o.append("matterhub_error", .string(homeError)) }
        if let commissioning { o.append("commissioning", commissioning.json) }
        return .object(o)
    }

    public func encoded(messageID: String) -> [UInt8] { JSONWriter.encode(json(messageID: messageID)) }

    /// Reads an error result frame (the whole message object); nil when it is not an error result.
    public static func parse(_ frame: JSONValue) throws(APIError) -> (messageID: String, error: HubAPIError)? {
        guard let codeValue = frame["error_code"] else { return nil }
        let r = try ObjectReader(frame, context: "error result")
        guard let raw = Int.read(codeValue), let code = ErrorCode(rawValue: raw) else {
            throw .invalidArguments("error result: 'error_code' must be one of 0...11, 100, 101")
        }
        let failure = try r.optional("commissioning", JSONValue.self).map { v throws(APIError) in try HubCommissioningFailure(json: v) }
        return (try r.required("message_id"),
                HubAPIError(code: code, details: try r.optional("details") ?? "", homeError: try r.optional("matterhub_error"),
                            commissioning: failure))
    }
}

extension HubEvent {
    /// The event frame: `{"event": "matterhub/...", "data": ...}`.
    public var encoded: [UInt8] { JSONWriter.encode(.object(["event": .string(name.rawValue), "data": data])) }
}
