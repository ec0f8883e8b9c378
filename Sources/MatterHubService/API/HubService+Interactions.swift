import MatterCertificates
import MatterClusters
import MatterHome
import MatterInteraction
import MatterServerAPI
import MatterTLV

/// Schema 14's interaction commands (`batched_device_commands`, `read`, wildcard and timed
/// `write_attribute`) and schema 15's `write_atomic_attribute`, in matter-python-client
/// 1.6.1's shapes.
extension HubService {
    /// Commands to one node in one InvokeRequest, never split: one result per command, in order,
    /// `{status, cluster_status, response}`; one command failing does not fail the others.
    /// More commands than the node's MaxPathsPerInvoke is refused before anything is sent.
    func batchedCommands(_ a: BatchedCommandsArguments) async throws(APIError) -> JSONValue {
        let id = NodeID(a.nodeID)
        try await requireReadyNode(id)
        var requests: [CommandDataIB] = []
        var models: [ClusterCommand] = []
        for (i, c) in a.commands.enumerated() {
            guard let command = Clusters.command(cluster: c.clusterID, name: c.commandName) else {
                throw APIError(.invalidArguments, "batched_device_commands: command \(i), \(c.commandName) of cluster \(c.clusterID), is not in the cluster model (names as the CHIP SDK spells them, e.g. OnOff Toggle)")
            }
            let fields: TLVElement
            do { fields = try command.encodePayload(c.payload) } catch {
                throw APIError(.invalidArguments, "batched_device_commands: command \(i), \(c.commandName): \(error)")
            }
            requests.append(CommandDataIB(path: CommandPathIB(EndpointID(c.endpointID), ClusterID(c.clusterID), CommandID(command.id)),
                                          fields: fields))
            models.append(command)
        }
        let limit = await runtime.attributes(of: id)[ConcreteAttributePath(0, .basicInformation, Clusters.BasicInformation.Attribute.maxPathsPerInvoke)]
            .flatMap { try? $0.unsigned(as: UInt16.self) } ?? 1
        guard requests.count <= Int(limit) else {
            throw APIError(.invalidArguments, "batched_device_commands: node \(a.nodeID) takes at most \(limit) command\(limit == 1 ? "" : "s") in one invoke (its MaxPathsPerInvoke); send \(requests.count) as smaller batches")
        }
        // 0 is "not timed", as the SDK reads it.
        let timed = a.timedRequestTimeoutMs.flatMap { $0 > 0 ? UInt16(clamping: $0) : nil }
            ?? (models.contains(where: \.requiresTimedInvoke) ? Device.defaultTimedTimeoutMs : nil)
        let client = try await client(id, timeout: a.interactionTimeoutMs.map { .milliseconds(Int64($0)) } ?? .seconds(10))
        let results: [InvokeResult]
        do { results = try await client.invoke(requests, timedTimeout: timed) } catch {
            throw APIError.device(error, "batched_device_commands on node \(a.nodeID)")
        }
        return .array(zip(results, models).map { result, command in
            switch result {
            case .status(let s):
                return .object(["status": .integer(s.status.rawValue), "cluster_status": s.clusterStatus.map { .integer($0) } ?? .null,
                                "response": .null])
            case .response(let data):
                let decoded = command.response.flatMap { try? $0.decode(data.fields ?? .structure([])) } ?? .null
                return .object(["status": .integer(0), "cluster_status": .null, "response": decoded])
            }
        })
    }

    /// One Read of attributes and events: matter-python-client's InteractionReport. Values of a
    /// fabric-filtered read go into the cache as `read_attribute`'s do; events only into the answer.
    func readReport(_ id: NodeID, _ paths: InteractionPaths) async throws(APIError) -> JSONValue {
        try await requireReadyNode(id)
        let client = try await client(id)
        let request = ReadRequestMessage(
            attributeRequests: paths.attributes.isEmpty ? nil : paths.attributes.map(\.ib),
            eventRequests: paths.events.isEmpty ? nil : paths.events.map { $0.ib },
            eventFilters: paths.eventMin.map { [EventFilterIB(eventMin: $0)] },
            isFabricFiltered: paths.fabricFiltered,
            dataVersionFilters: paths.dataVersionFilters.isEmpty ? nil : paths.dataVersionFilters.map {
                DataVersionFilterIB(path: ClusterPathIB(endpoint: EndpointID($0.endpoint), cluster: ClusterID($0.cluster)), dataVersion: $0.dataVersion)
            })
        let report: AssembledReport
        do { report = try await client.read(request) } catch {
            throw APIError.device(error, "reading from node \(id.rawValue)")
        }
        if paths.fabricFiltered {
            var values: [ConcreteAttributePath: TLVElement] = [:]
            for r in report.attributes {
                if case .value(let v) = r.outcome, let path = r.path.concrete { values[path] = v }
            }
            await runtime.merge(values, into: id)
        }
        return .object(Self.interactionReport(report, of: id))
    }

