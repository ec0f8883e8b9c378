import FoundationEssentials
import MatterCertificates
import MatterClusters
import MatterCrypto
import MatterDiscovery
import MatterHome
import MatterInteraction
import MatterInteractionMessaging
import MatterMessaging
import MatterNetworkCredentials
import MatterServerAPI
import MatterSetupPayload
import MatterTLV
import Synchronization

/// The commands of the Matter Server API (ws-api.md section 3), each bounded in time.
extension HubService {
    public func handle(_ command: ServerCommand) async throws(APIError) -> JSONValue {
        switch command {
        case .startListening, .serverInfo:
            return serverInfo().json
        case .getNodes(let onlyAvailable):
            return .array(await nodes().filter { !onlyAvailable || $0.available }.map(\.json))
        case .getNode(let id):
            return try await nodeData(NodeID(id)).json
        case .setDefaultFabricLabel(let label):
            setFabricLabel(label)
            return .null
        case .commissionWithCode(let code, let networkOnly, let wifiEntry, let threadEntry, let discoveryTimeout):
            return try await commission(code: code, networkOnly: networkOnly, wifiEntry: wifiEntry, threadEntry: threadEntry,
                                        discoveryTimeout: discoveryTimeout)
        case .commissionOnNetwork(let pin, let filterType, let filter, let ip, let discoveryTimeout):
            return try await commissionOnNetwork(pin: pin, filterType: filterType, filter: filter, ipAddress: ip,
                                                 discoveryTimeout: discoveryTimeout)
        case .setWifiCredentials(let ssid, let credentials, let entry):
            return try await setWiFi(ssid: ssid, credentials: credentials, entry: entry)
        case .setThreadDataset(let dataset, let entry):
            return try await setThread(dataset: dataset, entry: entry)
        case .removeWifiCredentials(let entry):
            return try await removeWiFi(entry: entry)
        case .removeThreadDataset(let entry):
            return try await removeThread(entry: entry)
        case .getAllCredentials:
            return try await allCredentials()
        case .getThreadBorderRouters:
            return await threadBorderRouters()
        case .getFabricLabel:
            return .object(["fabric_label": fabricLabel.map { .string($0) } ?? .null])
        case .getNetworkTopology(let refresh):
            return await networkTopology(refresh: refresh)
        case .getThreadDiagnostics(let extPanID, let force):
            return await threadDiagnostics(extPanID: extPanID, force: force)
        case .initiateOtaUpload:
            // The API server answers it: the id is bound to the asking connection's address.
            throw APIError(.otaUploadError, "initiate_ota_upload is answered by the hub's WebSocket server; send it there")
        case .getICDState(let id):
            return try await icdState(NodeID(id))
        case .registerICD(let id, let allowMultiAdmin, let ignoredVendors):
            return try await registerICD(NodeID(id), allowMultiAdmin: allowMultiAdmin, ignoredVendors: ignoredVendors)
        case .unregisterICD(let id, let force):
            return try await unregisterICD(NodeID(id), force: force)
        case .resyncICD(let id):
            return try await resyncICD(NodeID(id))
        case .getLogLevel:
            return logLevels.json
        case .setLogLevel(let console, let file):
            return logLevels.set(console: console, file: file)
        case .parseOnboardingPayload(let code):
            return try Self.onboardingPayload(code)
        case .openCommissioningWindow(let id, let timeout, _, _, _):
            return try await openWindow(NodeID(id), timeout: timeout)
        case .discover:
            return .array(await discoverCommissionable())
        case .getVendorNames(let filter):
            return VendorNames.json(filter)
        case .pingNode(let id, let attempts):
            return try await ping(NodeID(id), attempts: attempts)
        case .getNodeIPAddresses(let id, _, let scoped):
            return try addresses(NodeID(id), scoped: scoped)
        case .deviceCommand(let arguments):
            return try await deviceCommand(arguments)
        case .readAttribute(let id, let paths, _):
            return try await read(NodeID(id), paths)
        case .writeAttribute(let id, let path, let value, let timed):
            return try await write(NodeID(id), path, value, timedMs: timed)
        case .batchedDeviceCommands(let arguments):
            return try await batchedCommands(arguments)
        case .read(let id, let paths):
            return try await readReport(NodeID(id), paths)
        case .writeAtomicAttribute(let arguments):
            return try await atomicWrite(arguments)
        case .subscribe, .unsubscribe:
            throw APIError(.invalidArguments, "\(command.name.rawValue) belongs to a WebSocket connection; send it to the hub's API")
        case .enableAutoSubscription(let id):
            return try await setAutoSubscription(NodeID(id), on: true)
        case .disableAutoSubscription(let id):
            return try await setAutoSubscription(NodeID(id), on: false)
        case .removeNode(let id):
            try await remove(NodeID(id))
            return .null
        case .interviewNode(let id):
            try await interview(NodeID(id))
            return .null
        case .checkNodeUpdate(let id):
            return try await checkNodeUpdate(NodeID(id))
        case .updateNode(let id, let version):
            return try await updateNode(NodeID(id), to: version)
        case .diagnostics:
            return .object(["info": serverInfo().json, "nodes": .array(await nodes().map(\.json)), "events": .array(recentEvents.map(\.json))])
        case .importTestNode:
            throw APIError(.invalidArguments, "import_test_node is not supported: this hub serves only real, commissioned nodes")
        case .setACLEntry, .setNodeBinding:
            throw APIError(.invalidCommand, "\(command.name.rawValue) is not supported yet; write the AccessControl or Binding attribute with write_attribute")
        }
    }

