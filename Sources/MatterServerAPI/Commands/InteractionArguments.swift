/// Schema 14's interaction commands (`read`, `subscribe`, `batched_device_commands`) and schema
/// 15's `write_atomic_attribute`, in matter-python-client 1.6.1's shapes: paths are the
/// `"E/C/A"` strings of `read_attribute` (any part not a number is a wildcard), event paths
/// `{"path": "E/C/V"}` (subscribe adds `is_urgent`), data version filters
/// `{"path": "E/C", "data_version": n}` with both parts concrete.

/// An event path of `read` or `subscribe`: wildcards allowed, `isUrgent` for a subscription.
public struct EventPathPattern: Hashable, Sendable, CustomStringConvertible {
    public var endpoint: UInt16?
    public var cluster: UInt32?
    public var event: UInt32?
    public var isUrgent: Bool?

    public init(endpoint: UInt16?, cluster: UInt32?, event: UInt32?, isUrgent: Bool? = nil) {
        self.endpoint = endpoint
        self.cluster = cluster
        self.event = event
        self.isUrgent = isUrgent
    }

    public var description: String {
        "\(endpoint.map(String.init) ?? "*")/\(cluster.map(String.init) ?? "*")/\(event.map(String.init) ?? "*")"
    }
}

/// `{"path": "E/C", "data_version": n}`: skip the cluster while its data version is still `n`.
public struct DataVersionFilter: Hashable, Sendable {
    public var endpoint: UInt16
    public var cluster: UInt32
    public var dataVersion: UInt32

    public init(endpoint: UInt16, cluster: UInt32, dataVersion: UInt32) {
        self.endpoint = endpoint
        self.cluster = cluster
        self.dataVersion = dataVersion
    }
}

/// What a `read` or `subscribe` asks the node for.
public struct InteractionPaths: Hashable, Sendable {
    public var attributes: [AttributePathPattern]
    public var events: [EventPathPattern]
    /// Only events numbered at least this.
    public var eventMin: UInt64?
    /// Fabric-filtered unless the client says false.
    public var fabricFiltered: Bool
    public var dataVersionFilters: [DataVersionFilter]

    public init(attributes: [AttributePathPattern] = [], events: [EventPathPattern] = [], eventMin: UInt64? = nil,
                fabricFiltered: Bool = true, dataVersionFilters: [DataVersionFilter] = []) {
        self.attributes = attributes
        self.events = events
        self.eventMin = eventMin
        self.fabricFiltered = fabricFiltered
        self.dataVersionFilters = dataVersionFilters
    }

    /// Reads `attribute_paths`, `event_paths`, `event_min`, `fabric_filtered` and
    /// `data_version_filters`; at least one path is needed.
    static func read(_ a: ObjectReader, urgency: Bool) throws(APIError) -> InteractionPaths {
        let name = a.context
        var paths = InteractionPaths()
        for text in try a.optional("attribute_paths", [String].self) ?? [] {
            guard let p = AttributePathPattern(text) else {
                throw .invalidArguments("\(name): '\(text)' is not an endpoint/cluster/attribute path")
            }
            paths.attributes.append(p)
        }
        for entry in try a.optional("event_paths", [JSONValue].self) ?? [] {
            let e = try ObjectReader(entry, context: "\(name): an event path")
            let text: String = try e.required("path")
            guard let p = AttributePathPattern(text) else {
                throw .invalidArguments("\(name): '\(text)' is not an endpoint/cluster/event path")
            }
            paths.events.append(EventPathPattern(endpoint: p.endpoint, cluster: p.cluster, event: p.attribute,
                                                 isUrgent: urgency ? try e.optional("is_urgent") : nil))
        }
        guard !paths.attributes.isEmpty || !paths.events.isEmpty else {
            throw .invalidArguments("\(name): give at least one attribute path or event path")
        }
        paths.eventMin = try a.optional("event_min")
        paths.fabricFiltered = try a.optional("fabric_filtered") ?? true
        for entry in try a.optional("data_version_filters", [JSONValue].self) ?? [] {
            let f = try ObjectReader(entry, context: "\(name): a data version filter")
            let text: String = try f.required("path")
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let e = UInt16(parts[0]), let c = UInt32(parts[1]) else {
                throw .invalidArguments("\(name): a data version filter's path must be \"endpoint/cluster\" with both numbers, not '\(text)'")
            }
            paths.dataVersionFilters.append(DataVersionFilter(endpoint: e, cluster: c, dataVersion: try f.required("data_version")))
        }
        return paths
    }
}

