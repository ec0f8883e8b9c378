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
/// (On/Off and Level Control), the plug (On/Off) or a bridge's Aggregator, whose bridged On/Off
/// lights follow from endpoint 2.
enum DeviceDataModel {
    /// Global attributes every cluster has (Matter Core 7.13).
    static let globals: Set<AttributeID> = [.generatedCommandList, .acceptedCommandList, .attributeList, .featureMap,
                                            .clusterRevision]

    struct ClusterSpec {
        var id: ClusterID
        var attributes: [AttributeID]
        var writable: [AttributeID] = []
        var accepted: [CommandID] = []
        var generated: [CommandID] = []
        var timed: [CommandID] = []
        var events: [EventID] = []
        var revision: UInt16
        var featureMap: UInt32 = 0
    }

    /// A shared cluster server's declarations.
    static func spec(_ s: some ClusterServer) -> ClusterSpec {
        ClusterSpec(id: s.id, attributes: s.attributes, writable: s.writableAttributes, accepted: s.acceptedCommands,
                    generated: s.generatedCommands, timed: s.timedCommands, events: s.events, revision: s.revision,
                    featureMap: s.featureMap)
    }

    static let descriptor = spec(DescriptorServer(deviceTypes: [], servers: []))
    static let accessControl = spec(AccessControlServer(entries: []))
    static let basicInformation = spec(BasicInformationServer.virtualDevice(
        kind: .light, vendorID: 0, productID: 0, state: DeviceState(), configuredSoftwareVersion: nil, isICD: false,
        maxPathsPerInvoke: 1))

    /// The root node's NetworkCommissioning cluster: Ethernet, or a simulated Wi-Fi or Thread interface.
    static func networkCommissioning(_ network: VirtualDeviceConfiguration.Network?) -> ClusterSpec {
        typealias A = Clusters.NetworkCommissioning.Attribute
        guard let network else {
            return ClusterSpec(id: .networkCommissioning,
                               attributes: [A.maxNetworks, A.networks, A.interfaceEnabled, A.lastNetworkingStatus, A.lastNetworkID,
                                            A.lastConnectErrorValue],
                               revision: 1, featureMap: 0x4)
        }
        return ClusterSpec(id: .networkCommissioning, attributes: SimulatedNetworkInterface.attributeIDs, writable: [],
                           accepted: SimulatedNetworkInterface.acceptedCommands(network),
                           generated: SimulatedNetworkInterface.generatedCommands, revision: 1,
                           featureMap: network == .wifi ? 0x1 : 0x2)
    }

    /// Level Control with the OnOff and Lighting features, as a Dimmable Light has it.
    static let levelControl = ClusterSpec(id: .levelControl, attributes: LevelState.attributeIDs, writable: LevelState.writableIDs,
                                          accepted: LevelState.commandIDs, revision: 5,
                                          featureMap: Clusters.LevelControl.Feature([.onOff, .lighting]).rawValue)

    /// OTA Software Update Requestor (Matter Core 11.20.7), with `--software-version`.
    static let otaRequestor = ClusterSpec(
        id: .otaSoftwareUpdateRequestor, attributes: OTARequestorState.attributeIDs,
        writable: [Clusters.OtaSoftwareUpdateRequestor.Attribute.defaultOTAProviders],
        accepted: [Clusters.OtaSoftwareUpdateRequestor.Command.announceOTAProvider],
        events: [Clusters.OtaSoftwareUpdateRequestor.Event.stateTransition, Clusters.OtaSoftwareUpdateRequestor.Event.versionApplied,
                 Clusters.OtaSoftwareUpdateRequestor.Event.downloadError], revision: 1)

    /// ICD Management (Matter Core 9.16), with `--icd`: SIT supports the Check-In Protocol, LIT also
    /// a user trigger and the long idle time (and StayActiveRequest).
    static func icdManagement(_ mode: ICDConfiguration.Mode) -> ClusterSpec {
        typealias C = Clusters.IcdManagement.Command
        typealias F = Clusters.IcdManagement.Feature
        return ClusterSpec(id: .icdManagement, attributes: ICDManagementState.attributeIDs,
                           accepted: [C.registerClient, C.unregisterClient] + (mode == .lit ? [C.stayActiveRequest] : []),
                           generated: [C.registerClientResponse] + (mode == .lit ? [C.stayActiveResponse] : []), revision: 3,
                           featureMap: mode == .lit ? F([.checkInProtocolSupport, .userActiveModeTrigger, .longIdleTimeSupport]).rawValue
                               : F.checkInProtocolSupport.rawValue)
    }

    /// Thermostat with Heating, Cooling and Presets (`--kind thermostat`).
    static let thermostat = ClusterSpec(id: .thermostat, attributes: ThermostatState.attributeIDs, writable: ThermostatState.writableIDs,
                                        accepted: ThermostatState.acceptedCommands, generated: ThermostatState.generatedCommands,
                                        revision: 8, featureMap: ThermostatState.featureMap)

