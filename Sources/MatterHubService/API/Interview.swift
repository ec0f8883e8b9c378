import MatterInteraction
import MatterTLV

/// Reads every attribute of a node (the interview). One wildcard read first; a device whose
/// wildcard read fails, or is too large for it, is read per endpoint, then per cluster, by
/// walking its Descriptor (PartsList of endpoint 0, ServerList of each endpoint).
enum Interview {
    static func readAll(_ client: InteractionClient) async throws -> [ConcreteAttributePath: TLVElement] {
        if let all = try? await values(client.read(paths: [AttributePathIB()])), !all.isEmpty { return all }
        var out: [ConcreteAttributePath: TLVElement] = [:]
        let endpoints: [EndpointID] = [0] + (try await list(client, ConcreteAttributePath(0, .descriptor, 3)).map { EndpointID($0) })
        for endpoint in endpoints {
            if let whole = try? await values(client.read(paths: [AttributePathIB(endpoint: endpoint)])), !whole.isEmpty {
                out.merge(whole) { _, new in new }
                continue
            }
            for cluster in try await list(client, ConcreteAttributePath(endpoint, .descriptor, 1)) {
                let path = AttributePathIB(endpoint: endpoint, cluster: ClusterID(UInt32(truncatingIfNeeded: cluster)))
                if let values = try? await values(client.read(paths: [path])) { out.merge(values) { _, new in new } }
            }
        }
        return out
    }

    static func values(_ reports: [AttributeReport]) -> [ConcreteAttributePath: TLVElement] {
        var out: [ConcreteAttributePath: TLVElement] = [:]
        for r in reports {
            if case .value(let v) = r.outcome, let p = r.path.concrete { out[p] = v }
        }
        return out
    }

    /// An attribute holding a list of unsigned integers (PartsList, ServerList).
    static func list(_ client: InteractionClient, _ path: ConcreteAttributePath) async throws -> [UInt16] {
        let value = try await client.readAttribute(path)
        guard case .container(_, let items) = value.value else { return [] }
        return items.compactMap { if case .unsigned(let n) = $0.value { UInt16(truncatingIfNeeded: n) } else { nil } }
    }
}