    /// matter-python-client's InteractionReport: `attributes` keyed "E/C/A", `events`, the
    /// statuses keyed by path (null when none), `data_versions` keyed "E/C".
    static func interactionReport(_ report: AssembledReport, of node: NodeID) -> JSONObject {
        var attributes = JSONObject()
        var attributeStatus = JSONObject()
        var versions: [String: UInt32] = [:]
        for r in report.attributes {
            let key = "\(r.path.endpoint.map { "\($0.rawValue)" } ?? "*")/\(r.path.cluster.map { "\($0.rawValue)" } ?? "*")/\(r.path.attribute.map { "\($0.rawValue)" } ?? "*")"
            switch r.outcome {
            case .value(let v):
                guard let json = try? AttributeValueCoding.json(from: v) else { continue }
                attributes.append(key, json)
                if let version = r.dataVersion, let e = r.path.endpoint, let c = r.path.cluster {
                    versions["\(e.rawValue)/\(c.rawValue)"] = version
                }
            case .status(let s):
                attributeStatus.append(key, status(s))
            }
        }
        var events: [JSONValue] = []
        var eventStatus = JSONObject()
        for e in report.events {
            switch e {
            case .data(let data): events.append(NodeDataBuilder.event(data, of: node).json)
            case .status(let s):
                let key = "\(s.path.endpoint.map { "\($0.rawValue)" } ?? "*")/\(s.path.cluster.map { "\($0.rawValue)" } ?? "*")/\(s.path.event.map { "\($0.rawValue)" } ?? "*")"
                eventStatus.append(key, status(s.status))
            }
        }
        var dataVersions = JSONObject()
        for (k, v) in versions.sorted(by: { $0.key < $1.key }) { dataVersions.append(k, .integer(v)) }
        var out = JSONObject()
        out.append("attributes", .object(attributes))
        out.append("events", .array(events))
        out.append("attribute_status", attributeStatus.isEmpty ? .null : .object(attributeStatus))
        out.append("event_status", eventStatus.isEmpty ? .null : .object(eventStatus))
        out.append("data_versions", dataVersions.isEmpty ? .null : .object(dataVersions))
        return out
    }

    private static func status(_ s: StatusIB) -> JSONValue {
        .object(["status": .integer(s.status.rawValue), "cluster_status": s.clusterStatus.map { .integer($0) } ?? .null])
    }

    /// `write_attribute`: `*` as the endpoint writes each endpoint whose cached values hold the
    /// attribute, in one WriteRequest; `timedMs` sends it timed. Answers python-matter-server's
    /// `[{Path, Status}]`, one entry per endpoint written.
    func write(_ id: NodeID, _ pattern: AttributePathPattern, _ value: JSONValue, timedMs: UInt32? = nil) async throws(APIError) -> JSONValue {
        guard let cluster = pattern.cluster, let attribute = pattern.attribute else {
            throw APIError(.invalidArguments, "write_attribute needs a concrete cluster and attribute, got \(pattern)")
        }
        try await requireReadyNode(id)
        let cache = await runtime.attributes(of: id)
        let endpoints: [UInt16]
        if let e = pattern.endpoint { endpoints = [e] } else {
            endpoints = cache.keys.filter { $0.cluster.rawValue == cluster && $0.attribute.rawValue == attribute }
                .map(\.endpoint.rawValue).sorted()
            guard !endpoints.isEmpty else {
                throw APIError(.invalidArguments, "write_attribute: no endpoint of node \(id.rawValue) has attribute \(cluster)/\(attribute)")
            }
        }
        var writes: [AttributeDataIB] = []
        for e in endpoints {
            let path = ConcreteAttributePath(EndpointID(e), ClusterID(cluster), AttributeID(attribute))
            writes.append(AttributeDataIB(path: path.ib, data: try Self.tlv(value, for: path, reported: cache[path])))
        }
        let client = try await client(id)
        let statuses: [AttributeStatusIB]
        do { statuses = try await client.write(writes, timedTimeout: timedMs.flatMap { $0 > 0 ? UInt16(clamping: $0) : nil }) } catch {
            throw APIError.device(error, "writing \(pattern) on node \(id.rawValue)")
        }
        var written: [ConcreteAttributePath: TLVElement] = [:]
        let entries: [JSONValue] = writes.map { w in
            let s = statuses.first { $0.path.endpoint == w.path.endpoint && $0.path.cluster == w.path.cluster && $0.path.attribute == w.path.attribute }
            let code = s?.status.status.rawValue ?? 0
            if code == 0, let p = w.path.concrete { written[p] = w.data }
            return Self.writeResult(w.path, code)
        }
        await runtime.merge(written, into: id)
        return .array(entries)
    }

    /// python-matter-server's write result entry.
    static func writeResult(_ path: AttributePathIB, _ status: UInt8) -> JSONValue {
        .object([
            "Path": .object(["EndpointId": path.endpoint.map { .integer($0.rawValue) } ?? .null,
                             "ClusterId": path.cluster.map { .integer($0.rawValue) } ?? .null,
                             "AttributeId": path.attribute.map { .integer($0.rawValue) } ?? .null]),
            "Status": .integer(status),
        ])
    }

    /// A client's JSON value as the attribute's TLV: the type from the schema, else from the
    /// value the node reported, else as it comes.
    static func tlv(_ value: JSONValue, for path: ConcreteAttributePath, reported: TLVElement?) throws(APIError) -> TLVElement {
        let c = path.cluster.rawValue, a = path.attribute.rawValue
        let type = AttributeSchema.type(cluster: c, attribute: a) ?? reported.map(AttributeSchema.inferred) ?? .any
        do { return try AttributeValueCoding.tlv(from: value, as: type) } catch {
            throw APIError(.invalidArguments, "the value for \(path.endpoint.rawValue)/\(c)/\(a) does not fit the attribute: \(error)")
        }
    }
}

extension AttributePathPattern {
    var ib: AttributePathIB {
        AttributePathIB(endpoint: endpoint.map { EndpointID($0) }, cluster: cluster.map { ClusterID($0) },
                        attribute: attribute.map { AttributeID($0) })
    }
}

extension EventPathPattern {
    var ib: EventPathIB {
        EventPathIB(endpoint: endpoint.map { EndpointID($0) }, cluster: cluster.map { ClusterID($0) },
                    event: event.map { EventID($0) }, isUrgent: isUrgent)
    }
}
