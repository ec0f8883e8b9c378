import MatterClusters
import MatterInteraction
import MatterTLV

/// The clusters the virtual device serves with the servers the hub's node uses too
/// (``DescriptorServer``, ``BasicInformationServer``, ``AccessControlServer``), built from the
/// device's state; a write goes to the server and what it changed back into the state, which is
/// what persists.
extension DeviceCore {
    /// The shared server of `cluster` on `endpoint`, if the device has it.
    func sharedServer(_ endpoint: EndpointID, _ cluster: ClusterID) -> (any ClusterServer)? {
        switch cluster {
        case .descriptor where shape.endpoints.contains(endpoint):
            return DescriptorServer(deviceTypes: shape.deviceTypes(endpoint),
                                    servers: DeviceDataModel.specs(endpoint: endpoint, shape: shape).map(\.id),
                                    parts: shape.partsList(endpoint))
        case .basicInformation where endpoint == 0: return basicInformation
        case .accessControl where endpoint == 0: return accessControl
        default: return nil
        }
    }

    var basicInformation: BasicInformationServer {
        .virtualDevice(kind: kind, vendorID: vendorID, productID: productID, state: state,
                       configuredSoftwareVersion: configuredSoftwareVersion, isICD: icd != nil, maxPathsPerInvoke: maxPathsPerInvoke)
    }

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
