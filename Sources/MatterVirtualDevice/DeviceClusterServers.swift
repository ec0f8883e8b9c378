import MatterClusters
import MatterInteraction
import MatterMessaging
import MatterNetworkCredentials
import MatterTLV

/// The virtual device's clusters as ``ClusterServer`` values: each declares its cluster (what
/// ``DeviceDataModel`` composes into endpoints) and answers its reads and writes; ``DeviceCore``
/// builds them from its state for each access (``DeviceCore/server(_:_:)``), and keeps what a
/// write changed. Commands that reach across clusters or the node (the fail-safe, fabrics,
/// windows, On/Off with Level Control) run in `DeviceCore+Commands.swift`.

/// A server whose values cannot be read outside a live device (a prototype's, for declarations).
private func value(_ v: TLVElement?) throws(IMStatus) -> TLVElement {
    guard let v else { throw .unsupportedAttribute }
    return v
}

// MARK: Application clusters

/// On/Off (Matter Application Clusters 1.5) of a light, a plug or a bridged light.
struct OnOffServer: ClusterServer {
    typealias OnOff = Clusters.OnOff
    let id = ClusterID.onOff
    let revision: UInt16 = 6
    let attributes = [OnOff.Attribute.onOff]
    let acceptedCommands = [OnOff.Command.off, OnOff.Command.on, OnOff.Command.toggle]
    var on = false

    func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) throws(IMStatus) -> TLVElement {
        try value(attribute == OnOff.Attribute.onOff ? .bool(on) : nil)
    }
}

extension LevelState: ClusterServer {
    /// Level Control with the OnOff and Lighting features, as a Dimmable Light has it.
    var id: ClusterID { .levelControl }
    var revision: UInt16 { 5 }
    var featureMap: UInt32 { Clusters.LevelControl.Feature([.onOff, .lighting]).rawValue }
    var attributes: [AttributeID] { Self.attributeIDs }
    var writableAttributes: [AttributeID] { Self.writableIDs }
    var acceptedCommands: [CommandID] { Self.commandIDs }

    func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) throws(IMStatus) -> TLVElement {
        try value(self.attribute(attribute))
    }

    mutating func write(_ attribute: AttributeID, value: TLVElement, listIndex: ListIndex?, context: IMSessionContext) throws(IMStatus) {
        try write(attribute, value)
    }
}

/// Thermostat with Heating, Cooling and Presets (`--kind thermostat`), at the device's time.
struct ThermostatServer: ClusterServer {
    let id = ClusterID.thermostat
    let revision: UInt16 = 8
    let featureMap = ThermostatState.featureMap
    let attributes = ThermostatState.attributeIDs
    let writableAttributes = ThermostatState.writableIDs
    let acceptedCommands = ThermostatState.acceptedCommands
    let generatedCommands = ThermostatState.generatedCommands
    var state: ThermostatState
    let now: Milliseconds

    func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) throws(IMStatus) -> TLVElement {
        try value(state.attribute(attribute, now: now))
    }

    mutating func write(_ attribute: AttributeID, value: TLVElement, listIndex: ListIndex?, context: IMSessionContext) throws(IMStatus) {
        try state.write(attribute, value, listIndex: listIndex, context: context, now: now)
    }
}

/// A bridged light's BridgedDeviceBasicInformation: names, reachability, a unique ID.
struct BridgedDeviceBasicInformationServer: ClusterServer {
    typealias B = Clusters.BridgedDeviceBasicInformation.Attribute
    let id = ClusterID.bridgedDeviceBasicInformation
    let revision: UInt16 = 4
    let attributes = [B.vendorName, B.productName, B.nodeLabel, B.reachable, B.uniqueID]
    let writableAttributes = [B.nodeLabel]
    /// The light's number on the bridge, from 1.
    var number = 1
    var bridgeSerial = "MH"
    /// What a client named it (nil: "Light N").
    var label: String?

    func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) throws(IMStatus) -> TLVElement {
        switch attribute {
        case B.vendorName: return .utf8("MatterHub")
        case B.productName: return .utf8("MatterHub Bridged Light")
        case B.nodeLabel: return .utf8(label ?? "Light \(number)")
        case B.reachable: return .bool(true)
        case B.uniqueID: return .utf8("\(bridgeSerial)-\(number)")
        default: throw .unsupportedAttribute
        }
    }

    mutating func write(_ attribute: AttributeID, value: TLVElement, listIndex: ListIndex?, context: IMSessionContext) throws(IMStatus) {
        guard attribute == B.nodeLabel else { throw .unsupportedWrite }
        guard case .utf8(let s) = value.value else { throw .invalidDataType }
        guard s.utf8.count <= 32 else { throw .constraintError }
        label = s
    }
}

