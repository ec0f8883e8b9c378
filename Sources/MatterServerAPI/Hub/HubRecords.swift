/// The records of MatterHub's extension commands and events (docs/matterhub-api.md, "Records"):
/// each encodes to its JSON object and decodes from it strictly (error 8 naming the member).

extension Double: JSONReadable {
    /// A JSON number, with or without a fraction.
    public static func read(_ json: JSONValue) -> Double? {
        switch json {
        case .double(let d): return d
        case .int(let v): return Double(v)
        case .uint(let v): return Double(v)
        default: return nil
        }
    }
    public static var expected: String { "a number" }
}

/// A structure (a home).
public struct HubStructure: Hashable, Sendable {
    public var id: Int64
    public var name: String
    public init(id: Int64, name: String) {
        self.id = id
        self.name = name
    }
    public var json: JSONValue { .object(["id": .integer(id), "name": .string(name)]) }
    public init(json: JSONValue) throws(APIError) {
        let r = try ObjectReader(json, context: "structure")
        self.init(id: try r.required("id"), name: try r.required("name"))
    }
}

/// A room of a structure.
public struct HubRoom: Hashable, Sendable {
    public var id: Int64
    public var name: String
    public var structureID: Int64
    public init(id: Int64, name: String, structureID: Int64) {
        self.id = id
        self.name = name
        self.structureID = structureID
    }
    public var json: JSONValue { .object(["id": .integer(id), "name": .string(name), "structure_id": .integer(structureID)]) }
    public init(json: JSONValue) throws(APIError) {
        let r = try ObjectReader(json, context: "room")
        self.init(id: try r.required("id"), name: try r.required("name"), structureID: try r.required("structure_id"))
    }
}

/// A commissioned device as the hub knows it.
public struct HubDevice: Hashable, Sendable {
    /// Where the device last answered (the store's operational addresses).
    public struct Address: Hashable, Sendable {
        public var host: String
        public var port: UInt16
        /// The interface of a link-local `host`.
        public var interfaceIndex: UInt32?
        public init(host: String, port: UInt16, interfaceIndex: UInt32?) {
            self.host = host
            self.port = port
            self.interfaceIndex = interfaceIndex
        }
        public var json: JSONValue {
            .object(["host": .string(host), "port": .integer(port), "interface_index": interfaceIndex.map { .integer($0) } ?? .null])
        }
        public init(json: JSONValue) throws(APIError) {
            let r = try ObjectReader(json, context: "device address")
            self.init(host: try r.required("host"), port: try r.required("port"), interfaceIndex: try r.optional("interface_index"))
        }
    }

    public var nodeID: UInt64
    public var name: String
    public var roomID: Int64?
    public var room: String?
    /// Whether the hub has a live subscription to it.
    public var available: Bool
    public var vendorID: UInt16
    public var productID: UInt16
    public var addresses: [Address]
    /// ISO 8601, UTC (`2026-12-01T12:00:00Z`).
    public var commissionedAt: String
    /// What the hub is doing about it (absent from records that do not say).
    public var connection: Connection?

    /// "Reconnecting" told apart from "unavailable until the next try".
    public struct Connection: Hashable, Sendable {
        /// `live`, `connecting`, `retrying`, `asleep` (a sleepy device between its Check-Ins,
        /// still available) or `stopped`.
        public var state: String
        /// The try in a row (`connecting`, `retrying`).
        public var attempt: Int?
        /// When the next try is (`retrying`; sooner when the device announces itself), ISO 8601 UTC.
        public var retryAt: String?
        /// `asleep`: when its next Check-In (or report) is due, ISO 8601 UTC.
        public var nextCheckIn: String?
        /// `asleep`: wakes in a row that passed without a word from it.
        public var missedCheckIns: Int?

        public init(state: String, attempt: Int? = nil, retryAt: String? = nil, nextCheckIn: String? = nil, missedCheckIns: Int? = nil) {
            self.state = state
            self.attempt = attempt
            self.retryAt = retryAt
            self.nextCheckIn = nextCheckIn
            self.missedCheckIns = missedCheckIns
        }

        public var json: JSONValue {
            var o = JSONObject()
            o.append("state", .string(state))
            if let attempt { o.append("attempt", .integer(attempt)) }
            if let retryAt { o.append("retry_at", .string(retryAt)) }
            if let nextCheckIn { o.append("next_check_in", .string(nextCheckIn)) }
            if let missedCheckIns { o.append("missed_check_ins", .integer(missedCheckIns)) }
            return .object(o)
        }

