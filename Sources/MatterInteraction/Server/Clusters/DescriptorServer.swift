import MatterClusters
import MatterTLV

/// Descriptor (Matter Core 9.5): what an endpoint is (its device types) and holds (its servers,
/// clients and, on the root or an aggregator, its parts).
public struct DescriptorServer: ClusterServer {
    typealias A = Clusters.Descriptor.Attribute

    /// A DeviceTypeStruct: a device type and its revision.
    public struct DeviceType: Hashable, Sendable {
        public var id: UInt32
        public var revision: UInt16
        public init(_ id: UInt32, revision: UInt16) {
            self.id = id
            self.revision = revision
        }
        public static let rootNode = DeviceType(0x0016, revision: 3)
        public static let otaProvider = DeviceType(0x0014, revision: 1)
        public static let onOffLight = DeviceType(0x0100, revision: 3)
        public static let bridgedNode = DeviceType(0x0013, revision: 3)
    }

    public let id = ClusterID.descriptor
    public let revision: UInt16 = 2
    public static let attributeIDs = [A.deviceTypeList, A.serverList, A.clientList, A.partsList]
    public var attributes: [AttributeID] { Self.attributeIDs }
    public var deviceTypes: [DeviceType]
    /// The endpoint's servers, this one among them, in the order ServerList gives them.
    public var servers: [ClusterID]
    public var clients: [ClusterID]
    public var parts: [EndpointID]

    public init(deviceTypes: [DeviceType], servers: [ClusterID], clients: [ClusterID] = [], parts: [EndpointID] = []) {
        self.deviceTypes = deviceTypes
        self.servers = servers
        self.clients = clients
        self.parts = parts
    }

    public func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) async throws(IMStatus) -> TLVElement {
        switch attribute {
        case A.deviceTypeList:
            return .array(deviceTypes.map { .structure([.unsigned(.context(0), $0.id), .unsigned(.context(1), $0.revision)]) })
        case A.serverList: return .array(servers.map { .unsigned($0.rawValue) })
        case A.clientList: return .array(clients.map { .unsigned($0.rawValue) })
        case A.partsList: return .array(parts.map { .unsigned($0.rawValue) })
        default: throw .unsupportedAttribute
        }
    }
}
