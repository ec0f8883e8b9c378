import MatterTLV

/// The arguments of `device_command`. `payload` is name-keyed (the command's fields in the MatterClusters model).
public struct DeviceCommandArguments: Hashable, Sendable {
    public var nodeID: UInt64
    public var endpointID: UInt16
    public var clusterID: UInt32
    /// The chip Python class name, e.g. `On`, `MoveToLevelWithOnOff`, `LockDoor`.
    public var commandName: String
    public var payload: JSONObject
    /// Ignored by the server (the response type follows from the command).
    public var responseType: JSONValue
    public var timedRequestTimeoutMs: UInt32?
    public var interactionTimeoutMs: UInt32?
    /// The longest `interaction_timeout_ms` accepted: a device that has not answered in 10
    /// minutes will not (ConnectNetwork, the slowest, waits at most 255 s).
    public static let maxInteractionTimeoutMs: UInt32 = 600_000

    public init(nodeID: UInt64, endpointID: UInt16, clusterID: UInt32, commandName: String, payload: JSONObject = JSONObject(),
                responseType: JSONValue = .null, timedRequestTimeoutMs: UInt32? = nil, interactionTimeoutMs: UInt32? = nil) {
        self.nodeID = nodeID
        self.endpointID = endpointID
        self.clusterID = clusterID
        self.commandName = commandName
        self.payload = payload
        self.responseType = responseType
        self.timedRequestTimeoutMs = timedRequestTimeoutMs
        self.interactionTimeoutMs = interactionTimeoutMs
    }
}

/// A software version for `update_node`: the client sends an int or a string.
public enum SoftwareVersion: Hashable, Sendable {
    case number(UInt32)
    case string(String)
}

