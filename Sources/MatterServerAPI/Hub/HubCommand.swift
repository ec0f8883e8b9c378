import MatterTLV

/// The names of MatterHub's extension commands (docs/matterhub-api.md). Only a connection that
/// sent `matterhub/enable` may use the others; for every other connection they are unknown
/// commands (error 9), as for OHF clients.
public enum HubCommandName: String, Hashable, Sendable, CaseIterable {
    case enable = "matterhub/enable"
    case hubStatus = "matterhub/hub_status"
    case structures = "matterhub/structures"
    case rooms = "matterhub/rooms"
    case addRoom = "matterhub/add_room"
    case devices = "matterhub/devices"
    case configureDevice = "matterhub/configure_device"
    case prepareCommissioning = "matterhub/prepare_commissioning"
    case performCommissioning = "matterhub/perform_commissioning"
    case completeCommissioning = "matterhub/complete_commissioning"
    case cancelCommissioning = "matterhub/cancel_commissioning"
    case read = "matterhub/read"
    case write = "matterhub/write"
    case invoke = "matterhub/invoke"
    case share = "matterhub/share"
    case unpair = "matterhub/unpair"
    case discover = "matterhub/discover"
    case importHome = "matterhub/import"
    case deviceHistory = "matterhub/device_history"
    case subscribe = "matterhub/subscribe"

    /// Every extension command and event name starts with this.
    public static let prefix = "matterhub/"

    /// Whether `command` is in the extension namespace (known or not).
    public static func isExtension(_ command: String) -> Bool { command.hasPrefix(prefix) }
}

/// The Matter servers whose storage `matterhub/import` reads.
public enum ImportSourceKind: String, Hashable, Sendable, CaseIterable {
    case pythonMatterServer = "python-matter-server"
    case matterjsServer = "matterjs-server"
}

/// A decoded extension command with its defaults filled in. ``arguments`` encodes it back, for
/// clients: `CommandMessage(messageID:command: name.rawValue, args: arguments)`.
public enum HubCommand: Hashable, Sendable {
    case enable(apiVersion: Int?)
    case hubStatus
    case structures
    case rooms(structureID: Int64?)
    case addRoom(name: String, structureID: Int64?)
    case devices
    /// `roomName` picks (case-insensitive) or creates a room of that name; `roomID` a given one.
    case configureDevice(nodeID: UInt64, name: String?, roomID: Int64?, roomName: String?)
    case prepareCommissioning(structureID: Int64?)
    /// `onboardingPayload` is a setup code, or nil for the device that accepts `setupPINCode`
    /// alone (at `ipAddress` when given): exactly one of the two.
    case performCommissioning(onboardingPayload: String?, setupPINCode: UInt32?, ipAddress: String?, name: String?, roomID: Int64?,
                              ecosystemName: String?)
    case completeCommissioning
    case cancelCommissioning
    /// A nil endpoint, cluster or attribute is a wildcard (Matter Core 8.9.2.2).
    case read(nodeID: UInt64, endpoint: UInt16?, cluster: UInt32?, attribute: UInt32?)
    /// `value` is the attribute's new value element.
    case write(nodeID: UInt64, endpoint: UInt16, cluster: UInt32, attribute: UInt32, value: TLVElement, timedTimeoutMs: UInt16?)
    /// `fields` is the command's fields element (a structure); `timedTimeoutMs` makes it timed.
    case invoke(nodeID: UInt64, endpoint: UInt16, cluster: UInt32, command: UInt32, fields: TLVElement, timedTimeoutMs: UInt16?)
    case share(nodeID: UInt64, timeoutSeconds: UInt16)
    case unpair(nodeID: UInt64)
    case discover(seconds: Int)
    /// A move from another Matter server's storage at `path` (absolute, on the hub's machine):
    /// without `confirm`, a dry run whose result carries the token that `confirm` takes.
    case importHome(kind: ImportSourceKind, path: String, fabricID: UInt64?, confirm: String?)
    /// The node's connectivity history, newest first, at most `limit` events.
    case deviceHistory(nodeID: UInt64, limit: Int)
    /// Reports (`matterhub/report`) of the node's values and events at `path` to this connection
    /// until it closes: the hub's own subscription to the node, shared (a device keeps only a
    /// few subscriptions per fabric).
    case subscribe(nodeID: UInt64, path: HubSubscriptionPath)

    /// The version of the namespace this module speaks.
    public static let apiVersion = 1
    public static let defaultShareTimeout: UInt16 = 300
    public static let defaultDiscoverySeconds = 3
    public static let maxDiscoverySeconds = 30
    public static let defaultHistoryLimit = 50