    /// `parse_onboarding_payload` (schema 14), in matter-python-client's shapes: a QR code's
    /// payloads (`type` "qr", each with version, flow, discovery capabilities, the 12-bit
    /// discriminator, the passcode, vendor and product IDs or null for 0), or a manual code's
    /// (`type` "manual", the short discriminator, the passcode, vendor and product IDs only from
    /// the 21-digit form). A code that does not decode, or that commissioning would refuse (a
    /// passcode the spec forbids, a version other than 0), is error 8 saying why.
    static func onboardingPayload(_ code: String) throws(APIError) -> JSONValue {
        let payloads: [SetupPayload]
        // Checked as commissioning checks it: a code no commissioner would take is refused, saying why.
        do { payloads = try SetupPayload.parse(code) } catch {
            throw APIError(.invalidArguments, "parse_onboarding_payload: \(error)")
        }
        func id(_ v: UInt16?) -> JSONValue { v.map { $0 == 0 ? .null : .integer($0) } ?? .null }
        guard let first = payloads.first else { throw APIError(.invalidArguments, "parse_onboarding_payload: the code holds no payload") }
        guard first.kind == .qrCode else {
            let p = first
            return .object(["type": .string("manual"), "short_discriminator": .integer(p.discriminator.shortValue),
                            "setup_pin_code": .integer(p.passcode), "vendor_id": id(p.vendorID), "product_id": id(p.productID)])
        }
        return .object(["type": .string("qr"), "payloads": .array(payloads.map { p in
            .object(["version": .integer(p.version), "flow_type": .integer(p.commissioningFlow?.rawValue ?? 0),
                     "discovery_capabilities": .integer(p.discoveryCapabilities?.rawValue ?? 0),
                     "discriminator": .integer(p.discriminator.longValue ?? UInt16(p.discriminator.shortValue) << 8),
                     "setup_pin_code": .integer(p.passcode), "vendor_id": id(p.vendorID), "product_id": id(p.productID)])
        })])
    }

    // MARK: - Nodes

    /// Passes when the node is known and live (error 3 otherwise, as the python server answers).
    /// An available node is one the runtime keeps, so the store is read only to explain a refusal:
    /// not once per command.
    /// A sleepy node's request waits for its next wake (``awaitAwake(_:)``).
    func requireReadyNode(_ id: NodeID) async throws(APIError) {
        if await runtime.isAvailable(id) { return try await awaitAwake(id) }
        guard let record = try? hub.store.node(id) else {
            throw APIError(.nodeNotReady, "Node \(id.rawValue) does not exist")
        }
        throw APIError(.nodeNotReady, "Node \(id.rawValue) (\(record.name)) is not available; check that it is powered and on this network")
    }

    /// An interaction client on the node's live session, with a bound on every request.
    func client(_ id: NodeID, timeout: Duration = .seconds(10)) async throws(APIError) -> InteractionClient {
        do {
            let session = try await hub.session(for: id)
            return InteractionClient.over(try await hub.messaging(), session: session, timeout: timeout)
        } catch {
            throw APIError(.nodeNotResolving, "cannot open a session with node \(id.rawValue): \(error.description)")
        }
    }

