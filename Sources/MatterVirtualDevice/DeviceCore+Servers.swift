import MatterClusters
import MatterInteraction
import MatterTLV

/// The device's clusters as ``ClusterServer`` values (`DeviceClusterServers.swift`), built from
/// its state for each access: the hub's node serves the same Descriptor, Basic Information and
/// Access Control servers. A write goes to the server, and what it changed back into the state,
/// which is what persists (`DeviceCore.write`).
extension DeviceCore {
    /// The server of `cluster` on `endpoint` (nil: the device's data model has no such cluster).
    func server(_ endpoint: EndpointID, _ cluster: ClusterID) -> (any ClusterServer)? {
        guard dataModel.cluster(endpoint, cluster) != nil else { return nil }
        switch cluster {
        case .descriptor:
            return DescriptorServer(deviceTypes: shape.deviceTypes(endpoint),
                                    servers: DeviceDataModel.clusters(endpoint: endpoint, shape: shape).map(\.id),
                                    parts: shape.partsList(endpoint))
        case .basicInformation: return basicInformation
        case .accessControl: return accessControl
        case .onOff: return OnOffServer(on: shape.isBridgedLight(endpoint) ? bridgedOn[endpoint] ?? false : state.onOff)
        case .levelControl: return state.level
        case .thermostat: return thermostatServer
        case .bridgedDeviceBasicInformation:
            return bridgedBasicInformation(endpoint)
        case .generalCommissioning: return generalCommissioning
        case .networkCommissioning: return networkCommissioning
        case .generalDiagnostics:
            return GeneralDiagnosticsServer(networkInterface: networkInterface(), rebootCount: UInt16(clamping: state.bootCount),
                                            upTimeSeconds: (clock.now() &- startedAt) / 1000)
        case .threadNetworkDiagnostics: return ThreadNetworkDiagnosticsServer(diagnostics: radioDiagnostics, dataset: radio?.joinedThreadDataset)
        case .wiFiNetworkDiagnostics: return WiFiNetworkDiagnosticsServer(diagnostics: radioDiagnostics, connected: radio?.isConnected ?? false)
        case .administratorCommissioning: return AdministratorCommissioningServer(window: window?.kind, admin: windowAdmin)
        case .operationalCredentials:
            return OperationalCredentialsServer(fabrics: state.fabrics, committedCount: committedFabrics.count,
                                                pendingRoot: failSafe?.pendingRoot)
        case .otaSoftwareUpdateRequestor: return ota
        case .icdManagement: return icd
        default: return nil
        }
    }

    /// General Diagnostics' NetworkInterface for the device's one (simulated) interface:
    /// Ethernet, or the Wi-Fi or Thread radio of `--network`.
    func networkInterface() -> TLVElement {
        let (name, type): (String, UInt8) = switch network {
        case .wifi?: ("wlan0", 1)
        case .thread?: ("thread0", 4)
        case nil: ("eth0", 2)
        }
        let hardwareAddress = network.map(radioDiagnostics.hardwareAddress) ?? [0x02, 0x00, 0x00, 0x00, 0x00, 0x01]
        return .structure([.utf8(.context(0), name), .bool(.context(1), true), .null(.context(2)), .null(.context(3)),
                           .bytes(.context(4), hardwareAddress), .array(.context(5), []),
                           .array(.context(6), []), .unsigned(.context(7), type)])
    }

    var basicInformation: BasicInformationServer {
        .virtualDevice(kind: kind, vendorID: vendorID, productID: productID, state: state,
                       configuredSoftwareVersion: configuredSoftwareVersion, isICD: icd != nil, maxPathsPerInvoke: maxPathsPerInvoke)
    }

    func bridgedBasicInformation(_ endpoint: EndpointID) -> BridgedDeviceBasicInformationServer {
        BridgedDeviceBasicInformationServer(number: Int(endpoint.rawValue - DeviceShape.firstBridgedEndpoint.rawValue) + 1,
                                            bridgeSerial: state.serialNumber ?? "MH", label: bridgedLabels[endpoint])
    }

    var generalCommissioning: GeneralCommissioningServer {
        GeneralCommissioningServer(breadcrumb: breadcrumb, regulatoryConfig: state.regulatoryConfig)
    }

    var networkCommissioning: NetworkCommissioningServer {
        NetworkCommissioningServer(network: network, radio: radio, interfaceEnabled: interfaceEnabled)
    }

    var thermostatServer: ThermostatServer? { thermostat.map { ThermostatServer(state: $0, now: clock.now()) } }

    var accessControl: AccessControlServer { AccessControlServer(entries: state.acl.map(\.entry)) }
}

extension BasicInformationServer {
    /// The virtual device's Basic Information (its values and, with a default state, its
    /// declarations for ``DeviceDataModel``).
    static func virtualDevice(kind: VirtualDeviceConfiguration.Kind, vendorID: UInt16, productID: UInt16, state: DeviceState,
                              configuredSoftwareVersion: UInt32?, isICD: Bool, maxPathsPerInvoke: UInt16) -> BasicInformationServer {
        let serial = state.serialNumber ?? "MH-VD"
        var s = BasicInformationServer(
            vendorName: "MatterHub", vendorID: vendorID, productName: kind.productName, productID: productID, hardwareVersion: 1,
            hardwareVersionString: "1.0", softwareVersion: state.softwareVersion ?? configuredSoftwareVersion ?? DeviceCore.softwareVersion,
            softwareVersionString: state.softwareVersionString ?? (configuredSoftwareVersion.map { "\($0).0.0" } ?? "1.0.0"),
            uniqueID: "matterhub-" + serial.lowercased())
        s.nodeLabel = state.nodeLabel
        s.location = state.location
        s.serialNumber = serial
        // A sleepy device says Matter 1.4, where LIT clients look for it (matterjs-server's rule).
        s.specificationVersion = isICD ? 0x0104_0000 : 0x0103_0000
        s.maxPathsPerInvoke = maxPathsPerInvoke
        s.events = [Clusters.BasicInformation.Event.startUp, Clusters.BasicInformation.Event.shutDown]
        return s
    }
}