/// `subscribe`'s arguments: the paths and the intervals the node is asked for.
public struct SubscribeArguments: Hashable, Sendable {
    public var nodeID: UInt64
    public var minInterval: UInt16
    public var maxInterval: UInt16
    public var paths: InteractionPaths
    /// False (the default) ends every other subscription of the hub to the node.
    public var keepSubscriptions: Bool

    public init(nodeID: UInt64, minInterval: UInt16, maxInterval: UInt16, paths: InteractionPaths, keepSubscriptions: Bool = false) {
        self.nodeID = nodeID
        self.minInterval = minInterval
        self.maxInterval = maxInterval
        self.paths = paths
        self.keepSubscriptions = keepSubscriptions
    }
}

/// One command of `batched_device_commands`.
public struct BatchedCommand: Hashable, Sendable {
    public var endpointID: UInt16
    public var clusterID: UInt32
    public var commandName: String
    public var payload: JSONObject

    public init(endpointID: UInt16, clusterID: UInt32, commandName: String, payload: JSONObject = JSONObject()) {
        self.endpointID = endpointID
        self.clusterID = clusterID
        self.commandName = commandName
        self.payload = payload
    }
}

/// `batched_device_commands`: commands to one node in one InvokeRequest, in order.
public struct BatchedCommandsArguments: Hashable, Sendable {
    public var nodeID: UInt64
    public var commands: [BatchedCommand]
    public var timedRequestTimeoutMs: UInt32?
    public var interactionTimeoutMs: UInt32?

    public init(nodeID: UInt64, commands: [BatchedCommand], timedRequestTimeoutMs: UInt32? = nil, interactionTimeoutMs: UInt32? = nil) {
        self.nodeID = nodeID
        self.commands = commands
        self.timedRequestTimeoutMs = timedRequestTimeoutMs
        self.interactionTimeoutMs = interactionTimeoutMs
    }
}

/// `write_atomic_attribute` (schema 15): BeginWrite, the write, CommitWrite (or RollbackWrite).
public struct AtomicWriteArguments: Hashable, Sendable {
    public var nodeID: UInt64
    public var path: AttributePath
    public var value: JSONValue
    /// The cluster's data version the write is conditional on (nil with `skipDataVersionCheck`).
    public var dataVersion: UInt32?
    public var skipDataVersionCheck: Bool
    /// On DATA_VERSION_MISMATCH, write again without the data version in the same atomic write.
    public var ignoreDataVersionMismatch: Bool
    public var timedRequestTimeoutMs: UInt32?
    /// How long the device holds the pending write (the server's default: 30 s).
    public var atomicTimeoutMs: UInt16

    public static let defaultAtomicTimeoutMs: UInt16 = 30_000

    public init(nodeID: UInt64, path: AttributePath, value: JSONValue, dataVersion: UInt32?, skipDataVersionCheck: Bool = false,
                ignoreDataVersionMismatch: Bool = false, timedRequestTimeoutMs: UInt32? = nil,
                atomicTimeoutMs: UInt16 = AtomicWriteArguments.defaultAtomicTimeoutMs) {
        self.nodeID = nodeID
        self.path = path
        self.value = value
        self.dataVersion = dataVersion
        self.skipDataVersionCheck = skipDataVersionCheck
        self.ignoreDataVersionMismatch = ignoreDataVersionMismatch
        self.timedRequestTimeoutMs = timedRequestTimeoutMs
        self.atomicTimeoutMs = atomicTimeoutMs
    }
}

extension ServerCommand {
    /// `interaction_timeout_ms`, bounded as `device_command`'s.
    static func interactionTimeout(_ a: ObjectReader) throws(APIError) -> UInt32? {
        let ms: UInt32? = try a.optional("interaction_timeout_ms")
        if let ms, ms > DeviceCommandArguments.maxInteractionTimeoutMs {
            throw .invalidArguments("""
                \(a.context): interaction_timeout_ms may be at most \(DeviceCommandArguments.maxInteractionTimeoutMs) \
                (10 minutes), not \(ms)
                """)
        }
        return ms
    }

    /// `timed_request_timeout_ms`: a TimedRequest carries 16 bits of milliseconds.
    static func timedTimeout(_ a: ObjectReader) throws(APIError) -> UInt32? {
        let ms: UInt32? = try a.optional("timed_request_timeout_ms")
        if let ms, ms > UInt32(UInt16.max) {
            throw .invalidArguments("\(a.context): timed_request_timeout_ms may be at most 65535 (a TimedRequest's limit), not \(ms)")
        }
        return ms
    }

