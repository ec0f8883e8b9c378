/// Cluster, attribute and command IDs the commissioner and the virtual device need, checked
/// against connectedhomeip's zap XML and matter.js's cluster models.
import MatterTLV

extension ClusterID {
    public static let onOff: ClusterID = 0x0006
    public static let levelControl: ClusterID = 0x0008
    public static let descriptor: ClusterID = 0x001D
    public static let accessControl: ClusterID = 0x001F
    public static let basicInformation: ClusterID = 0x0028
    public static let generalCommissioning: ClusterID = 0x0030
    public static let networkCommissioning: ClusterID = 0x0031
    public static let generalDiagnostics: ClusterID = 0x0033
    public static let administratorCommissioning: ClusterID = 0x003C
    public static let operationalCredentials: ClusterID = 0x003E
    public static let groupKeyManagement: ClusterID = 0x003F
}

/// Global attributes every cluster has (Matter Core 7.13).
extension AttributeID {
    public static let generatedCommandList: AttributeID = 0xFFF8
    public static let acceptedCommandList: AttributeID = 0xFFF9
    public static let eventList: AttributeID = 0xFFFA
    public static let attributeList: AttributeID = 0xFFFB
    public static let featureMap: AttributeID = 0xFFFC
    public static let clusterRevision: AttributeID = 0xFFFD
}

/// Named attribute and command IDs, one namespace per cluster.
public enum Clusters {
    public enum OnOff {
        public static let id = ClusterID.onOff
        public enum Attribute { public static let onOff: AttributeID = 0x0000 }
        public enum Command {
            public static let off: CommandID = 0x00
            public static let on: CommandID = 0x01
            public static let toggle: CommandID = 0x02
        }
    }

    public enum Descriptor {
        public static let id = ClusterID.descriptor
        public enum Attribute {
            public static let deviceTypeList: AttributeID = 0x0000
            public static let serverList: AttributeID = 0x0001
            public static let clientList: AttributeID = 0x0002
            public static let partsList: AttributeID = 0x0003
            public static let tagList: AttributeID = 0x0004
        }
    }

    public enum AccessControl {
        public static let id = ClusterID.accessControl
        public enum Attribute {
            public static let acl: AttributeID = 0x0000
            public static let extension_: AttributeID = 0x0001
            public static let subjectsPerAccessControlEntry: AttributeID = 0x0002
            public static let targetsPerAccessControlEntry: AttributeID = 0x0003
            public static let accessControlEntriesPerFabric: AttributeID = 0x0004
        }
    }

    public enum BasicInformation {
        public static let id = ClusterID.basicInformation
        public enum Attribute {
            public static let dataModelRevision: AttributeID = 0x0000
            public static let vendorName: AttributeID = 0x0001
            public static let vendorID: AttributeID = 0x0002
            public static let productName: AttributeID = 0x0003
            public static let productID: AttributeID = 0x0004
            public static let nodeLabel: AttributeID = 0x0005
            public static let location: AttributeID = 0x0006
            public static let hardwareVersion: AttributeID = 0x0007
            public static let hardwareVersionString: AttributeID = 0x0008
            public static let softwareVersion: AttributeID = 0x0009
            public static let softwareVersionString: AttributeID = 0x000A
            public static let manufacturingDate: AttributeID = 0x000B
            public static let partNumber: AttributeID = 0x000C
            public static let productURL: AttributeID = 0x000D
            public static let productLabel: AttributeID = 0x000E
            public static let serialNumber: AttributeID = 0x000F
            public static let localConfigDisabled: AttributeID = 0x0010
            public static let reachable: AttributeID = 0x0011
            public static let uniqueID: AttributeID = 0x0012
            public static let capabilityMinima: AttributeID = 0x0013
            public static let productAppearance: AttributeID = 0x0014
            public static let specificationVersion: AttributeID = 0x0015
            public static let maxPathsPerInvoke: AttributeID = 0x0016
        }
        public enum Event {
            public static let startUp: EventID = 0x00
            public static let shutDown: EventID = 0x01
        }
    }

    public enum GeneralCommissioning {
        public static let id = ClusterID.generalCommissioning
        public enum Attribute {
            public static let breadcrumb: AttributeID = 0x0000
            public static let basicCommissioningInfo: AttributeID = 0x0001
            public static let regulatoryConfig: AttributeID = 0x0002
            public static let locationCapability: AttributeID = 0x0003
            public static let supportsConcurrentConnection: AttributeID = 0x0004
        }
        public enum Command {
            public static let armFailSafe: CommandID = 0x00
            public static let armFailSafeResponse: CommandID = 0x01
            public static let setRegulatoryConfig: CommandID = 0x02
            public static let setRegulatoryConfigResponse: CommandID = 0x03
            public static let commissioningComplete: CommandID = 0x04
            public static let commissioningCompleteResponse: CommandID = 0x05
        }
    }

