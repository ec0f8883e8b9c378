import FoundationEssentials
import MatterOTA
import MatterServerAPI
import MatterTrustStore
import Synchronization

/// The DCL the hub asks for firmware besides its own images (`hub serve --ota-dcl`), with the
/// update_source name python-matter-server gives it.
public struct FirmwareDCL: Sendable {
    public var client: DCLClient
    /// "main-net-dcl" or "test-net-dcl" (python-matter-server's UpdateSource).
    public var source: String

    public init(client: DCLClient) {
        self.client = client
        source = client.base == DCLClient.testNet ? "test-net-dcl" : "main-net-dcl"
    }

    /// After the DCL could not be reached, it is not asked again for this long: a home without
    /// internet answers check_node_update at once from its own images.
    static let unreachableBackoff: Duration = .seconds(600)
}

/// An update the hub can install on a node: an image it holds, or a version the DCL publishes
/// (fetched, checked and stored when it is installed).
enum FirmwareOffer: Sendable {
    case local(OTAImageStore.Image)
    case dcl(DCLModelVersion, source: String)

    var version: UInt32 {
        switch self {
        case .local(let image): image.header.softwareVersion
        case .dcl(let record, _): record.softwareVersion
        }
    }

    var versionString: String {
        switch self {
        case .local(let image): image.header.softwareVersionString
        case .dcl(let record, _): record.softwareVersionString
        }
    }

    /// Whether update_node's `software_version` (a number or the version string) names this offer.
    func matches(_ asked: SoftwareVersion) -> Bool {
        switch asked {
        case .number(let n): n == version
        case .string(let s): s == versionString || s == String(version)
        }
    }

    /// python-matter-server's MatterSoftwareVersion.
    var json: JSONValue {
        switch self {
        case .local(let image):
            let h = image.header
            return Self.json(vendorID: h.vendorID, productID: h.productID, version: h.softwareVersion,
                             versionString: h.softwareVersionString, firmwareInformation: nil,
                             minApplicable: h.minApplicableVersion ?? 0, maxApplicable: h.maxApplicableVersion ?? h.softwareVersion &- 1,
                             releaseNotes: h.releaseNotesURL, source: "local")
        case .dcl(let r, let source):
            return Self.json(vendorID: r.vendorID, productID: r.productID, version: r.softwareVersion,
                             versionString: r.softwareVersionString, firmwareInformation: r.firmwareInformation,
                             minApplicable: r.minApplicableSoftwareVersion, maxApplicable: r.maxApplicableSoftwareVersion,
                             releaseNotes: r.releaseNotesURL, source: source)
        }
    }

    static func json(vendorID: UInt16, productID: UInt16, version: UInt32, versionString: String, firmwareInformation: String?,
                     minApplicable: UInt32, maxApplicable: UInt32, releaseNotes: String?, source: String) -> JSONValue {
        .object([
            "vid": .integer(vendorID), "pid": .integer(productID),
            "software_version": .integer(version), "software_version_string": .string(versionString),
            "firmware_information": firmwareInformation.map { .string($0) } ?? .null,
            "min_applicable_software_version": .integer(minApplicable),
            "max_applicable_software_version": .integer(maxApplicable),
            "release_notes_url": releaseNotes.map { .string($0) } ?? .null,
            "update_source": .string(source),
        ])
    }
}
