import MatterServerAPI

/// Firmware a hub can install on a device: the newest image it holds (or found) for the device's
/// vendor and product that applies to the version it runs (python-matter-server's
/// MatterSoftwareVersion, the answer of `check_node_update`).
public struct SoftwareUpdate: Sendable, Hashable {
    public var vendorID: UInt16
    public var productID: UInt16
    public var softwareVersion: UInt32
    public var softwareVersionString: String
    public var releaseNotesURL: String?
    /// Where the image comes from: `local` (added to the hub) or `dcl`.
    public var source: String

    init(json: JSONValue) throws(HomeError) {
        guard let vendor = json["vid"]?.uint64.flatMap(UInt16.init(exactly:)),
              let product = json["pid"]?.uint64.flatMap(UInt16.init(exactly:)),
              let version = json["software_version"]?.uint64.flatMap(UInt32.init(exactly:)),
              let string = json["software_version_string"]?.string else {
            throw RemoteRecords.malformed("software update", "\(json)")
        }
        vendorID = vendor
        productID = product
        softwareVersion = version
        softwareVersionString = string
        releaseNotesURL = json["release_notes_url"]?.string
        source = json["update_source"]?.string ?? "local"
    }
}

extension Device {
    /// Firmware updates go through a running hub: its node is the OTA provider devices download from.
    private func hubConnection(for what: String) throws(HomeError) -> HubConnection {
        guard let remote = backend as? RemoteBackend else {
            throw HomeError(.hubUnavailable, "\(what) needs a running hub (its node is the OTA provider the device downloads from): "
                            + "start 'matterctl hub serve' on this state directory")
        }
        return remote.connection
    }

    /// The update the hub can install on this device now, nil when it has none newer that applies
    /// (`check_node_update`).
    public func availableUpdate() async throws(HomeError) -> SoftwareUpdate? {
        let connection = try hubConnection(for: "checking for a firmware update")
        let result = try await connection.call(.checkNodeUpdate, ["node_id": .integer(id.rawValue)])
        return result == .null ? nil : try SoftwareUpdate(json: result)
    }

    /// Installs `version` (`update_node`): returns once the device runs it. The hub bounds each
    /// step (query, transfer start, stalled transfer, apply request, restart) and fails with
    /// ``HomeError/Code/updateFailed`` naming the step; the device keeps its old version and the
    /// update can be tried again at once.
    public func installUpdate(version: UInt32) async throws(HomeError) {
        let connection = try hubConnection(for: "installing a firmware update")
        // The hub's bounds end a failed update; a slow link may take long to download a good one.
        _ = try await connection.call(.updateNode, ["node_id": .integer(id.rawValue), "software_version": .integer(version)],
                                      timeout: .seconds(24 * 3600))
    }
}