    public enum NetworkCommissioning {
        public static let id = ClusterID.networkCommissioning
        public enum Attribute {
            public static let maxNetworks: AttributeID = 0x0000
            public static let networks: AttributeID = 0x0001
            public static let scanMaxTimeSeconds: AttributeID = 0x0002
            public static let connectMaxTimeSeconds: AttributeID = 0x0003
            public static let interfaceEnabled: AttributeID = 0x0004
            public static let lastNetworkingStatus: AttributeID = 0x0005
            public static let lastNetworkID: AttributeID = 0x0006
            public static let lastConnectErrorValue: AttributeID = 0x0007
            public static let supportedWiFiBands: AttributeID = 0x0008
            public static let supportedThreadFeatures: AttributeID = 0x0009
            public static let threadVersion: AttributeID = 0x000A
        }
        public enum Command {
            public static let scanNetworks: CommandID = 0x00
            public static let scanNetworksResponse: CommandID = 0x01
            public static let addOrUpdateWiFiNetwork: CommandID = 0x02
            public static let addOrUpdateThreadNetwork: CommandID = 0x03
            public static let removeNetwork: CommandID = 0x04
            public static let networkConfigResponse: CommandID = 0x05
            public static let connectNetwork: CommandID = 0x06
            public static let connectNetworkResponse: CommandID = 0x07
            public static let reorderNetwork: CommandID = 0x08
            public static let queryIdentity: CommandID = 0x09
            public static let queryIdentityResponse: CommandID = 0x0A
        }
    }

    public enum AdministratorCommissioning {
        public static let id = ClusterID.administratorCommissioning
        public enum Attribute {
            public static let windowStatus: AttributeID = 0x0000
            public static let adminFabricIndex: AttributeID = 0x0001
            public static let adminVendorID: AttributeID = 0x0002
        }
        public enum Command {
            public static let openCommissioningWindow: CommandID = 0x00
            public static let openBasicCommissioningWindow: CommandID = 0x01
            public static let revokeCommissioning: CommandID = 0x02
        }
        /// CommissioningWindowStatusEnum.
        public enum WindowStatus: UInt8, Sendable {
            case windowNotOpen = 0
            case enhancedWindowOpen = 1
            case basicWindowOpen = 2
        }
        /// Cluster-specific status codes (StatusCodeEnum).
        public enum StatusCode {
            public static let busy: UInt8 = 2
            public static let pakeParameterError: UInt8 = 3
            public static let windowNotOpen: UInt8 = 4
        }
    }

    public enum OperationalCredentials {
        public static let id = ClusterID.operationalCredentials
        public enum Attribute {
            public static let nocs: AttributeID = 0x0000
            public static let fabrics: AttributeID = 0x0001
            public static let supportedFabrics: AttributeID = 0x0002
            public static let commissionedFabrics: AttributeID = 0x0003
            public static let trustedRootCertificates: AttributeID = 0x0004
            public static let currentFabricIndex: AttributeID = 0x0005
        }
        public enum Command {
            public static let attestationRequest: CommandID = 0x00
            public static let attestationResponse: CommandID = 0x01
            public static let certificateChainRequest: CommandID = 0x02
            public static let certificateChainResponse: CommandID = 0x03
            public static let csrRequest: CommandID = 0x04
            public static let csrResponse: CommandID = 0x05
            public static let addNOC: CommandID = 0x06
            public static let updateNOC: CommandID = 0x07
            public static let nocResponse: CommandID = 0x08
            public static let updateFabricLabel: CommandID = 0x09
            public static let removeFabric: CommandID = 0x0A
            public static let addTrustedRootCertificate: CommandID = 0x0B
        }
    }

    public enum GroupKeyManagement {
        public static let id = ClusterID.groupKeyManagement
        public enum Attribute {
            public static let groupKeyMap: AttributeID = 0x0000
            public static let groupTable: AttributeID = 0x0001
            public static let maxGroupsPerFabric: AttributeID = 0x0002
            public static let maxGroupKeysPerFabric: AttributeID = 0x0003
        }
        public enum Command {
            public static let keySetWrite: CommandID = 0x00
            public static let keySetRead: CommandID = 0x01
            public static let keySetReadResponse: CommandID = 0x02
            public static let keySetRemove: CommandID = 0x03
            public static let keySetReadAllIndices: CommandID = 0x04
            public static let keySetReadAllIndicesResponse: CommandID = 0x05
        }
    }
}