    func deviceCommand(_ a: DeviceCommandArguments) async throws(APIError) -> JSONValue {
        let id = NodeID(a.nodeID)
        try await requireReadyNode(id)
        guard let command = Clusters.command(cluster: a.clusterID, name: a.commandName) else {
            throw APIError(.invalidArguments, "command \(a.commandName) of cluster \(a.clusterID) is not in the cluster model (names as the CHIP SDK spells them, e.g. OnOff Toggle)")
        }
        let fields: TLVElement
        do { fields = try command.encodePayload(a.payload) } catch {
            throw APIError(.invalidArguments, "\(a.commandName): \(error)")
        }
        let timed = a.timedRequestTimeoutMs.flatMap { $0 > 0 ? UInt16(clamping: $0) : nil } ?? (command.requiresTimedInvoke ? Device.defaultTimedTimeoutMs : nil)
        let timeout = a.interactionTimeoutMs.map { Duration.milliseconds(Int64($0)) } ?? .seconds(10)
        let client = try await client(id, timeout: timeout)
        let path = CommandPathIB(EndpointID(a.endpointID), ClusterID(a.clusterID), CommandID(command.id))
        let result: InvokeResult
        do { result = try await client.invoke(commandPath: path, fields: fields, timedTimeout: timed) } catch {
            throw APIError.device(error, "\(a.commandName) on node \(a.nodeID)")
        }
        switch result {
        case .status(let status):
            if let error = status.error(at: .command(path)) {
                throw APIError.device(error, "\(a.commandName) on node \(a.nodeID)")
            }
            return .null
        case .response(let data):
            guard let response = command.response else { return .null }
            do { return try response.decode(data.fields ?? .structure([])) } catch {
                throw APIError.device(error, "\(a.commandName) on node \(a.nodeID)")
            }
        }
    }

    func read(_ id: NodeID, _ patterns: [AttributePathPattern]) async throws(APIError) -> JSONValue {
        try await requireReadyNode(id)
        let client = try await client(id)
        let paths = patterns.map(\.ib)
        let reports: [AttributeReport]
        do { reports = try await client.read(paths: paths) } catch {
            throw APIError.device(error, "reading from node \(id.rawValue)")
        }
        var values: [ConcreteAttributePath: TLVElement] = [:]
        for report in reports {
            if case .value(let v) = report.outcome, let path = report.path.concrete { values[path] = v }
        }
        await runtime.merge(values, into: id)
        var object = JSONObject()
        for (path, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let json = try? AttributeValueCoding.json(from: value) else { continue }
            object.append(NodeDataBuilder.path(path).description, json)
        }
        return .object(object)
    }

    /// A full read of every attribute (the interview), then node_updated.
    func interview(_ id: NodeID) async throws(APIError) {
        guard (try? hub.store.node(id)) != nil else { throw APIError(.nodeInterviewFailed, "Node \(id.rawValue) does not exist") }
        let client = try await client(id, timeout: .seconds(30))
        let values: [ConcreteAttributePath: TLVElement]
        do { values = try await Interview.readAll(client) } catch {
            throw APIError(.nodeInterviewFailed, "interviewing node \(id.rawValue) failed: \(error)")
        }
        await runtime.merge(values, into: id)
        interviewed(id)
        publish(.nodeUpdated(try await nodeData(id)))
    }

    func remove(_ id: NodeID) async throws(APIError) {
        guard (try? hub.store.node(id)) != nil else { throw APIError(.nodeNotExists, "Node \(id.rawValue) does not exist") }
        markRemoved(id)
        await runtime.remove(id)
        publish(.nodeRemoved(nodeID: id.rawValue))
        extensionState.publish(.deviceRemoved(nodeID: id.rawValue))
        // Best effort, as python-matter-server: the device leaves our fabric if it answers.
        if let device = try? await home.device(id) {
            do { try await device.unpair() } catch { try? hub.store.removeNode(id) }
        }
    }

