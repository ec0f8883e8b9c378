import MatterClusters
import MatterHome
import MatterInteraction
import MatterOTA
import MatterServerAPI
import MatterTLV

/// `check_node_update` and `update_node` (python-matter-server's shapes) from the images the hub
/// offers (`matterctl ota add`): a node has an update when the store holds a newer image for its
/// vendor and product that applies to the version it runs; installing it tells the node, through
/// its OTA Software Update Requestor (AnnounceOTAProvider), to ask the hub's OTA Provider, from
/// which it downloads the image over BDX. Its progress shows in its UpdateState attributes (0/42/2, 0/42/3).
extension HubService {
    typealias Basic = Clusters.BasicInformation.Attribute

    /// What the node says it runs: vendor, product and software version from its Basic Information.
    func installedSoftware(_ id: NodeID, for command: String) async throws(APIError) -> (vendor: UInt16, product: UInt16, version: UInt32) {
        guard (try? hub.store.node(id)) != nil else { throw APIError(.nodeNotExists, "Node \(id.rawValue) does not exist") }
        let cache = await runtime.attributes(of: id)
        func value<T: FixedWidthInteger & UnsignedInteger>(_ attribute: AttributeID, _: T.Type) -> T? {
            try? cache[ConcreteAttributePath(0, .basicInformation, attribute)]?.unsigned(as: T.self)
        }
        guard let vendor = value(Basic.vendorID, UInt16.self), let product = value(Basic.productID, UInt16.self),
              let version = value(Basic.softwareVersion, UInt32.self) else {
            throw APIError(.updateCheckError, "\(command): node \(id.rawValue) has not reported its vendor, product and software version yet; "
                           + "try again once it is available")
        }
        return (vendor, product, version)
    }

    /// The newest stored image that can update the node, if any.
    func availableUpdate(_ id: NodeID, for command: String) async throws(APIError) -> OTAImageStore.Image? {
        let installed = try await installedSoftware(id, for: command)
        return node.imageStore?.best(vendorID: installed.vendor, productID: installed.product, currentVersion: installed.version)
    }

    /// python-matter-server's MatterSoftwareVersion for a stored image (update_source "local").
    static func softwareVersionJSON(_ image: OTAImageStore.Image) -> JSONValue {
        let h = image.header
        return .object([
            "vid": .integer(h.vendorID), "pid": .integer(h.productID),
            "software_version": .integer(h.softwareVersion), "software_version_string": .string(h.softwareVersionString),
            "firmware_information": .null,
            "min_applicable_software_version": .integer(h.minApplicableVersion ?? 0),
            "max_applicable_software_version": .integer(h.maxApplicableVersion ?? h.softwareVersion &- 1),
            "release_notes_url": h.releaseNotesURL.map { .string($0) } ?? .null,
            "update_source": .string("local"),
        ])
    }

    public var otaUploadDirectory: String? { node.imageStore.map { $0.directory + "/uploads" } }

    /// An uploaded image (`POST /ota-upload/<id>`), checked and added as `matterctl ota add` does.
    public func importOTAImage(atPath path: String) async throws(APIError) -> JSONValue {
        guard let store = node.imageStore else { throw APIError(.otaUploadError, "This hub takes no firmware images") }
        do {
            let image = try store.add(path: path)
            let h = image.header
            logger("hub: uploaded OTA image stored as \(image.name) (version \(h.softwareVersion) \"\(h.softwareVersionString)\")")
            return Self.softwareVersionJSON(image)
        } catch {
            throw APIError(.otaUploadError, "The uploaded image was refused: \(error.description)")
        }
    }

    func checkNodeUpdate(_ id: NodeID) async throws(APIError) -> JSONValue {
        try await availableUpdate(id, for: "check_node_update").map(Self.softwareVersionJSON) ?? .null
    }