    public var name: HubCommandName {
        switch self {
        case .enable: .enable
        case .hubStatus: .hubStatus
        case .structures: .structures
        case .rooms: .rooms
        case .addRoom: .addRoom
        case .devices: .devices
        case .configureDevice: .configureDevice
        case .prepareCommissioning: .prepareCommissioning
        case .performCommissioning: .performCommissioning
        case .completeCommissioning: .completeCommissioning
        case .cancelCommissioning: .cancelCommissioning
        case .read: .read
        case .write: .write
        case .invoke: .invoke
        case .share: .share
        case .unpair: .unpair
        case .discover: .discover
        case .importHome: .importHome
        case .deviceHistory: .deviceHistory
        case .subscribe: .subscribe
        }
    }

    /// Decodes an extension command: error 9 for an unknown `matterhub/` name, 8 for a missing or
    /// ill-typed argument (a `tlv` or `fields_tlv` that is not hex of one TLV element included).
    public static func decode(_ message: CommandMessage) throws(APIError) -> HubCommand {
        guard let name = HubCommandName(rawValue: message.command) else { throw .invalidCommand(message.command) }
        let a = try ObjectReader(message.args, context: name.rawValue)
        switch name {
        case .enable: return .enable(apiVersion: try a.optional("api_version"))
        case .hubStatus: return .hubStatus
        case .structures: return .structures
        case .rooms: return .rooms(structureID: try a.optional("structure_id"))
        case .addRoom:
            let room: String = try a.required("name")
            guard !room.isEmpty else { throw .invalidArguments("\(name.rawValue): argument 'name' must not be empty") }
            return .addRoom(name: room, structureID: try a.optional("structure_id"))
        case .devices: return .devices
        case .configureDevice:
            let label: String? = try a.optional("name")
            if let label, label.isEmpty || label.utf8.count > 32 {
                throw .invalidArguments("\(name.rawValue): argument 'name' must be 1 to 32 bytes (the device's NodeLabel)")
            }
            return .configureDevice(nodeID: try a.required("node_id"), name: label, roomID: try a.optional("room_id"),
                                    roomName: try a.optional("room"))
        case .prepareCommissioning: return .prepareCommissioning(structureID: try a.optional("structure_id"))
        case .performCommissioning:
            let payload: String? = try a.optional("onboarding_payload")
            let pin: UInt32? = try a.optional("setup_pin_code")
            guard (payload == nil) != (pin == nil) else {
                throw .invalidArguments("\(name.rawValue): give either 'onboarding_payload' (a setup code) or 'setup_pin_code' (a PIN alone)")
            }
            let ipAddress: String? = try a.optional("ip_addr")
            if ipAddress != nil && pin == nil {
                throw .invalidArguments("\(name.rawValue): 'ip_addr' goes with 'setup_pin_code' only")
            }
            return .performCommissioning(onboardingPayload: payload, setupPINCode: pin, ipAddress: ipAddress,
                                         name: try a.optional("name"), roomID: try a.optional("room_id"),
                                         ecosystemName: try a.optional("ecosystem_name"))
        case .completeCommissioning: return .completeCommissioning
        case .cancelCommissioning: return .cancelCommissioning
        case .read:
            return .read(nodeID: try a.required("node_id"), endpoint: try a.optional("endpoint"),
                         cluster: try a.optional("cluster"), attribute: try a.optional("attribute"))
        case .write:
            return .write(nodeID: try a.required("node_id"), endpoint: try a.required("endpoint"),
                          cluster: try a.required("cluster"), attribute: try a.required("attribute"),
                          value: try element(try a.required("tlv"), "tlv", name), timedTimeoutMs: try a.optional("timed_timeout_ms"))
        case .invoke:
            let fields = try a.optional("fields_tlv", String.self).map { hex throws(APIError) in try element(hex, "fields_tlv", name) }
                ?? .structure([])
            return .invoke(nodeID: try a.required("node_id"), endpoint: try a.required("endpoint"),
                           cluster: try a.required("cluster"), command: try a.required("command"), fields: fields,
                           timedTimeoutMs: try a.optional("timed_timeout_ms"))
        case .share:
            return .share(nodeID: try a.required("node_id"), timeoutSeconds: try a.optional("timeout_seconds") ?? defaultShareTimeout)
        case .unpair: return .unpair(nodeID: try a.required("node_id"))
        case .discover:
            let seconds: Int = try a.optional("seconds") ?? defaultDiscoverySeconds
            guard (1...maxDiscoverySeconds).contains(seconds) else {
                throw .invalidArguments("\(name.rawValue): argument 'seconds' must be 1...\(maxDiscoverySeconds)")
            }
            return .discover(seconds: seconds)
        case .importHome:
            let kind: String = try a.required("kind")
            guard let source = ImportSourceKind(rawValue: kind) else {
                throw .invalidArguments("\(name.rawValue): argument 'kind' must be one of "
                                        + ImportSourceKind.allCases.map(\.rawValue).joined(separator: ", "))
            }
            let path: String = try a.required("path")
            guard path.hasPrefix("/"), !path.utf8.contains(0) else {
                throw .invalidArguments("\(name.rawValue): argument 'path' must be the storage folder's absolute path on the hub's machine")
            }
            return .importHome(kind: source, path: path, fabricID: try a.optional("fabric_id"), confirm: try a.optional("confirm"))
        case .deviceHistory:
            let limit: Int = try a.optional("limit") ?? defaultHistoryLimit
            guard (1...1000).contains(limit) else { throw .invalidArguments("\(name.rawValue): argument 'limit' must be 1...1000") }
            return .deviceHistory(nodeID: try a.required("node_id"), limit: limit)
        case .subscribe:
            let kind: String = try a.optional("kind") ?? HubSubscriptionPath.Kind.attribute.rawValue
            guard let k = HubSubscriptionPath.Kind(rawValue: kind) else {
                throw .invalidArguments("\(name.rawValue): argument 'kind' must be 'attribute' or 'event'")
            }
            return .subscribe(nodeID: try a.required("node_id"),
                              path: HubSubscriptionPath(k, endpoint: try a.optional("endpoint"), cluster: try a.optional("cluster"),
                                                        id: try a.optional("id")))
        }
    }