// MARK: Root node clusters

/// General Commissioning (Matter Core 11.10): the breadcrumb, the regulatory configuration and
/// the fail-safe's bounds; its commands are the fail-safe's (`DeviceCore+Commands.swift`).
struct GeneralCommissioningServer: ClusterServer {
    typealias GC = Clusters.GeneralCommissioning
    let id = ClusterID.generalCommissioning
    let revision: UInt16 = 1
    let attributes = [GC.Attribute.breadcrumb, GC.Attribute.basicCommissioningInfo, GC.Attribute.regulatoryConfig,
                      GC.Attribute.locationCapability, GC.Attribute.supportsConcurrentConnection]
    let writableAttributes = [GC.Attribute.breadcrumb]
    let acceptedCommands = [GC.Command.armFailSafe, GC.Command.setRegulatoryConfig, GC.Command.commissioningComplete]
    let generatedCommands = [GC.Command.armFailSafeResponse, GC.Command.setRegulatoryConfigResponse,
                             GC.Command.commissioningCompleteResponse]
    var breadcrumb: UInt64 = 0
    var regulatoryConfig: UInt8 = 0

    func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) throws(IMStatus) -> TLVElement {
        switch attribute {
        case GC.Attribute.breadcrumb: return .unsigned(breadcrumb)
        case GC.Attribute.basicCommissioningInfo:
            return .structure([.unsigned(.context(0), DeviceCore.failSafeExpiryLengthSeconds),
                               .unsigned(.context(1), DeviceCore.maxCumulativeFailsafeSeconds)])
        case GC.Attribute.regulatoryConfig: return .unsigned(regulatoryConfig)
        case GC.Attribute.locationCapability: return .unsigned(GC.RegulatoryLocationType.indoorOutdoor.rawValue)
        case GC.Attribute.supportsConcurrentConnection: return .bool(true)
        default: throw .unsupportedAttribute
        }
    }

    mutating func write(_ attribute: AttributeID, value: TLVElement, listIndex: ListIndex?, context: IMSessionContext) throws(IMStatus) {
        guard attribute == GC.Attribute.breadcrumb else { throw .unsupportedWrite }
        guard let v = try? value.unsigned(as: UInt64.self) else { throw .invalidDataType }
        breadcrumb = v
    }
}

/// Network Commissioning (Matter Core 11.9): Ethernet, or the simulated Wi-Fi or Thread radio.
struct NetworkCommissioningServer: ClusterServer {
    typealias A = Clusters.NetworkCommissioning.Attribute
    let id = ClusterID.networkCommissioning
    let revision: UInt16 = 1
    let network: VirtualDeviceConfiguration.Network?
    var radio: SimulatedNetworkInterface?
    /// InterfaceEnabled as written: kept and shown, but the simulated interface stays up (the
    /// device's only way to its controller).
    var interfaceEnabled = true
    var writableAttributes: [AttributeID] { [A.interfaceEnabled] }

    var featureMap: UInt32 { network == .wifi ? 0x1 : network == .thread ? 0x2 : 0x4 }
    var attributes: [AttributeID] {
        network == nil ? [A.maxNetworks, A.networks, A.interfaceEnabled, A.lastNetworkingStatus, A.lastNetworkID, A.lastConnectErrorValue]
            : SimulatedNetworkInterface.attributeIDs
    }
    var acceptedCommands: [CommandID] { network.map(SimulatedNetworkInterface.acceptedCommands) ?? [] }
    var generatedCommands: [CommandID] { network == nil ? [] : SimulatedNetworkInterface.generatedCommands }

    func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) throws(IMStatus) -> TLVElement {
        if attribute == A.interfaceEnabled { return .bool(interfaceEnabled) }
        if network != nil { return try value(radio?.attribute(attribute)) }
        switch attribute {
        case A.maxNetworks: return .unsigned(UInt8(1))
        case A.networks: return .array([.structure([.bytes(.context(0), Array("eth0".utf8)), .bool(.context(1), true)])])
        case A.lastNetworkingStatus, A.lastNetworkID, A.lastConnectErrorValue: return .null(.anonymous)
        default: throw .unsupportedAttribute
        }
    }

    mutating func write(_ attribute: AttributeID, value: TLVElement, listIndex: ListIndex?, context: IMSessionContext) throws(IMStatus) {
        guard attribute == A.interfaceEnabled else { throw .unsupportedWrite }
        guard case .bool(let on) = value.value else { throw .invalidDataType }
        interfaceEnabled = on
    }
}

