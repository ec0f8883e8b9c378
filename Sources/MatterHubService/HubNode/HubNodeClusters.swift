import MatterClusters
import MatterInteraction
import MatterTLV

/// The clusters of the hub's own node, endpoint 0 (Matter Core 9.5's root node, reduced to what a
/// device reaching the hub needs to read: it is not commissionable, so it has no commissioning
/// clusters; the OTA Provider joins these when the hub serves firmware).

/// Descriptor (Matter Core 9.5): the root node device type and the servers of the endpoint.
struct HubDescriptorServer: ClusterServer {
    typealias A = Clusters.Descriptor.Attribute
    let id = ClusterID.descriptor
    let revision: UInt16 = 2
    let attributes = [A.deviceTypeList, A.serverList, A.clientList, A.partsList]
    /// The endpoint's other servers (and this one).
    let servers: [ClusterID]
    /// Whether the node is also an OTA Provider (device type 0x0014).
    var isOTAProvider = false

    static let rootNodeDeviceType: UInt32 = 0x0016
    static let otaProviderDeviceType: UInt32 = 0x0014

    func read(_ attribute: AttributeID, context: IMSessionContext) async throws(IMStatus) -> TLVElement {
        switch attribute {
        case A.deviceTypeList:
            var types: [TLVElement] = [.structure([.unsigned(.context(0), Self.rootNodeDeviceType), .unsigned(.context(1), UInt16(3))])]
            if isOTAProvider { types.append(.structure([.unsigned(.context(0), Self.otaProviderDeviceType), .unsigned(.context(1), UInt16(1))])) }
            return .array(types)
        case A.serverList: return .array(servers.sorted().map { .unsigned($0.rawValue) })
        case A.clientList, A.partsList: return .array([])
        default: throw .unsupportedAttribute
        }
    }
}

/// Basic Information (Matter Core 11.1): who the hub is, so a device (or a tool) that reaches it
/// can tell.
struct HubBasicInformationServer: ClusterServer {
    typealias A = Clusters.BasicInformation.Attribute
    let id = ClusterID.basicInformation
    let revision: UInt16 = 4
    let attributes = [A.dataModelRevision, A.vendorName, A.vendorID, A.productName, A.productID, A.nodeLabel, A.location,
                      A.hardwareVersion, A.hardwareVersionString, A.softwareVersion, A.softwareVersionString, A.uniqueID,
                      A.capabilityMinima, A.specificationVersion, A.maxPathsPerInvoke]
    let vendorID: UInt16
    let softwareVersionString: String
    /// Stable per hub: its fabric and node.
    let uniqueID: String

    static let productName = "MatterHub"
    static let productID: UInt16 = 0x8001
    /// The release number a SoftwareVersion compares (matterhub/0.2 is 2).
    static let softwareVersion: UInt32 = 2

    func read(_ attribute: AttributeID, context: IMSessionContext) async throws(IMStatus) -> TLVElement {
        switch attribute {
        case A.dataModelRevision: return .unsigned(UInt16(17))
        case A.vendorName: return .utf8("MatterHub")
        case A.vendorID: return .unsigned(vendorID)
        case A.productName: return .utf8(Self.productName)
        case A.productID: return .unsigned(Self.productID)
        case A.nodeLabel: return .utf8("")
        case A.location: return .utf8("XX")
        case A.hardwareVersion: return .unsigned(UInt16(0))
        case A.hardwareVersionString: return .utf8("Linux")
        case A.softwareVersion: return .unsigned(Self.softwareVersion)
        case A.softwareVersionString: return .utf8(softwareVersionString)
        case A.uniqueID: return .utf8(uniqueID)
        case A.capabilityMinima: return .structure([.unsigned(.context(0), UInt16(3)), .unsigned(.context(1), UInt16(3))])
        case A.specificationVersion: return .unsigned(UInt32(0x0104_0000))  // Matter 1.4
        case A.maxPathsPerInvoke: return .unsigned(UInt16(1))
        default: throw .unsupportedAttribute
        }
    }
}

/// Access Control (Matter Core 9.10), read-only: the hub's node administers itself and lets any
/// node of its fabric view it. The ACL says so, and ``HubNode/allows`` enforces it.
struct HubAccessControlServer: ClusterServer {
    typealias A = Clusters.AccessControl.Attribute
    let id = ClusterID.accessControl
    let revision: UInt16 = 2
    let attributes = [A.acl, A.subjectsPerAccessControlEntry, A.targetsPerAccessControlEntry, A.accessControlEntriesPerFabric]
    let hubNodeID: UInt64
    let fabricIndex: UInt8

    var entries: [Clusters.AccessControl.Entry] {
        [.init(privilege: .administer, authMode: .case, subjects: [hubNodeID], targets: nil, fabricIndex: fabricIndex),
         .init(privilege: .view, authMode: .case, subjects: nil, targets: nil, fabricIndex: fabricIndex),
         .init(privilege: .operate, authMode: .case, subjects: nil, targets: [.init(cluster: .otaSoftwareUpdateProvider)],
               fabricIndex: fabricIndex)]
    }

    func read(_ attribute: AttributeID, context: IMSessionContext) async throws(IMStatus) -> TLVElement {
        switch attribute {
        case A.acl: return .array(entries.filter { $0.fabricIndex == context.fabricIndex }.map { $0.element(tag: .anonymous) })
        case A.subjectsPerAccessControlEntry: return .unsigned(UInt16(4))
        case A.targetsPerAccessControlEntry: return .unsigned(UInt16(3))
        case A.accessControlEntriesPerFabric: return .unsigned(UInt16(4))
        default: throw .unsupportedAttribute
        }
    }
}