/// A decoded command with its arguments, the server's defaults filled in (ws-api.md section 3).
public enum ServerCommand: Hashable, Sendable {
    case startListening
    /// `label` already cut to 32 characters.
    case setDefaultFabricLabel(label: String?)
    /// `wifiCredentialsID` / `threadDatasetID`: the stored entry to give the device (nil: `default`).
    /// `discoveryTimeout`: seconds to look for the device (schema 14; nil: the hub's default).
    case commissionWithCode(code: String, networkOnly: Bool, wifiCredentialsID: String? = nil, threadDatasetID: String? = nil,
                            discoveryTimeout: Double? = nil)
    /// Filter types 1/2 (short/long discriminator), 3 (vendor ID) and 4 (device type, schema 14).
    case commissionOnNetwork(setupPinCode: UInt32, filterType: Int, filter: JSONValue, ipAddress: String?, discoveryTimeout: Double? = nil)
    /// Under entry `id` (`default` when the client names none). An empty `credentials` keeps the
    /// stored passphrase of the same SSID (schema 12).
    case setWifiCredentials(ssid: String, credentials: String, id: String = "default")
    case setThreadDataset(dataset: String, id: String = "default")
    /// Forgets entry `id`'s Wi-Fi credentials.
    case removeWifiCredentials(id: String = "default")
    /// Forgets entry `id`'s Thread dataset (`default`: the preferred one).
    case removeThreadDataset(id: String = "default")
    /// Every stored credential's summary, never a secret.
    case getAllCredentials
    /// `{"fabric_label": str|null}`: the label set with `set_default_fabric_label`.
    case getFabricLabel
    /// The Thread border routers `_meshcop._udp` shows now (matterjs-server's BorderRouterEntry).
    case getThreadBorderRouters
    /// The network graph (schema 13); `refresh` reads the Thread and Wi-Fi diagnostics from every
    /// available node first. The connection then gets `network_topology_updated`.
    case getNetworkTopology(refresh: Bool)
    /// Schema 12: one network's diagnostics batch (`extPanID`, 16 hex digits, upper-cased), or
    /// every network's from the cache at once with a refresh in the background (nil); `force`
    /// reads the nodes again first. The connection then gets `thread_diagnostics_updated`.
    case getThreadDiagnostics(extPanID: String?, force: Bool)
    /// A single-use id for one `POST /ota-upload/<id>` of a `.ota` image (schema 13): the
    /// server answers it itself, binding the id to the connection's address.
    case initiateOtaUpload
    /// Schema 12's ICD commands (matterjs-server's): the node's Check-In registration with the
    /// hub. `ignoredVendors` replaces the default list of vendors whose fabrics do not count
    /// against `register_icd` (error 100, multi-admin); `force` forgets the registration without
    /// asking the device.
    case getICDState(nodeID: UInt64)
    case registerICD(nodeID: UInt64, allowMultiAdmin: Bool, ignoredVendors: [UInt16]?)
    case unregisterICD(nodeID: UInt64, force: Bool)
    case resyncICD(nodeID: UInt64)
    /// matterjs-server's log levels: `console_loglevel` and `file_loglevel` (nil: unchanged).
    case getLogLevel
    case setLogLevel(console: String?, file: String?)
    /// Schema 14's: a QR code or manual pairing code decoded, no device asked.
    case parseOnboardingPayload(code: String)
    case openCommissioningWindow(nodeID: UInt64, timeout: Int, iteration: Int, option: Int, discriminator: UInt16?)
    case discover
    case getVendorNames(filterVendors: [UInt16]?)
    case pingNode(nodeID: UInt64, attempts: Int)
    case getNodeIPAddresses(nodeID: UInt64, preferCache: Bool, scoped: Bool)
    case deviceCommand(DeviceCommandArguments)
    case readAttribute(nodeID: UInt64, paths: [AttributePathPattern], fabricFiltered: Bool)
    /// `*` as the endpoint writes every endpoint that has the attribute (schema 14), as does a
    /// timed write (`timedRequestTimeoutMs`).
    case writeAttribute(nodeID: UInt64, path: AttributePathPattern, value: JSONValue, timedRequestTimeoutMs: UInt32? = nil)
    /// Schema 14: commands to one node in one InvokeRequest; one result each, in order.
    case batchedDeviceCommands(BatchedCommandsArguments)
    /// Schema 14: one Read of attributes and events, the whole report (statuses, data versions).
    case read(nodeID: UInt64, paths: InteractionPaths)
    /// Schema 14: a subscription for the asking connection (`subscription_report` events), only
    /// while the node's auto subscription is off; ended by `unsubscribe` or the connection closing.
    case subscribe(SubscribeArguments)
    case unsubscribe(nodeID: UInt64, subscriptionID: UInt32)
    /// Schema 14: the hub's own subscription to a node on or off (until the hub restarts).
    case enableAutoSubscription(nodeID: UInt64)
    case disableAutoSubscription(nodeID: UInt64)
    /// Schema 15: an attribute with the Atomic quality written inside one atomic write.
    case writeAtomicAttribute(AtomicWriteArguments)
    case removeNode(nodeID: UInt64)
    case interviewNode(nodeID: UInt64)
    case checkNodeUpdate(nodeID: UInt64)
    case updateNode(nodeID: UInt64, softwareVersion: SoftwareVersion)
    case diagnostics
    case serverInfo
    case getNodes(onlyAvailable: Bool)
    case getNode(nodeID: UInt64)
    case importTestNode(dump: String)
    case setACLEntry(nodeID: UInt64, entry: [JSONValue])
    case setNodeBinding(nodeID: UInt64, endpoint: UInt16, bindings: [JSONValue])

    /// The longest fabric label Matter allows (python-matter-server cuts to this).
    public static let maxFabricLabelLength = 32