        public init(json: JSONValue) throws(APIError) {
            let r = try ObjectReader(json, context: "device connection")
            self.init(state: try r.required("state"), attempt: try r.optional("attempt"), retryAt: try r.optional("retry_at"),
                      nextCheckIn: try r.optional("next_check_in"), missedCheckIns: try r.optional("missed_check_ins"))
        }
    }

    public init(nodeID: UInt64, name: String, roomID: Int64?, room: String?, available: Bool, vendorID: UInt16,
                productID: UInt16, addresses: [Address], commissionedAt: String, connection: Connection? = nil) {
        self.nodeID = nodeID
        self.name = name
        self.roomID = roomID
        self.room = room
        self.available = available
        self.vendorID = vendorID
        self.productID = productID
        self.addresses = addresses
        self.commissionedAt = commissionedAt
        self.connection = connection
    }

    public var json: JSONValue {
        var o = JSONObject([
            .init(key: "node_id", value: .integer(nodeID)), .init(key: "name", value: .string(name)),
            .init(key: "room_id", value: roomID.map { .integer($0) } ?? .null), .init(key: "room", value: room.map { .string($0) } ?? .null),
            .init(key: "available", value: .bool(available)), .init(key: "vendor_id", value: .integer(vendorID)),
            .init(key: "product_id", value: .integer(productID)), .init(key: "addresses", value: .array(addresses.map(\.json))),
            .init(key: "commissioned_at", value: .string(commissionedAt))])
        if let connection { o.append("connection", connection.json) }
        return .object(o)
    }

    public init(json: JSONValue) throws(APIError) {
        let r = try ObjectReader(json, context: "device")
        var addresses: [Address] = []
        for a in try r.required("addresses", [JSONValue].self) { addresses.append(try Address(json: a)) }
        self.init(nodeID: try r.required("node_id"), name: try r.required("name"), roomID: try r.optional("room_id"),
                  room: try r.optional("room"), available: try r.required("available"), vendorID: try r.required("vendor_id"),
                  productID: try r.required("product_id"), addresses: addresses, commissionedAt: try r.required("commissioned_at"),
                  connection: try r.optional("connection", JSONValue.self).map { v throws(APIError) in try Connection(json: v) })
    }
}

/// A commissioning step that failed: the fields of MatterCommissioning's `CommissioningError`
/// (`step` and `code` are the raw values of its step and code).
public struct HubCommissioningFailure: Hashable, Sendable {
    public var step: String
    public var specNumber: Int
    public var title: String
    public var device: String
    public var code: String
    public var reason: String
    public var hint: String

    public init(step: String, specNumber: Int, title: String, device: String, code: String, reason: String, hint: String) {
        self.step = step
        self.specNumber = specNumber
        self.title = title
        self.device = device
        self.code = code
        self.reason = reason
        self.hint = hint
    }

    public var json: JSONValue {
        .object(["step": .string(step), "spec_number": .integer(specNumber), "title": .string(title), "device": .string(device),
                 "code": .string(code), "reason": .string(reason), "hint": .string(hint)])
    }

    public init(json: JSONValue) throws(APIError) {
        let r = try ObjectReader(json, context: "commissioning failure")
        self.init(step: try r.required("step"), specNumber: try r.required("spec_number"), title: try r.required("title"),
                  device: try r.required("device"), code: try r.required("code"), reason: try r.required("reason"),
                  hint: try r.required("hint"))
    }
}

/// How one device of a setup code ended.
public enum HubDeviceOutcome: Hashable, Sendable {
    public struct Timing: Hashable, Sendable {
        public var step: String
        public var milliseconds: Double
        public init(step: String, milliseconds: Double) {
            self.step = step
            self.milliseconds = milliseconds
        }
    }
    /// `address` is where the device answered on its operational network (`[addr%if]:port`).
    case success(device: Int, nodeID: UInt64, vendorID: UInt16, productID: UInt16, address: String, timings: [Timing],
                 warnings: [String])
    case failure(device: Int, HubCommissioningFailure)

    public var device: Int {
        switch self {
        case .success(let d, _, _, _, _, _, _), .failure(let d, _): d
        }
    }

    public var json: JSONValue {
        switch self {
        case .success(let d, let node, let vendor, let product, let address, let timings, let warnings):
            return .object(["device": .integer(d), "ok": .bool(true), "node_id": .integer(node), "vendor_id": .integer(vendor),
                            "product_id": .integer(product), "address": .string(address),
                            "timings": .array(timings.map { .object(["step": .string($0.step), "ms": .double($0.milliseconds)]) }),
                            "warnings": .array(warnings.map { .string($0) })])
        case .failure(let d, let f):
            return .object(["device": .integer(d), "ok": .bool(false), "error": f.json])
        }
    }