/// General Diagnostics (Matter Core 11.12), its mandatory attributes: NetworkInterfaces,
/// RebootCount, UpTime, TestEventTriggersEnabled (never enabled: no test event triggers here).
struct GeneralDiagnosticsServer: ClusterServer {
    typealias A = Clusters.GeneralDiagnostics.Attribute
    let id = ClusterID.generalDiagnostics
    let revision: UInt16 = 2
    let attributes = [A.networkInterfaces, A.rebootCount, A.upTime, A.testEventTriggersEnabled]
    var networkInterface: TLVElement = .structure([])
    var rebootCount: UInt16 = 0
    var upTimeSeconds: UInt64 = 0

    func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) throws(IMStatus) -> TLVElement {
        switch attribute {
        case A.networkInterfaces: return .array([networkInterface])
        case A.rebootCount: return .unsigned(rebootCount)
        case A.upTime: return .unsigned(upTimeSeconds)
        case A.testEventTriggersEnabled: return .bool(false)
        default: throw .unsupportedAttribute
        }
    }
}

/// Thread Network Diagnostics of the simulated radio (what a hub's network map is drawn from).
struct ThreadNetworkDiagnosticsServer: ClusterServer {
    let id = ClusterID.threadNetworkDiagnostics
    let revision: UInt16 = 2
    let attributes = RadioDiagnostics.threadAttributes
    var diagnostics: RadioDiagnostics
    var dataset: ThreadDataset?

    func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) throws(IMStatus) -> TLVElement {
        try value(diagnostics.thread(attribute, dataset: dataset))
    }
}

/// Wi-Fi Network Diagnostics of the simulated radio.
struct WiFiNetworkDiagnosticsServer: ClusterServer {
    let id = ClusterID.wiFiNetworkDiagnostics
    let revision: UInt16 = 1
    let attributes = RadioDiagnostics.wifiAttributes
    var diagnostics: RadioDiagnostics
    var connected = false

    func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) throws(IMStatus) -> TLVElement {
        try value(diagnostics.wifi(attribute, connected: connected))
    }
}

/// Administrator Commissioning (Matter Core 11.19): the window's status and who opened it; its
/// commands open and close the device's windows (`DeviceCore+Commands.swift`), timed.
struct AdministratorCommissioningServer: ClusterServer {
    typealias AC = Clusters.AdministratorCommissioning
    let id = ClusterID.administratorCommissioning
    let revision: UInt16 = 1
    let featureMap: UInt32 = 0x1
    let attributes = [AC.Attribute.windowStatus, AC.Attribute.adminFabricIndex, AC.Attribute.adminVendorId]
    let acceptedCommands = [AC.Command.openCommissioningWindow, AC.Command.openBasicCommissioningWindow, AC.Command.revokeCommissioning]
    var timedCommands: [CommandID] { acceptedCommands }
    var window: CommissioningWindow.Kind?
    var admin: (fabric: UInt8, vendor: UInt16)?

    func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) throws(IMStatus) -> TLVElement {
        switch attribute {
        case AC.Attribute.windowStatus:
            let status: AC.CommissioningWindowStatusEnum = switch window {
            case nil: .windowNotOpen
            case .basic?: .basicWindowOpen
            case .enhanced?: .enhancedWindowOpen
            }
            return .unsigned(status.rawValue)
        case AC.Attribute.adminFabricIndex: return admin.map { .unsigned($0.fabric) } ?? .null(.anonymous)
        case AC.Attribute.adminVendorId: return admin.map { .unsigned($0.vendor) } ?? .null(.anonymous)
        default: throw .unsupportedAttribute
        }
    }
}

