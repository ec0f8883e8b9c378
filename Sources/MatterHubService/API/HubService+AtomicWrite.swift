import MatterCertificates
import MatterClusters
import MatterHome
import MatterInteraction
import MatterServerAPI
import MatterTLV

/// Schema 15's `write_atomic_attribute`: an attribute with the Atomic quality written inside
/// one atomic write (Matter Core 7.15, the cluster's AtomicRequest command): BeginWrite, the
/// write, CommitWrite; RollbackWrite when the write fails.
extension HubService {
    /// The attributes with the Atomic quality (Matter 1.4 Application Cluster spec: Thermostat's
    /// Presets and Schedules are the only ones), with the command that frames their writes.
    static let atomicAttributes: [UInt32: Set<UInt32>] = [
        Clusters.Thermostat.id.rawValue: [Clusters.Thermostat.Attribute.presets.rawValue, Clusters.Thermostat.Attribute.schedules.rawValue],
    ]

    /// AtomicRequest's RequestType (Matter Core 7.15.4).
    enum AtomicRequestType: UInt8 {
        case beginWrite = 0
        case commitWrite = 1
        case rollbackWrite = 2
    }

    func atomicWrite(_ a: AtomicWriteArguments) async throws(APIError) -> JSONValue {
        let id = NodeID(a.nodeID)
        let path = ConcreteAttributePath(EndpointID(a.path.endpoint), ClusterID(a.path.cluster), AttributeID(a.path.attribute))
        guard Self.atomicAttributes[a.path.cluster]?.contains(a.path.attribute) == true else {
            throw APIError(.invalidArguments, "write_atomic_attribute: \(a.path) has no Atomic quality (only Thermostat Presets 513/80 and Schedules 513/81 do); use write_attribute")
        }
        try await requireReadyNode(id)
        let value = try Self.tlv(a.value, for: path, reported: await runtime.attributes(of: id)[path])
        let client = try await client(id)
        let what = "write_atomic_attribute of \(a.path) on node \(a.nodeID)"
        let begin = try await atomicRequest(.beginWrite, path, timeoutMs: a.atomicTimeoutMs, client, what)
        guard begin.status == 0 else {
            // The attribute's own status says why (BUSY: another client holds an atomic write).
            let status = begin.attributes[a.path.attribute].flatMap { $0 == 0 ? nil : $0 } ?? begin.status
            throw APIError(.sdkStackError, "\(what): the node refused BeginWrite with status \(IMStatus(status)) (\(status))")
        }
        let timed = a.timedRequestTimeoutMs.flatMap { $0 > 0 ? UInt16(clamping: $0) : nil }
        var status: UInt8
        do {
            status = try await writeStatus(AttributeDataIB(dataVersion: a.dataVersion, path: path.ib, data: value), client, timed)
            if status == IMStatus.dataVersionMismatch.rawValue, a.ignoreDataVersionMismatch {
                status = try await writeStatus(AttributeDataIB(path: path.ib, data: value), client, timed)
            }
        } catch {
            _ = try? await atomicRequest(.rollbackWrite, path, timeoutMs: nil, client, what)
            throw APIError.device(error, what)
        }
        guard status == 0 else {
            _ = try? await atomicRequest(.rollbackWrite, path, timeoutMs: nil, client, what)
            return .array([Self.writeResult(path.ib, status)])
        }
        let commit = try await atomicRequest(.commitWrite, path, timeoutMs: nil, client, what)
        let outcome = commit.attributes[a.path.attribute] ?? commit.status
        // What the device keeps is not what was sent (it gives new presets their handles): the
        // cache takes the value read back.
        if outcome == 0, let stored = try? await client.readAttribute(path) { await runtime.merge([path: stored], into: id) }
        return .array([Self.writeResult(path.ib, outcome)])
    }

    /// One AtomicRequest for one attribute; the AtomicResponse's status and per-attribute statuses.
    private func atomicRequest(_ type: AtomicRequestType, _ path: ConcreteAttributePath, timeoutMs: UInt16?,
                               _ client: InteractionClient, _ what: String) async throws(APIError) -> (status: UInt8, attributes: [UInt32: UInt8]) {
        var fields: [TLVElement] = [.unsigned(.context(0), type.rawValue),
                                    .array(.context(1), [.unsigned(path.attribute.rawValue)])]
        if let timeoutMs { fields.append(.unsigned(.context(2), timeoutMs)) }
        let command = CommandPathIB(path.endpoint, path.cluster, Clusters.Thermostat.Command.atomicRequest)
        let result: InvokeResult
        do { result = try await client.invoke(commandPath: command, fields: .structure(fields)) } catch {
            throw APIError.device(error, "\(what): AtomicRequest")
        }
        switch result {
        case .status(let s):
            // A bare status is a refusal of the command itself (success needs an AtomicResponse).
            return (s.status.rawValue == 0 ? IMStatus.failure.rawValue : s.status.rawValue, [:])
        case .response(let data):
            guard data.path.command == Clusters.Thermostat.Command.atomicResponse, let fields = data.fields,
                  let status = try? fields[context: 0]?.unsigned(as: UInt8.self) else {
                throw APIError(.sdkStackError, "\(what): the node's answer to AtomicRequest is not an AtomicResponse")
            }
            var attributes: [UInt32: UInt8] = [:]
            for entry in fields[context: 1]?.members ?? [] {
                if let attribute = try? entry[context: 0]?.unsigned(as: UInt32.self),
                   let code = try? entry[context: 1]?.unsigned(as: UInt8.self) { attributes[attribute] = code }
            }
            return (status, attributes)
        }
    }

    private func writeStatus(_ write: AttributeDataIB, _ client: InteractionClient, _ timed: UInt16?) async throws(InteractionError) -> UInt8 {
        let statuses = try await client.write([write], timedTimeout: timed)
        return statuses.first?.status.status.rawValue ?? 0
    }
}