    func openWindow(_ id: NodeID, timeout: Int) async throws(APIError) -> JSONValue {
        try await requireReadyNode(id)
        // AdministratorCommissioning's AcceptedCommandList must hold OpenCommissioningWindow (0).
        let accepted = await runtime.attributes(of: id)[ConcreteAttributePath(0, .administratorCommissioning, 0xFFF9)]
        guard case .container(_, let commands)? = accepted?.value, commands.contains(where: { $0.value == .unsigned(0) }) else {
            throw APIError(.invalidArguments, "node \(id.rawValue) cannot open a commissioning window (it has no AdministratorCommissioning with OpenCommissioningWindow); share it from its own app, or reset it")
        }
        let codes: (qr: String, manual: String)
        do {
            codes = try await home.device(id).share(timeoutSeconds: UInt16(clamping: max(timeout, 180)))
        } catch {
            throw APIError.device(error, "opening a commissioning window on node \(id.rawValue)")
        }
        let pin = (try? SetupPayload.parse(codes.manual).first?.passcode) ?? 0
        return .object(["setup_pin_code": .integer(pin), "setup_manual_code": .string(codes.manual),
                        "setup_qr_code": .string(codes.qr)])
    }

    func ping(_ id: NodeID, attempts: Int) async throws(APIError) -> JSONValue {
        guard let record = try? hub.store.node(id) else { throw APIError(.nodeNotExists, "Node \(id.rawValue) does not exist") }
        var reached = false
        for _ in 0..<max(1, min(attempts, 5)) where !reached {
            if let client = try? await client(id, timeout: .seconds(3)),
               (try? await client.readAttribute(ConcreteAttributePath(0, .basicInformation, 0))) != nil {
                reached = true
            }
        }
        var object = JSONObject()
        for address in record.addresses { object.append(address.host, .bool(reached)) }
        return .object(object)
    }

    func addresses(_ id: NodeID, scoped: Bool) throws(APIError) -> JSONValue {
        guard let record = try? hub.store.node(id) else { throw APIError(.nodeNotExists, "Node \(id.rawValue) does not exist") }
        return .array(record.addresses.map { a in
            .string(scoped && a.host.lowercased().hasPrefix("fe80") ? "\(a.host)%\(a.interfaceIndex ?? 0)" : a.host)
        })
    }

    // MARK: - Discovery

    /// Browses `_matterc._udp` for `seconds` and answers what it found (CommissionableNodeData).
    /// `found` hears each device as it is found (`matterhub/discover` streams them).
    func discoverCommissionable(for seconds: Int = 3, found: @escaping @Sendable (JSONValue) -> Void = { _ in }) async -> [JSONValue] {
        let stream = hub.discovery.commissionableNodes()
        let gathered = Mutex<[String: CommissionableNode]>([:])
        // The browse never ends by itself; what it gathered by the deadline is the answer.
        _ = await first(within: .seconds(seconds)) { () -> Bool? in
            do {
                for try await event in stream {
                    switch event {
                    case .found(let node), .updated(let node):
                        gathered.withLock { $0[node.instanceName] = node }
                        found(Self.commissionableJSON(node))
                    case .removed(let node): gathered.withLock { $0[node.instanceName] = nil }
                    }
                }
            } catch {}
            return nil
        }
        return gathered.withLock { $0.values.sorted { $0.instanceName < $1.instanceName } }.map(Self.commissionableJSON)
    }

    static func commissionableJSON(_ node: CommissionableNode) -> JSONValue {
        let txt = node.txt
        func int<T: BinaryInteger>(_ v: T?) -> JSONValue { v.map { .integer($0) } ?? .null }
        return .object([
            "instance_name": .string(node.instanceName), "host_name": .string(node.service.host),
            "port": .integer(node.service.port), "long_discriminator": int(txt.discriminator),
            "vendor_id": int(txt.vendorID), "product_id": int(txt.productID),
            "commissioning_mode": int(txt.commissioningMode), "device_type": int(txt.deviceType),
            "device_name": txt.deviceName.map { .string($0) } ?? .null,
            "pairing_instruction": txt.pairingInstruction.map { .string($0) } ?? .null,
            "pairing_hint": int(txt.pairingHint), "mrp_retry_interval_idle": int(txt.sessionIdleInterval),
            "mrp_retry_interval_active": int(txt.sessionActiveInterval),
            "supports_tcp": txt.tcpSupport.map { .bool($0 != 0) } ?? .null,
            "addresses": .array(node.service.addresses.map { .string($0.ip) }),
            "rotating_id": txt.rotatingID.map { .string(Base16.encode($0)) } ?? .null,
        ])
    }
}