    public init(json: JSONValue) throws(APIError) {
        let r = try ObjectReader(json, context: "device outcome")
        let device: Int = try r.required("device")
        if try r.required("ok", Bool.self) {
            var timings: [Timing] = []
            for t in try r.required("timings", [JSONValue].self) {
                let tr = try ObjectReader(t, context: "timing")
                timings.append(Timing(step: try tr.required("step"), milliseconds: try tr.required("ms")))
            }
            self = .success(device: device, nodeID: try r.required("node_id"), vendorID: try r.required("vendor_id"),
                            productID: try r.required("product_id"), address: try r.required("address"), timings: timings,
                            warnings: try r.required("warnings"))
        } else {
            self = .failure(device: device, try HubCommissioningFailure(json: try r.required("error", JSONValue.self)))
        }
    }
}

/// One step of one device of a commissioning request, as it finishes or fails.
public struct HubCommissioningStep: Hashable, Sendable {
    public enum Result: String, Hashable, Sendable {
        case ok, failed
    }
    public var requestID: String
    /// The device's index in the setup code.
    public var device: Int
    public var step: String
    public var specNumber: Int
    public var title: String
    /// This step's own time.
    public var stepMilliseconds: Double
    /// Since the request started.
    public var elapsedMilliseconds: Int
    public var result: Result
    public var error: HubCommissioningFailure?

    public init(requestID: String, device: Int, step: String, specNumber: Int, title: String, stepMilliseconds: Double,
                elapsedMilliseconds: Int, result: Result, error: HubCommissioningFailure? = nil) {
        self.requestID = requestID
        self.device = device
        self.step = step
        self.specNumber = specNumber
        self.title = title
        self.stepMilliseconds = stepMilliseconds
        self.elapsedMilliseconds = elapsedMilliseconds
        self.result = result
        self.error = error
    }

    public var json: JSONValue {
        let base: JSONValue = .object(["request_id": .string(requestID), "device": .integer(device), "step": .string(step),
                                       "spec_number": .integer(specNumber), "title": .string(title),
                                       "step_ms": .double(stepMilliseconds), "elapsed_ms": .integer(elapsedMilliseconds),
                                       "result": .string(result.rawValue)])
        guard let error, var o = base.objectValue else { return base }
        o.append("error", error.json)
        return .object(o)
    }

    public init(json: JSONValue) throws(APIError) {
        let r = try ObjectReader(json, context: "commissioning step")
        let text: String = try r.required("result")
        guard let result = Result(rawValue: text) else {
            throw .invalidArguments("commissioning step: 'result' must be \"ok\" or \"failed\", not \(text)")
        }
        self.init(requestID: try r.required("request_id"), device: try r.required("device"), step: try r.required("step"),
                  specNumber: try r.required("spec_number"), title: try r.required("title"),
                  stepMilliseconds: try r.required("step_ms"), elapsedMilliseconds: try r.required("elapsed_ms"), result: result,
                  error: try r.optional("error", JSONValue.self).map { v throws(APIError) in try HubCommissioningFailure(json: v) })
    }
}

/// What `matterhub/hub_status` answers.
public struct HubStatus: Hashable, Sendable {
    public var pid: Int
    public var stateDirectory: String
    public var addresses: [String]
    public var nodes: Int
    public var available: Int
    public var uptimeSeconds: Double
    public var connections: Int
    /// What the hub's messaging holds; nil from a hub too old to say.
    public var messaging: HubMessagingStatus?
    /// Its memory as the kernel and the allocator count it; nil from a hub too old to say.
    public var memory: HubMemoryStatus?

    public init(pid: Int, stateDirectory: String, addresses: [String], nodes: Int, available: Int, uptimeSeconds: Double,
                connections: Int, messaging: HubMessagingStatus? = nil, memory: HubMemoryStatus? = nil) {
        self.pid = pid
        self.stateDirectory = stateDirectory
        self.addresses = addresses
        self.nodes = nodes
        self.available = available
        self.uptimeSeconds = uptimeSeconds
        self.connections = connections
        self.messaging = messaging
        self.memory = memory
    }

    public var json: JSONValue {
        let json = JSONValue.object([
            "pid": .integer(pid), "state_directory": .string(stateDirectory), "addresses": .array(addresses.map { .string($0) }),
            "nodes": .integer(nodes), "available": .integer(available), "uptime_seconds": .double(uptimeSeconds),
            "connections": .integer(connections)])
        guard case .object(var object) = json else { return json }
        if let messaging { object["messaging"] = messaging.json }
        if let memory { object["memory"] = memory.json }
        return .object(object)
    }

