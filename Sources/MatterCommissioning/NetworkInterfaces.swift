import MatterClusters
import MatterInteraction
import MatterTLV

/// The device's network interfaces as its NetworkCommissioning clusters (0x0031) describe them,
/// read over PASE with the commissioning info (as the CHIP SDK's AutoCommissioner reads each
/// instance's FeatureMap and ConnectMaxTimeSeconds): which endpoint has a Wi-Fi, Thread or
/// Ethernet interface, the networks each knows and whether one is connected.
struct NetworkInterfaces: Sendable {
    typealias NC = Clusters.NetworkCommissioning

    struct Interface: Sendable {
        var endpoint: EndpointID
        var features: NC.Feature
        var networks: [NC.NetworkInfo]
        var scanMaxTimeSeconds: UInt8?
        var connectMaxTimeSeconds: UInt8?
    }

    var interfaces: [Interface]

    /// Whether the device is on an operational network already: it has no NetworkCommissioning
    /// cluster, or an Ethernet one, or a network one of them reports connected. Otherwise a
    /// Wi-Fi or Thread device needs steps 16 and 17.
    var isOnOperationalNetwork: Bool {
        interfaces.isEmpty || interfaces.contains { $0.features.contains(.ethernetNetworkInterface) }
            || interfaces.contains { $0.networks.contains(where: \.connected) }
    }

    /// The first interface with `feature`.
    func interface(with feature: NC.Feature) -> Interface? {
        interfaces.first { $0.features.contains(feature) }
    }

    /// Reads FeatureMap, Networks, ScanMaxTimeSeconds and ConnectMaxTimeSeconds of every
    /// NetworkCommissioning instance (wildcard endpoint).
    static func read(_ client: InteractionClient) async throws -> NetworkInterfaces {
        let attributes: [AttributeID] = [.featureMap, NC.Attribute.networks, NC.Attribute.scanMaxTimeSeconds,
                                         NC.Attribute.connectMaxTimeSeconds]
        let reports = try await client.read(paths: attributes.map { AttributePathIB(cluster: NC.id, attribute: $0) })
        var byEndpoint: [EndpointID: Interface] = [:]
        for r in reports {
            guard let endpoint = r.path.endpoint, r.path.cluster == NC.id, let attribute = r.path.attribute,
                  case .value(let v) = r.outcome else { continue }
            var i = byEndpoint[endpoint] ?? Interface(endpoint: endpoint, features: [], networks: [])
            do {
                switch attribute {
                case .featureMap: i.features = NC.Feature(rawValue: try v.unsigned(as: UInt32.self))
                case NC.Attribute.networks: i.networks = try v.members(of: .array).map { e throws(InteractionError) in try NC.NetworkInfo(element: e) }
                case NC.Attribute.scanMaxTimeSeconds: i.scanMaxTimeSeconds = v.isNull ? nil : try v.unsigned(as: UInt8.self)
                case NC.Attribute.connectMaxTimeSeconds: i.connectMaxTimeSeconds = v.isNull ? nil : try v.unsigned(as: UInt8.self)
                default: break
                }
            } catch let e as InteractionError {
                throw e
            } catch {
                throw InteractionError.invalidValue(what: "NetworkCommissioning attribute \(attribute) on endpoint \(endpoint)",
                                                    reason: "\(error)")
            }
            byEndpoint[endpoint] = i
        }
        return NetworkInterfaces(interfaces: byEndpoint.values.sorted { $0.endpoint.rawValue < $1.endpoint.rawValue })
    }
}
