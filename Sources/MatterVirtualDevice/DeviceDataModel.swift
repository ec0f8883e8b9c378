import MatterClusters
import MatterInteraction
import MatterTLV

/// What a virtual device is made of: its kind, its radio, whether it is an OTA requestor or an
/// ICD, and a bridge's number of bridged lights.
struct DeviceShape: Sendable, Hashable {
    var kind: VirtualDeviceConfiguration.Kind
    var network: VirtualDeviceConfiguration.Network?
    var ota: Bool
    var icd: ICDConfiguration.Mode?
    var bridgedLights: Int

    init(_ c: VirtualDeviceConfiguration) {
        kind = c.kind
        network = c.network
        ota = c.softwareVersion != nil
        icd = c.icd?.mode
        bridgedLights = c.kind == .bridge ? c.bridgedLights : 0
    }

    /// The first bridged light's endpoint (a bridge's endpoint 1 is its Aggregator).
    static let firstBridgedEndpoint: EndpointID = 2

    var endpoints: [EndpointID] {
        [0, 1] + (0..<bridgedLights).map { EndpointID(Self.firstBridgedEndpoint.rawValue + UInt16($0)) }
    }

    func isBridgedLight(_ endpoint: EndpointID) -> Bool {
        kind == .bridge && endpoint.rawValue >= Self.firstBridgedEndpoint.rawValue
            && Int(endpoint.rawValue - Self.firstBridgedEndpoint.rawValue) < bridgedLights
    }

    /// DeviceTypeList.
    func deviceTypes(_ endpoint: EndpointID) -> [DescriptorServer.DeviceType] {
        if endpoint == 0 { return [.rootNode] }
        if isBridgedLight(endpoint) { return [.onOffLight, .bridgedNode] }
        return endpoint == 1 ? [.init(kind.deviceType, revision: kind == .bridge ? 2 : 3)] : []
    }

    /// PartsList: every other endpoint on the root; the bridged lights on the Aggregator.
    func partsList(_ endpoint: EndpointID) -> [EndpointID] {
        switch endpoint {
        case 0: return Array(endpoints.dropFirst())
        case 1 where kind == .bridge: return Array(endpoints.dropFirst(2))
        default: return []
        }
    }
}

/// The device's endpoints and clusters: endpoint 0 is the root node, endpoint 1 the light
/// (On/Off and Level Control), the plug (On/Off), the thermostat or a bridge's Aggregator, whose
/// bridged On/Off lights follow from endpoint 2. Each cluster is a ``ClusterServer``; here its
/// prototype gives the declarations (``DeviceCore/server(_:_:)`` gives the live values).
enum DeviceDataModel {
    /// The clusters of `endpoint`, as prototypes.
    static func clusters(endpoint: EndpointID, shape: DeviceShape) -> [any ClusterServer] {
        let descriptor = DescriptorServer(deviceTypes: [], servers: [])
        if shape.isBridgedLight(endpoint) { return [descriptor, OnOffServer(), BridgedDeviceBasicInformationServer()] }
        if endpoint == 1 {
            switch shape.kind {
            case .light: return [descriptor, OnOffServer(), LevelState()]
            case .plug: return [descriptor, OnOffServer()]
            case .bridge: return [descriptor]
            case .thermostat: return [descriptor, ThermostatServer(state: ThermostatState(), now: 0)]
            }
        }
        guard endpoint == 0 else { return [] }
        let network = shape.network
        let root: [(any ClusterServer)?] = [
            descriptor,
            AccessControlServer(entries: []),
            basicInformation,
            GeneralCommissioningServer(),
            NetworkCommissioningServer(network: network),
            network == .thread ? ThreadNetworkDiagnosticsServer(diagnostics: RadioDiagnostics.defaults(discriminator: 0)) : nil,
            network == .wifi ? WiFiNetworkDiagnosticsServer(diagnostics: RadioDiagnostics.defaults(discriminator: 0)) : nil,
            shape.ota ? OTARequestorState() : nil,
            shape.icd.map { ICDManagementState(ICDConfiguration(mode: $0)) },
            GeneralDiagnosticsServer(),
            AdministratorCommissioningServer(),
            OperationalCredentialsServer(),
        ]
        return root.compactMap { $0 }
    }

    static let basicInformation = BasicInformationServer.virtualDevice(
        kind: .light, vendorID: 0, productID: 0, state: DeviceState(), configuredSoftwareVersion: nil, isICD: false,
        maxPathsPerInvoke: 1)

    static func dataModel(shape: DeviceShape) -> DataModel {
        DataModel(endpoints: shape.endpoints.map { ep in
            DataModel.Endpoint(id: ep, clusters: clusters(endpoint: ep, shape: shape).map(\.dataModelCluster))
        })
    }
}