    /// A command's `payload`: an object, or absent/null for none.
    static func payload(_ value: JSONValue?, _ context: String) throws(APIError) -> JSONObject {
        switch value {
        case nil, .null?: return JSONObject()
        case .object(let o)?: return o
        case let other?: throw .invalidArguments("\(context): argument 'payload' must be an object, not \(other.typeName)")
        }
    }

    /// `discovery_timeout_s` (schema 14): how long commissioning looks for the device, 0 < s <= 48 h.
    static func discoveryTimeout(_ a: ObjectReader) throws(APIError) -> Double? {
        guard let raw = a.raw("discovery_timeout_s"), !raw.isNull else { return nil }
        let seconds: Double
        switch raw {
        case .int(let v): seconds = Double(v)
        case .uint(let v): seconds = Double(v)
        case .double(let v): seconds = v
        default: throw .invalidArguments("\(a.context): argument 'discovery_timeout_s' must be a number of seconds, not \(raw.typeName)")
        }
        guard seconds > 0, seconds <= maxDiscoveryTimeoutSeconds else {
            throw .invalidArguments("\(a.context): discovery_timeout_s must be above 0 and at most \(Int(maxDiscoveryTimeoutSeconds)) (48 hours), not \(seconds)")
        }
        return seconds
    }

    /// matter-python-client's bound on `discovery_timeout_s`.
    public static let maxDiscoveryTimeoutSeconds: Double = 172_800

    static func batched(_ a: ObjectReader) throws(APIError) -> BatchedCommandsArguments {
        let entries: [JSONValue] = try a.required("commands")
        guard !entries.isEmpty else { throw .invalidArguments("batched_device_commands: 'commands' is empty; give at least one command") }
        var commands: [BatchedCommand] = []
        for (i, entry) in entries.enumerated() {
            let c = try ObjectReader(entry, context: "batched_device_commands: command \(i)")
            commands.append(BatchedCommand(endpointID: try c.required("endpoint_id"), clusterID: try c.required("cluster_id"),
                                           commandName: try c.required("command_name"),
                                           payload: try payload(c.raw("payload"), c.context)))
        }
        return BatchedCommandsArguments(nodeID: try a.required("node_id"), commands: commands,
                                        timedRequestTimeoutMs: try timedTimeout(a),
                                        interactionTimeoutMs: try interactionTimeout(a))
    }

    static func subscribe(_ a: ObjectReader) throws(APIError) -> SubscribeArguments {
        let minInterval: UInt16 = try a.required("min_interval")
        let maxInterval: UInt16 = try a.required("max_interval")
        guard minInterval <= maxInterval else {
            throw .invalidArguments("subscribe: min_interval (\(minInterval)) is above max_interval (\(maxInterval))")
        }
        return SubscribeArguments(nodeID: try a.required("node_id"), minInterval: minInterval, maxInterval: maxInterval,
                                  paths: try InteractionPaths.read(a, urgency: true),
                                  keepSubscriptions: try a.optional("keep_subscriptions") ?? false)
    }

    static func atomicWrite(_ a: ObjectReader) throws(APIError) -> AtomicWriteArguments {
        let text: String = try a.required("attribute_path")
        guard let path = AttributePathPattern(text)?.concrete else {
            throw .invalidArguments("write_atomic_attribute: '\(text)' must be a concrete endpoint/cluster/attribute path (no wildcard)")
        }
        guard let value = a.raw("value") else { throw .invalidArguments("write_atomic_attribute: argument 'value' is missing") }
        let skip: Bool = try a.optional("skip_data_version_check") ?? false
        let version: UInt32? = try a.optional("data_version")
        guard skip || version != nil else {
            throw .invalidArguments("write_atomic_attribute: give data_version (from read's data_versions) or skip_data_version_check")
        }
        let timed = try timedTimeout(a)
        if let timed, timed > 0, !skip {
            throw .invalidArguments("write_atomic_attribute: a timed write needs skip_data_version_check")
        }
        return AtomicWriteArguments(nodeID: try a.required("node_id"), path: path, value: value, dataVersion: skip ? nil : version,
                                    skipDataVersionCheck: skip,
                                    ignoreDataVersionMismatch: try a.optional("ignore_data_version_mismatch") ?? false,
                                    timedRequestTimeoutMs: timed,
                                    atomicTimeoutMs: try a.optional("atomic_timeout_ms") ?? AtomicWriteArguments.defaultAtomicTimeoutMs)
    }
}
