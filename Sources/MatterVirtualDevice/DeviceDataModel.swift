import MatterInteraction
import MatterTLV

/// The device's endpoints and clusters: endpoint 0 is the root node, endpoint 1 the light or plug.
enum DeviceDataModel {
    /// Global attributes every cluster has (Matter Core 7.13).
    static let globals: Set<AttributeID> = [.generatedCommandList, .acceptedCommandList, .attributeList, .featureMap,
                                            .clusterRevision]

    struct ClusterSpec {
        var id: ClusterID
        var attributes: [UInt32]
        var writable: [UInt32] = []
        var accepted: [UInt32] = []
        var generated: [UInt32] = []
        var timed: [UInt32] = []
        var events: [UInt32] = []
        var revision: UInt16
        var featureMap: UInt32 = 0
    }

    static let rootDeviceType: UInt32 = 0x0016

    /// The root node's NetworkCommissioning cluster: Ethernet, or a simulated Wi-Fi or Thread interface.
    static func networkCommissioning(_ network: VirtualDeviceConfiguration.Network?) -> ClusterSpec {
        guard let network else { return ClusterSpec(id: .networkCommissioning, attributes: [0, 1, 4, 5, 6, 7], revision: 1, featureMap: 0x4) }
        return ClusterSpec(id: .networkCommissioning, attributes: SimulatedNetworkInterface.attributeIDs, writable: [],
                           accepted: SimulatedNetworkInterface.acceptedCommands(network),
                           generated: SimulatedNetworkInterface.generatedCommands, revision: 1,
                           featureMap: network == .wifi ? 0x1 : 0x2)
    }

    static func specs(endpoint: EndpointID, network: VirtualDeviceConfiguration.Network? = nil) -> [ClusterSpec] {
        let descriptor = ClusterSpec(id: .descriptor, attributes: [0, 1, 2, 3], revision: 2)
        if endpoint == 1 {
            return [descriptor,
                    ClusterSpec(id: .onOff, attributes: [0], accepted: [0, 1, 2], revision: 6)]
        }
        return [
            descriptor,
            ClusterSpec(id: .accessControl, attributes: [0, 2, 3, 4], writable: [0], revision: 2),
            ClusterSpec(id: .basicInformation, attributes: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x0A, 0x0F, 0x12, 0x13, 0x15, 0x16],
                        writable: [5, 6], events: [0, 1], revision: 4),
            ClusterSpec(id: .generalCommissioning, attributes: [0, 1, 2, 3, 4], writable: [0],
                        accepted: [0, 2, 4], generated: [1, 3, 5], revision: 1),
            networkCommissioning(network),
            ClusterSpec(id: .administratorCommissioning, attributes: [0, 1, 2], accepted: [0, 1, 2], timed: [0, 1, 2],
                        revision: 1, featureMap: 0x1),
            ClusterSpec(id: .operationalCredentials, attributes: [0, 1, 2, 3, 4, 5], accepted: [0, 2, 4, 6, 9, 0x0A, 0x0B],
                        generated: [1, 3, 5, 8], revision: 1),
        ]
    }

    static func spec(_ endpoint: EndpointID, _ cluster: ClusterID, network: VirtualDeviceConfiguration.Network? = nil) -> ClusterSpec? {
        specs(endpoint: endpoint, network: network).first { $0.id == cluster }
    }

    static let endpoints: [EndpointID] = [0, 1]

    static func dataModel(network: VirtualDeviceConfiguration.Network?) -> DataModel {
        DataModel(endpoints: endpoints.map { ep in
            DataModel.Endpoint(id: ep, clusters: specs(endpoint: ep, network: network).map { s in
                DataModel.Cluster(id: s.id, attributes: Set(s.attributes.map { AttributeID($0) }).union(globals),
                                  writableAttributes: Set(s.writable.map { AttributeID($0) }),
                                  acceptedCommands: Set(s.accepted.map { CommandID($0) }),
                                  timedCommands: Set(s.timed.map { CommandID($0) }), events: Set(s.events.map { EventID($0) }))
            })
        })
    }
}