    public var name: CommandName {
        switch self {
        case .startListening: return .startListening
        case .setDefaultFabricLabel: return .setDefaultFabricLabel
        case .commissionWithCode: return .commissionWithCode
        case .commissionOnNetwork: return .commissionOnNetwork
        case .setWifiCredentials: return .setWifiCredentials
        case .setThreadDataset: return .setThreadDataset
        case .removeWifiCredentials: return .removeWifiCredentials
        case .removeThreadDataset: return .removeThreadDataset
        case .getAllCredentials: return .getAllCredentials
        case .getFabricLabel: return .getFabricLabel
        case .getThreadBorderRouters: return .getThreadBorderRouters
        case .getNetworkTopology: return .getNetworkTopology
        case .getThreadDiagnostics: return .getThreadDiagnostics
        case .initiateOtaUpload: return .initiateOtaUpload
        case .getICDState: return .getICDState
        case .registerICD: return .registerICD
        case .unregisterICD: return .unregisterICD
        case .resyncICD: return .resyncICD
        case .getLogLevel: return .getLogLevel
        case .setLogLevel: return .setLogLevel
        case .parseOnboardingPayload: return .parseOnboardingPayload
        case .openCommissioningWindow: return .openCommissioningWindow
        case .discover: return .discover
        case .getVendorNames: return .getVendorNames
        case .pingNode: return .pingNode
        case .getNodeIPAddresses: return .getNodeIPAddresses
        case .deviceCommand: return .deviceCommand
        case .readAttribute: return .readAttribute
        case .writeAttribute: return .writeAttribute
        case .batchedDeviceCommands: return .batchedDeviceCommands
        case .read: return .read
        case .subscribe: return .subscribe
        case .unsubscribe: return .unsubscribe
        case .enableAutoSubscription: return .enableAutoSubscription
        case .disableAutoSubscription: return .disableAutoSubscription
        case .writeAtomicAttribute: return .writeAtomicAttribute
        case .removeNode: return .removeNode
        case .interviewNode: return .interviewNode
        case .checkNodeUpdate: return .checkNodeUpdate
        case .updateNode: return .updateNode
        case .diagnostics: return .diagnostics
        case .serverInfo: return .serverInfo
        case .getNodes: return .getNodes
        case .getNode: return .getNode
        case .importTestNode: return .importTestNode
        case .setACLEntry: return .setACLEntry
        case .setNodeBinding: return .setNodeBinding
        }
    }

    /// matterjs-server's camera command (schema 12): refused by name, as an unknown command (9).
    public static let cameraCommand = "send_webrtc_provider_command"
    /// matter-python-client's camera commands (schema 14), refused the same way.
    public static let cameraCommands: Set<String> = [
        cameraCommand, "camera_get_capabilities", "camera_start_stream", "camera_provide_answer",
        "camera_provide_ice_candidates", "camera_stop_stream", "camera_snapshot", "camera_release_stream",
    ]

    /// A credential entry's `id` (schema 12's named lists): absent or null is the reserved `default`.
    static func entry(_ a: ObjectReader, _ name: CommandName) throws(APIError) -> String {
        guard let id: String = try a.optional("id") else { return "default" }
        guard (1...64).contains(id.utf8.count) else { throw .invalidArguments("\(name.rawValue): argument 'id' must be 1 to 64 characters") }
        return id
    }

