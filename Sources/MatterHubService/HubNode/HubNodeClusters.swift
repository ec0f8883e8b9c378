import MatterClusters
import MatterInteraction
import MatterTLV

/// The clusters of the hub's own node, endpoint 0 (Matter Core 9.5's root node, reduced to what a
/// device reaching the hub needs to read: it is not commissionable, so it has no commissioning
/// clusters; the OTA Provider joins these when the hub serves firmware). They are the shared
/// servers the virtual device serves too, with the hub's values.
enum HubNodeClusters {
    static let productName = "MatterHub"
    static let productID: UInt16 = 0x8001
    /// The release number a SoftwareVersion compares (matterhub/0.2 is 2).
    static let softwareVersion: UInt32 = 2

    /// Basic Information: who the hub is, so a device (or a tool) that reaches it can tell;
    /// `uniqueID` is stable per hub (its fabric and node).
    static func basicInformation(vendorID: UInt16, softwareVersionString: String, uniqueID: String) -> BasicInformationServer {
        BasicInformationServer(vendorName: "MatterHub", vendorID: vendorID, productName: productName, productID: productID,
                               hardwareVersion: 0, hardwareVersionString: "Linux", softwareVersion: softwareVersion,
                               softwareVersionString: softwareVersionString, uniqueID: uniqueID)
    }

    /// Access Control, as ``HubNode/allows`` enforces it: the hub's node administers itself, any
    /// node of its fabric may view it and operate its OTA Provider.
    static func accessControl(hubNodeID: UInt64, fabricIndex: UInt8) -> AccessControlServer {
        AccessControlServer(entries: [
            .init(privilege: .administer, authMode: .case, subjects: [hubNodeID], targets: nil, fabricIndex: fabricIndex),
            .init(privilege: .view, authMode: .case, subjects: nil, targets: nil, fabricIndex: fabricIndex),
            .init(privilege: .operate, authMode: .case, subjects: nil, targets: [.init(cluster: .otaSoftwareUpdateProvider)],
                  fabricIndex: fabricIndex),
        ])
    }

    /// Descriptor: a root node, and an OTA Provider when it serves firmware.
    static func descriptor(servers: [ClusterID], isOTAProvider: Bool) -> DescriptorServer {
        DescriptorServer(deviceTypes: [.rootNode] + (isOTAProvider ? [.otaProvider] : []), servers: ([.descriptor] + servers).sorted())
    }
}