/// Operational Credentials (Matter Core 11.18): the fabrics, their NOCs (to their own fabric
/// only) and the roots; its commands are commissioning's (`DeviceCore+Commands.swift`).
struct OperationalCredentialsServer: ClusterServer {
    typealias OC = Clusters.OperationalCredentials
    let id = ClusterID.operationalCredentials
    let revision: UInt16 = 1
    let attributes = [OC.Attribute.nocs, OC.Attribute.fabrics, OC.Attribute.supportedFabrics, OC.Attribute.commissionedFabrics,
                      OC.Attribute.trustedRootCertificates, OC.Attribute.currentFabricIndex]
    let acceptedCommands = [OC.Command.attestationRequest, OC.Command.certificateChainRequest, OC.Command.csrRequest,
                            OC.Command.addNOC, OC.Command.updateFabricLabel, OC.Command.removeFabric,
                            OC.Command.addTrustedRootCertificate]
    let generatedCommands = [OC.Command.attestationResponse, OC.Command.certificateChainResponse, OC.Command.csrResponse,
                             OC.Command.nocResponse]
    /// Every fabric, the one a fail-safe staged among them.
    var fabrics: [FabricRecord] = []
    var committedCount = 0
    /// A root AddTrustedRootCertificate staged.
    var pendingRoot: [UInt8]?

    func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) throws(IMStatus) -> TLVElement {
        let fabric = context.fabricIndex
        switch attribute {
        case OC.Attribute.nocs:
            // NOCs are fabric-sensitive: only the accessing fabric's are ever shown.
            return .array(fabrics.filter { $0.index == fabric }.map { f in
                .structure([.bytes(.context(1), f.noc), f.icac.map { .bytes(.context(2), $0) } ?? .null(.context(2)),
                            .unsigned(.context(0xFE), f.index)])
            })
        case OC.Attribute.fabrics:
            return .array(fabrics.filter { !fabricFiltered || $0.index == fabric }.map { f in
                .structure([.bytes(.context(1), f.rootPublicKey), .unsigned(.context(2), f.vendorID),
                            .unsigned(.context(3), f.fabricID), .unsigned(.context(4), f.nodeID),
                            .utf8(.context(5), f.label), .unsigned(.context(0xFE), f.index)])
            })
        case OC.Attribute.supportedFabrics: return .unsigned(UInt8(DeviceCore.supportedFabrics))
        case OC.Attribute.commissionedFabrics: return .unsigned(UInt8(committedCount))
        case OC.Attribute.trustedRootCertificates:
            var roots = fabrics.map(\.rcac)
            if let pendingRoot, !roots.contains(pendingRoot) { roots.append(pendingRoot) }
            return .array(roots.map { .bytes($0) })
        case OC.Attribute.currentFabricIndex: return .unsigned(fabric ?? 0)
        default: throw .unsupportedAttribute
        }
    }
}

extension OTARequestorState: ClusterServer {
    /// OTA Software Update Requestor (Matter Core 11.20.7), with `--software-version`.
    typealias R = Clusters.OtaSoftwareUpdateRequestor
    var id: ClusterID { .otaSoftwareUpdateRequestor }
    var revision: UInt16 { 1 }
    var attributes: [AttributeID] { Self.attributeIDs }
    var writableAttributes: [AttributeID] { [R.Attribute.defaultOTAProviders] }
    var acceptedCommands: [CommandID] { [R.Command.announceOTAProvider] }
    var events: [EventID] { [R.Event.stateTransition, R.Event.versionApplied, R.Event.downloadError] }

    func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) throws(IMStatus) -> TLVElement {
        try value(self.attribute(attribute, fabricIndex: fabricFiltered ? context.fabricIndex : nil))
    }

    mutating func write(_ attribute: AttributeID, value: TLVElement, listIndex: ListIndex?, context: IMSessionContext) throws(IMStatus) {
        guard attribute == R.Attribute.defaultOTAProviders else { throw .unsupportedWrite }
        guard let fabric = context.fabricIndex else { throw .unsupportedAccess }
        try writeDefaultProviders(value, appending: listIndex == .append, fabricIndex: fabric)
    }
}

extension ICDManagementState: ClusterServer {
    /// ICD Management (Matter Core 9.16), with `--icd`: SIT supports the Check-In Protocol, LIT also
    /// a user trigger and the long idle time (and StayActiveRequest).
    var id: ClusterID { .icdManagement }
    var revision: UInt16 { 3 }
    var attributes: [AttributeID] { Self.attributeIDs }
    var acceptedCommands: [CommandID] {
        [C.registerClient, C.unregisterClient] + (configuration.mode == .lit ? [C.stayActiveRequest] : [])
    }
    var generatedCommands: [CommandID] { [C.registerClientResponse] + (configuration.mode == .lit ? [C.stayActiveResponse] : []) }

    func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) throws(IMStatus) -> TLVElement {
        try value(self.attribute(attribute, fabricIndex: fabricFiltered ? context.fabricIndex : nil))
    }
}