    public init(json: JSONValue) throws(APIError) {
        let r = try ObjectReader(json, context: "hub status")
        self.init(pid: try r.required("pid"), stateDirectory: try r.required("state_directory"), addresses: try r.required("addresses"),
                  nodes: try r.required("nodes"), available: try r.required("available"),
                  uptimeSeconds: try r.required("uptime_seconds"), connections: try r.required("connections"),
                  messaging: try r.optional("messaging", JSONValue.self).map { v throws(APIError) in try HubMessagingStatus(json: v) },
                  memory: try r.optional("memory", JSONValue.self).map { v throws(APIError) in try HubMemoryStatus(json: v) })
    }
}

/// The hub's memory in `hub_status` (kB): resident and anonymous resident as the kernel counts
/// them, and the allocator's heap in use and held free (a resident set growing beside a flat heap
/// in use is free memory held, not a leak).
public struct HubMemoryStatus: Hashable, Sendable {
    public var residentKB: Int
    public var residentAnonymousKB: Int
    public var heapInUseKB: Int
    public var heapFreeKB: Int
    /// Of the heap in use, what SQLite holds (its page caches, bounded; nil from an older hub).
    public var sqliteKB: Int?

    public init(residentKB: Int, residentAnonymousKB: Int, heapInUseKB: Int, heapFreeKB: Int, sqliteKB: Int? = nil) {
        self.residentKB = residentKB
        self.residentAnonymousKB = residentAnonymousKB
        self.heapInUseKB = heapInUseKB
        self.heapFreeKB = heapFreeKB
        self.sqliteKB = sqliteKB
    }

    public var json: JSONValue {
        var o = JSONObject()
        o.append("resident_kb", .integer(residentKB))
        o.append("resident_anonymous_kb", .integer(residentAnonymousKB))
        o.append("heap_in_use_kb", .integer(heapInUseKB))
        o.append("heap_free_kb", .integer(heapFreeKB))
        if let sqliteKB { o.append("sqlite_kb", .integer(sqliteKB)) }
        return .object(o)
    }

    public init(json: JSONValue) throws(APIError) {
        let r = try ObjectReader(json, context: "hub memory status")
        self.init(residentKB: try r.required("resident_kb"), residentAnonymousKB: try r.required("resident_anonymous_kb"),
                  heapInUseKB: try r.required("heap_in_use_kb"), heapFreeKB: try r.required("heap_free_kb"),
                  sqliteKB: try r.optional("sqlite_kb"))
    }
}

/// What the hub's messaging holds right now and has done since it started: in a hub that runs
/// for months the held counts must stay bounded (a session or exchange nobody closes is a leak).
public struct HubMessagingStatus: Hashable, Sendable {
    public var secureSessions: Int
    public var unsecuredSessions: Int
    public var exchanges: Int
    /// Session IDs held by handshakes in flight.
    public var reservedSessionIDs: Int
    /// Reliable messages sent and not acknowledged yet.
    public var unacknowledged: Int
    public var sent: Int
    public var received: Int
    public var retransmitted: Int

    public init(secureSessions: Int, unsecuredSessions: Int, exchanges: Int, reservedSessionIDs: Int, unacknowledged: Int,
                sent: Int, received: Int, retransmitted: Int) {
        self.secureSessions = secureSessions
        self.unsecuredSessions = unsecuredSessions
        self.exchanges = exchanges
        self.reservedSessionIDs = reservedSessionIDs
        self.unacknowledged = unacknowledged
        self.sent = sent
        self.received = received
        self.retransmitted = retransmitted
    }

    public var json: JSONValue {
        .object(["secure_sessions": .integer(secureSessions), "unsecured_sessions": .integer(unsecuredSessions),
                 "exchanges": .integer(exchanges), "reserved_session_ids": .integer(reservedSessionIDs),
                 "unacknowledged": .integer(unacknowledged), "sent": .integer(sent), "received": .integer(received),
                 "retransmitted": .integer(retransmitted)])
    }

    public init(json: JSONValue) throws(APIError) {
        let r = try ObjectReader(json, context: "hub messaging status")
        self.init(secureSessions: try r.required("secure_sessions"), unsecuredSessions: try r.required("unsecured_sessions"),
                  exchanges: try r.required("exchanges"), reservedSessionIDs: try r.required("reserved_session_ids"),
                  unacknowledged: try r.required("unacknowledged"), sent: try r.required("sent"),
                  received: try r.required("received"), retransmitted: try r.required("retransmitted"))
    }
}