    /// Tells the node to fetch `version` from the hub: AnnounceOTAProvider with reason
    /// UpdateAvailable, naming the hub's node on endpoint 0.
    func updateNode(_ id: NodeID, to version: SoftwareVersion) async throws(APIError) -> JSONValue {
        guard let image = try await availableUpdate(id, for: "update_node") else {
            throw APIError(.updateError, "update_node: the hub has no newer image for node \(id.rawValue); add one with 'matterctl ota add FILE'")
        }
        let asked: Bool = switch version {
        case .number(let n): n == image.header.softwareVersion
        case .string(let s): s == image.header.softwareVersionString || s == String(image.header.softwareVersion)
        }
        guard asked else {
            throw APIError(.updateError, "update_node: the hub offers version \(image.header.softwareVersion) "
                           + "(\(image.header.softwareVersionString)) for node \(id.rawValue), not \(version.text)")
        }
        let requestor = await runtime.attributes(of: id).keys.contains { $0.endpoint == 0 && $0.cluster == .otaSoftwareUpdateRequestor }
        guard requestor else {
            throw APIError(.updateError, "update_node: node \(id.rawValue) has no OTA Software Update Requestor cluster, so it cannot "
                           + "be updated over Matter; update it with its vendor's app")
        }
        try await requireReadyNode(id)
        typealias T = Clusters.OtaSoftwareUpdateRequestor.AnnounceOTAProviderTag
        let fields = TLVElement.structure([
            .unsigned(.context(T.providerNodeID), await node.nodeID),
            .unsigned(.context(T.vendorID), (try? await hub.fabric().vendorID) ?? 0xFFF1),
            .unsigned(.context(T.announcementReason), UInt8(1)),  // UpdateAvailable
            .unsigned(.context(T.endpoint), UInt16(0)),
        ])
        let client = try await client(id)
        let path = CommandPathIB(0, .otaSoftwareUpdateRequestor, Clusters.OtaSoftwareUpdateRequestor.Command.announceOTAProvider)
        let result: InvokeResult
        do { result = try await client.invoke(commandPath: path, fields: fields) } catch {
            throw APIError.device(error, "AnnounceOTAProvider to node \(id.rawValue)")
        }
        if case .status(let status) = result, let error = status.error(at: .command(path)) {
            throw APIError.device(error, "AnnounceOTAProvider to node \(id.rawValue)")
        }
        logger("hub: node \(id.rawValue) told to fetch \(image.name) from the hub")
        return .null
    }

    /// A node that can update (an OTA Requestor on endpoint 0) is told where to ask by itself:
    /// its DefaultOTAProviders names the hub's own node (endpoint 0, the OTA Provider), so that
    /// it finds the hub's images on its own schedule, not only when `update_node` announces them.
    /// A failure is logged; `update_node` still works.
    func writeDefaultOTAProvider(_ id: NodeID) async {
        guard node.imageStore != nil else { return }
        let servers = await runtime.attributes(of: id)[ConcreteAttributePath(0, .descriptor, Clusters.Descriptor.Attribute.serverList)]
        guard servers?.members.contains(where: { (try? $0.unsigned(as: UInt32.self)) == ClusterID.otaSoftwareUpdateRequestor.rawValue }) == true
        else { return }
        typealias T = Clusters.OtaSoftwareUpdateRequestor.ProviderLocationTag
        let hubNode = await node.nodeID
        let providers = TLVElement.array([.structure([.unsigned(.context(T.providerNodeID), hubNode),
                                                      .unsigned(.context(T.endpoint), UInt16(0))])])
        let path = ConcreteAttributePath(0, .otaSoftwareUpdateRequestor, Clusters.OtaSoftwareUpdateRequestor.Attribute.defaultOTAProviders)
        do {
            try await client(id).writeAttribute(path, value: providers)
            logger("hub: node \(id.rawValue) asks the hub for updates by itself now (DefaultOTAProviders)")
        } catch {
            logger("hub: node \(id.rawValue)'s DefaultOTAProviders could not be written: \(error); update_node still announces updates")
        }
    }
}

extension SoftwareVersion {
    /// As the client gave it.
    var text: String {
        switch self {
        case .number(let n): String(n)
        case .string(let s): "\"\(s)\""
        }
    }
}