    static func specs(endpoint: EndpointID, shape: DeviceShape) -> [ClusterSpec] {
        typealias OnOff = Clusters.OnOff
        typealias GC = Clusters.GeneralCommissioning
        typealias AC = Clusters.AdministratorCommissioning
        typealias OC = Clusters.OperationalCredentials
        let onOff = ClusterSpec(id: .onOff, attributes: [OnOff.Attribute.onOff],
                                accepted: [OnOff.Command.off, OnOff.Command.on, OnOff.Command.toggle], revision: 6)
        if shape.isBridgedLight(endpoint) { return [descriptor, onOff, bridgedDeviceBasicInformation] }
        if endpoint == 1 {
            switch shape.kind {
            case .light: return [descriptor, onOff, levelControl]
            case .plug: return [descriptor, onOff]
            case .bridge: return [descriptor]
            case .thermostat: return [descriptor, thermostat]
            }
        }
        guard endpoint == 0 else { return [] }
        let network = shape.network
        return [
            descriptor,
            accessControl,
            basicInformation,
            ClusterSpec(id: .generalCommissioning,
                        attributes: [GC.Attribute.breadcrumb, GC.Attribute.basicCommissioningInfo, GC.Attribute.regulatoryConfig,
                                     GC.Attribute.locationCapability, GC.Attribute.supportsConcurrentConnection],
                        writable: [GC.Attribute.breadcrumb],
                        accepted: [GC.Command.armFailSafe, GC.Command.setRegulatoryConfig, GC.Command.commissioningComplete],
                        generated: [GC.Command.armFailSafeResponse, GC.Command.setRegulatoryConfigResponse,
                                    GC.Command.commissioningCompleteResponse],
                        revision: 1),
            networkCommissioning(network),
            // The simulated radio's diagnostics (what a hub's network map is drawn from).
            network == .thread ? ClusterSpec(id: .threadNetworkDiagnostics, attributes: RadioDiagnostics.threadAttributes, revision: 2) : nil,
            network == .wifi ? ClusterSpec(id: .wiFiNetworkDiagnostics, attributes: RadioDiagnostics.wifiAttributes, revision: 1) : nil,
            shape.ota ? otaRequestor : nil,
            shape.icd.map(icdManagement),
            // Mandatory on the root node (Matter Core 11.12): NetworkInterfaces, RebootCount,
            // UpTime, TestEventTriggersEnabled (never enabled: no test event triggers here).
            ClusterSpec(id: .generalDiagnostics, attributes: [0, 1, 2, 8], revision: 2),
            ClusterSpec(id: .administratorCommissioning,
                        attributes: [AC.Attribute.windowStatus, AC.Attribute.adminFabricIndex, AC.Attribute.adminVendorId],
                        accepted: [AC.Command.openCommissioningWindow, AC.Command.openBasicCommissioningWindow,
                                   AC.Command.revokeCommissioning],
                        timed: [AC.Command.openCommissioningWindow, AC.Command.openBasicCommissioningWindow,
                                AC.Command.revokeCommissioning],
                        revision: 1, featureMap: 0x1),
            ClusterSpec(id: .operationalCredentials,
                        attributes: [OC.Attribute.nocs, OC.Attribute.fabrics, OC.Attribute.supportedFabrics,
                                     OC.Attribute.commissionedFabrics, OC.Attribute.trustedRootCertificates,
                                     OC.Attribute.currentFabricIndex],
                        accepted: [OC.Command.attestationRequest, OC.Command.certificateChainRequest, OC.Command.csrRequest,
                                   OC.Command.addNOC, OC.Command.updateFabricLabel, OC.Command.removeFabric,
                                   OC.Command.addTrustedRootCertificate],
                        generated: [OC.Command.attestationResponse, OC.Command.certificateChainResponse,
                                    OC.Command.csrResponse, OC.Command.nocResponse],
                        revision: 1),
        ].compactMap { $0 }
    }

    static func spec(_ endpoint: EndpointID, _ cluster: ClusterID, shape: DeviceShape) -> ClusterSpec? {
        specs(endpoint: endpoint, shape: shape).first { $0.id == cluster }
    }

    /// A bridged light's BridgedDeviceBasicInformation: names, reachability, a unique ID.
    static let bridgedDeviceBasicInformation: ClusterSpec = {
        typealias B = Clusters.BridgedDeviceBasicInformation.Attribute
        return ClusterSpec(id: .bridgedDeviceBasicInformation,
                           attributes: [B.vendorName, B.productName, B.nodeLabel, B.reachable, B.uniqueID], revision: 4)
    }()

    static func dataModel(shape: DeviceShape) -> DataModel {
        DataModel(endpoints: shape.endpoints.map { ep in
            DataModel.Endpoint(id: ep, clusters: specs(endpoint: ep, shape: shape).map { s in
                DataModel.Cluster(id: s.id, attributes: Set(s.attributes).union(globals), writableAttributes: Set(s.writable),
                                  acceptedCommands: Set(s.accepted), timedCommands: Set(s.timed), events: Set(s.events))
            })
        })
    }
}
