import MatterClusters
import MatterTLV

/// Basic Information (Matter Core 11.1): who the node is. NodeLabel and Location are writable
/// (the owner persists them); the rest is what the node was made with.
public struct BasicInformationServer: ClusterServer {
    typealias A = Clusters.BasicInformation.Attribute

    public let id = ClusterID.basicInformation
    public let revision: UInt16 = 4
    public var vendorName: String
    public var vendorID: UInt16
    public var productName: String
    public var productID: UInt16
    public var nodeLabel = ""
    /// An ISO 3166-1 alpha-2 code, or "XX" (unknown).
    public var location = "XX"
    public var hardwareVersion: UInt16
    public var hardwareVersionString: String
    public var softwareVersion: UInt32
    public var softwareVersionString: String
    /// Optional: not in the attribute list when nil.
    public var serialNumber: String?
    public var uniqueID: String
    /// The Matter version it implements, 0xMMmm0000 (1.4 is 0x01040000).
    public var specificationVersion: UInt32 = 0x0104_0000
    public var maxPathsPerInvoke: UInt16 = 1
    /// ConfigurationVersion (Matter 1.4): moves when the node's configuration changes (its
    /// endpoints, a firmware that changes its clusters).
    public var configurationVersion: UInt32 = 1
    public var events: [EventID] = []

    public init(vendorName: String, vendorID: UInt16, productName: String, productID: UInt16, hardwareVersion: UInt16,
                hardwareVersionString: String, softwareVersion: UInt32, softwareVersionString: String, uniqueID: String) {
        self.vendorName = vendorName
        self.vendorID = vendorID
        self.productName = productName
        self.productID = productID
        self.hardwareVersion = hardwareVersion
        self.hardwareVersionString = hardwareVersionString
        self.softwareVersion = softwareVersion
        self.softwareVersionString = softwareVersionString
        self.uniqueID = uniqueID
    }

    public var attributes: [AttributeID] {
        [A.dataModelRevision, A.vendorName, A.vendorID, A.productName, A.productID, A.nodeLabel, A.location, A.hardwareVersion,
         A.hardwareVersionString, A.softwareVersion, A.softwareVersionString] + (serialNumber == nil ? [] : [A.serialNumber])
            + [A.uniqueID, A.capabilityMinima, A.specificationVersion, A.maxPathsPerInvoke, A.configurationVersion]
    }
    public var writableAttributes: [AttributeID] { [A.nodeLabel, A.location] }

    public func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) async throws(IMStatus) -> TLVElement {
        switch attribute {
        case A.dataModelRevision: return .unsigned(UInt16(17))
        case A.vendorName: return .utf8(vendorName)
        case A.vendorID: return .unsigned(vendorID)
        case A.productName: return .utf8(productName)
        case A.productID: return .unsigned(productID)
        case A.nodeLabel: return .utf8(nodeLabel)
        case A.location: return .utf8(location)
        case A.hardwareVersion: return .unsigned(hardwareVersion)
        case A.hardwareVersionString: return .utf8(hardwareVersionString)
        case A.softwareVersion: return .unsigned(softwareVersion)
        case A.softwareVersionString: return .utf8(softwareVersionString)
        case A.serialNumber: if let serialNumber { return .utf8(serialNumber) } else { throw .unsupportedAttribute }
        case A.uniqueID: return .utf8(uniqueID)
        // CaseSessionsPerFabric and SubscriptionsPerFabric: the spec's minimum, 3 each.
        case A.capabilityMinima: return .structure([.unsigned(.context(0), UInt16(3)), .unsigned(.context(1), UInt16(3))])
        case A.specificationVersion: return .unsigned(specificationVersion)
        case A.maxPathsPerInvoke: return .unsigned(maxPathsPerInvoke)
        case A.configurationVersion: return .unsigned(configurationVersion)
        default: throw .unsupportedAttribute
        }
    }

    public mutating func write(_ attribute: AttributeID, value: TLVElement, listIndex: ListIndex?,
                               context: IMSessionContext) throws(IMStatus) {
        guard case .utf8(let s) = value.value else { throw .invalidDataType }
        switch attribute {
        case A.nodeLabel:
            guard s.utf8.count <= 32 else { throw .constraintError }
            nodeLabel = s
        case A.location:
            guard s.utf8.count == 2 else { throw .constraintError }
            location = s
        default: throw .unsupportedWrite
        }
    }
}