    /// Decodes a command message: error 9 (`Invalid command: <name>`) for an unknown name, error 8
    /// for a missing or ill-typed argument. Unknown arguments are ignored.
    public static func decode(_ message: CommandMessage) throws(APIError) -> ServerCommand {
        guard let name = CommandName(rawValue: message.command) else {
            if Self.cameraCommands.contains(message.command) {
                throw APIError(.invalidCommand, "\(message.command): this hub has no camera support (no WebRTC live view or snapshots)")
            }
            throw .invalidCommand(message.command)
        }
        let a = try ObjectReader(message.args, context: name.rawValue)
        switch name {
        case .startListening: return .startListening
        case .setDefaultFabricLabel:
            let label = try a.optional("label", String.self).map { String($0.prefix(maxFabricLabelLength)) }
            return .setDefaultFabricLabel(label: label)
        case .commissionWithCode:
            return .commissionWithCode(code: try a.required("code"), networkOnly: try a.optional("network_only") ?? false,
                                       wifiCredentialsID: try a.optional("wifi_credentials_id"),
                                       threadDatasetID: try a.optional("thread_dataset_id"),
                                       discoveryTimeout: try discoveryTimeout(a))
        case .commissionOnNetwork:
            return .commissionOnNetwork(setupPinCode: try a.required("setup_pin_code"),
                                        filterType: try a.optional("filter_type") ?? 0,
                                        filter: a.raw("filter") ?? .null, ipAddress: try a.optional("ip_addr"),
                                        discoveryTimeout: try discoveryTimeout(a))
        case .setWifiCredentials:
            return .setWifiCredentials(ssid: try a.required("ssid"), credentials: try a.required("credentials"), id: try entry(a, name))
        case .setThreadDataset:
            let dataset: String = try a.required("dataset")
            guard !dataset.isEmpty else { throw .invalidArguments("set_thread_dataset: the dataset is empty; remove_thread_dataset clears an entry") }
            return .setThreadDataset(dataset: dataset, id: try entry(a, name))
        case .removeWifiCredentials: return .removeWifiCredentials(id: try entry(a, name))
        case .removeThreadDataset: return .removeThreadDataset(id: try entry(a, name))
        case .getAllCredentials: return .getAllCredentials
        case .getFabricLabel: return .getFabricLabel
        case .getThreadBorderRouters: return .getThreadBorderRouters
        case .getNetworkTopology: return .getNetworkTopology(refresh: try a.optional("refresh") ?? false)
        case .getThreadDiagnostics:
            let xp: String? = try a.optional("ext_pan_id")
            if let xp, xp.count != 16 || Base16.decode(xp) == nil {
                throw .invalidArguments("get_thread_diagnostics: 'ext_pan_id' must be 16 hex digits (an extended PAN ID), not '\(xp)'")
            }
            return .getThreadDiagnostics(extPanID: xp?.uppercased(), force: try a.optional("force") ?? false)
        case .initiateOtaUpload: return .initiateOtaUpload
        case .getICDState: return .getICDState(nodeID: try a.required("node_id"))
        case .registerICD:
            return .registerICD(nodeID: try a.required("node_id"), allowMultiAdmin: try a.optional("allow_multi_admin") ?? false,
                                ignoredVendors: try a.optional("ignored_vendors"))
        case .unregisterICD: return .unregisterICD(nodeID: try a.required("node_id"), force: try a.optional("force") ?? false)
        case .resyncICD: return .resyncICD(nodeID: try a.required("node_id"))
        case .getLogLevel: return .getLogLevel
        case .setLogLevel:
            return .setLogLevel(console: try a.optional("console_loglevel"), file: try a.optional("file_loglevel"))
        case .parseOnboardingPayload: return .parseOnboardingPayload(code: try a.required("code"))
        case .openCommissioningWindow:
            return .openCommissioningWindow(nodeID: try a.required("node_id"), timeout: try a.optional("timeout") ?? 300,
                                            iteration: try a.optional("iteration") ?? 1000,
                                            option: try a.optional("option") ?? 1,
                                            discriminator: try a.optional("discriminator"))
        case .discover: return .discover
        case .getVendorNames: return .getVendorNames(filterVendors: try a.optional("filter_vendors"))
        case .pingNode:
            return .pingNode(nodeID: try a.required("node_id"), attempts: try a.optional("attempts") ?? 1)
        case .getNodeIPAddresses:
            return .getNodeIPAddresses(nodeID: try a.required("node_id"), preferCache: try a.optional("prefer_cache") ?? false,
                                       scoped: try a.optional("scoped") ?? false)
        case .deviceCommand:
            let payload = try payload(a.raw("payload"), "device_command")
            let interactionTimeout = try interactionTimeout(a)
            return .deviceCommand(DeviceCommandArguments(
                nodeID: try a.required("node_id"), endpointID: try a.required("endpoint_id"),
                clusterID: try a.required("cluster_id"), commandName: try a.required("command_name"), payload: payload,
                responseType: a.raw("response_type") ?? .null,
                timedRequestTimeoutMs: try timedTimeout(a),
                interactionTimeoutMs: interactionTimeout))
        case .readAttribute:
            let texts: [String]
            switch a.raw("attribute_path") {
            case .string(let s)?: texts = [s]
            case let v? where [String].read(v) != nil: texts = [String].read(v)!
            default:
                throw .invalidArguments("read_attribute: argument 'attribute_path' must be an \"E/C/A\" string or a list of them")
            }
            var paths: [AttributePathPattern] = []
            for t in texts {
                guard let p = AttributePathPattern(t) else {
                    throw .invalidArguments("read_attribute: '\(t)' is not an endpoint/cluster/attribute path")
                }
                paths.append(p)
            }
            return .readAttribute(nodeID: try a.required("node_id"), paths: paths,
                                  fabricFiltered: try a.optional("fabric_filtered") ?? false)
        case .writeAttribute:
            let text: String = try a.required("attribute_path")
            guard let path = AttributePathPattern(text) else {
                throw .invalidArguments("write_attribute: '\(text)' is not an endpoint/cluster/attribute path")
            }
            guard path.cluster != nil, path.attribute != nil else {
                throw .invalidArguments("write_attribute: the cluster and attribute in '\(text)' must be numbers (only the endpoint may be *)")
            }
            guard let value = a.raw("value") else { throw .invalidArguments("write_attribute: argument 'value' is missing") }
            return .writeAttribute(nodeID: try a.required("node_id"), path: path, value: value,
                                   timedRequestTimeoutMs: try timedTimeout(a))
        case .batchedDeviceCommands: return .batchedDeviceCommands(try batched(a))
        case .read: return .read(nodeID: try a.required("node_id"), paths: try InteractionPaths.read(a, urgency: false))
        case .subscribe: return .subscribe(try subscribe(a))
        case .unsubscribe: return .unsubscribe(nodeID: try a.required("node_id"), subscriptionID: try a.required("subscription_id"))
        case .enableAutoSubscription: return .enableAutoSubscription(nodeID: try a.required("node_id"))
        case .disableAutoSubscription: return .disableAutoSubscription(nodeID: try a.required("node_id"))
        case .writeAtomicAttribute: return .writeAtomicAttribute(try atomicWrite(a))
        case .removeNode: return .removeNode(nodeID: try a.required("node_id"))
        case .interviewNode: return .interviewNode(nodeID: try a.required("node_id"))
        case .checkNodeUpdate: return .checkNodeUpdate(nodeID: try a.required("node_id"))
        case .updateNode:
            let version: SoftwareVersion
            switch a.raw("software_version") {
            case .string(let s)?: version = .string(s)
            case let v? where UInt32.read(v) != nil: version = .number(UInt32.read(v)!)
            default: throw .invalidArguments("update_node: argument 'software_version' must be an integer or a string")
            }
            return .updateNode(nodeID: try a.required("node_id"), softwareVersion: version)
        case .diagnostics: return .diagnostics
        case .serverInfo: return .serverInfo
        case .getNodes: return .getNodes(onlyAvailable: try a.optional("only_available") ?? false)
        case .getNode: return .getNode(nodeID: try a.required("node_id"))
        case .importTestNode: return .importTestNode(dump: try a.required("dump"))
        case .setACLEntry: return .setACLEntry(nodeID: try a.required("node_id"), entry: try a.required("entry"))
        case .setNodeBinding:
            return .setNodeBinding(nodeID: try a.required("node_id"), endpoint: try a.required("endpoint"),
                                   bindings: try a.required("bindings"))
        }
    }
}