    /// One TLV element from the hex of argument `key`.
    static func element(_ hex: String, _ key: String, _ name: HubCommandName) throws(APIError) -> TLVElement {
        try element(hex, key, name.rawValue)
    }

    static func element(_ hex: String, _ key: String, _ context: String) throws(APIError) -> TLVElement {
        guard let bytes = Base16.decode(hex), let element = try? TLVDecoder.decode(bytes) else {
            throw .invalidArguments("\(context): argument '\(key)' must be the hex of one TLV element")
        }
        return element
    }

    /// The `args` object of this command (what ``decode(_:)`` reads back to the same value).
    public var arguments: JSONValue {
        var o = JSONObject()
        func put(_ key: String, _ value: JSONValue?) { if let value { o.append(key, value) } }
        switch self {
        case .enable(let v): put("api_version", v.map { .integer($0) })
        case .hubStatus, .structures, .devices, .completeCommissioning, .cancelCommissioning: break
        case .rooms(let s), .prepareCommissioning(let s): put("structure_id", s.map { .integer($0) })
        case .addRoom(let n, let s):
            put("name", .string(n))
            put("structure_id", s.map { .integer($0) })
        case .configureDevice(let id, let n, let r, let rn):
            put("node_id", .integer(id))
            put("name", n.map { .string($0) })
            put("room_id", r.map { .integer($0) })
            put("room", rn.map { .string($0) })
        case .performCommissioning(let p, let pin, let ip, let n, let r, let e):
            put("onboarding_payload", p.map { .string($0) })
            put("setup_pin_code", pin.map { .integer(UInt64($0)) })
            put("ip_addr", ip.map { .string($0) })
            put("name", n.map { .string($0) })
            put("room_id", r.map { .integer($0) })
            put("ecosystem_name", e.map { .string($0) })
        case .read(let id, let e, let c, let a):
            put("node_id", .integer(id))
            put("endpoint", e.map { .integer($0) })
            put("cluster", c.map { .integer($0) })
            put("attribute", a.map { .integer($0) })
        case .write(let id, let e, let c, let a, let v, let timed):
            put("node_id", .integer(id))
            put("endpoint", .integer(e))
            put("cluster", .integer(c))
            put("attribute", .integer(a))
            put("tlv", .string(Base16.encode(TLVWriter.encode(v))))
            if let timed { put("timed_timeout_ms", .integer(timed)) }
        case .invoke(let id, let e, let c, let cmd, let f, let timed):
            put("node_id", .integer(id))
            put("endpoint", .integer(e))
            put("cluster", .integer(c))
            put("command", .integer(cmd))
            put("fields_tlv", .string(Base16.encode(TLVWriter.encode(f))))
            if let timed { put("timed_timeout_ms", .integer(timed)) }
        case .share(let id, let t):
            put("node_id", .integer(id))
            put("timeout_seconds", .integer(t))
        case .unpair(let id): put("node_id", .integer(id))
        case .discover(let s): put("seconds", .integer(s))
        case .importHome(let kind, let path, let fabricID, let confirm):
            put("kind", .string(kind.rawValue))
            put("path", .string(path))
            put("fabric_id", fabricID.map { .integer($0) })
            put("confirm", confirm.map { .string($0) })
        case .deviceHistory(let id, let limit):
            put("node_id", .integer(id))
            put("limit", .integer(limit))
        case .subscribe(let id, let path):
            put("node_id", .integer(id))
            put("kind", .string(path.kind.rawValue))
            put("endpoint", path.endpoint.map { .integer($0) })
            put("cluster", path.cluster.map { .integer($0) })
            put("id", path.id.map { .integer($0) })
        }
        return .object(o)
    }
}
