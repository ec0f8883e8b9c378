import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MatterClusters
import MatterInteraction
import MatterTLV

/// One fabric the device belongs to, as persisted.
struct FabricRecord: Codable, Sendable, Hashable {
    var index: UInt8
    var rcac: [UInt8]
    var icac: [UInt8]?
    var noc: [UInt8]
    /// The operational private key (32 bytes); the state file is mode 0600.
    var operationalKey: [UInt8]
    /// The IPK epoch key from AddNOC.
    var ipkEpochKey: [UInt8]
    var vendorID: UInt16
    var label: String
    // Derived, kept for attributes and adverts.
    var rootPublicKey: [UInt8]
    var fabricID: UInt64
    var nodeID: UInt64
    var compressedFabricID: UInt64
}

/// One access control entry, as persisted.
struct ACLRecord: Codable, Sendable, Hashable {
    var fabricIndex: UInt8
    var privilege: UInt8
    var authMode: UInt8
    var subjects: [UInt64]?
    var targets: [Target]?

    struct Target: Codable, Sendable, Hashable {
        var cluster: UInt32?
        var endpoint: UInt16?
        var deviceType: UInt32?
    }

    init(_ e: Clusters.AccessControl.Entry, fabricIndex: UInt8) {
        self.fabricIndex = fabricIndex
        privilege = e.privilege.rawValue
        authMode = e.authMode.rawValue
        subjects = e.subjects
        targets = e.targets?.map { Target(cluster: $0.cluster?.rawValue, endpoint: $0.endpoint?.rawValue, deviceType: $0.deviceType) }
    }

    var entry: Clusters.AccessControl.Entry {
        Clusters.AccessControl.Entry(
            privilege: .init(rawValue: privilege), authMode: .init(rawValue: authMode), subjects: subjects,
            targets: targets?.map { .init(cluster: $0.cluster.map { ClusterID($0) }, endpoint: $0.endpoint.map { EndpointID($0) },
                                          deviceType: $0.deviceType) },
            fabricIndex: fabricIndex)
    }
}

/// Everything the device keeps across restarts.
struct DeviceState: Codable, Sendable, Hashable {
    var fabrics: [FabricRecord] = []
    var acl: [ACLRecord] = []
    var nodeLabel: String = ""
    var onOff: Bool = false
    var regulatoryConfig: UInt8 = 0
    var location: String = "XX"
    /// Counts starts; also the SoftwareVersion-independent reboot counter.
    var bootCount: UInt32 = 0
    /// The software an OTA update installed (nil: the configured one).
    var softwareVersion: UInt32?
    var softwareVersionString: String?
    /// The next fabric index to try (indexes are not reused right away).
    var nextFabricIndex: UInt8 = 1
    /// The simulated Wi-Fi or Thread interface's networks (absent in older state files).
    var networks: [NetworkRecord]?
    /// The light's Level Control state (nil for a plug, and in older state files).
    var level: LevelState?
    /// This device's own serial number and unique ID (random on its first start; absent in
    /// older state files): controllers tell devices apart by them (Home Assistant keys a device by
    /// its serial number, and merged two virtual devices that shared one).
    var serialNumber: String?

    /// Gives the device its serial number when it has none yet.
    mutating func assignSerialNumber() {
        guard serialNumber == nil else { return }
        serialNumber = "MH-VD-" + (0..<4).map { _ in
            let b = UInt8.random(in: 0...255)
            return String(b >> 4, radix: 16, uppercase: true) + String(b & 0xF, radix: 16, uppercase: true)
        }.joined()
    }
}

/// Reads and writes `state.json` in the state folder: written to a temporary file with mode
/// 0600 and renamed, so a crash leaves either the old or the new state.
struct DeviceStateStore: Sendable {
    let directory: String
    var path: String { directory + "/state.json" }

    func load() throws(VirtualDeviceError) -> DeviceState {
        guard FileManager.default.fileExists(atPath: path) else { return DeviceState() }
        do {
            return try JSONDecoder().decode(DeviceState.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw .state("cannot read \(path): \(error)")
        }
    }

    func save(_ state: DeviceState) throws(VirtualDeviceError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(state)
            let tmp = path + ".tmp"
            guard FileManager.default.createFile(atPath: tmp, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw VirtualDeviceError.state("cannot create \(tmp)")
            }
            guard rename(tmp, path) == 0 else { throw VirtualDeviceError.state("cannot rename \(tmp) to \(path): errno \(errno)") }
        } catch let e as VirtualDeviceError {
            throw e
        } catch {
            throw .state("cannot write \(path): \(error)")
        }
    }
}

extension FabricRecord: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Keeps the operational key and the IPK out of logs and `dump`.
    var description: String {
        "Fabric(index: \(index), fabricID: 0x\(String(fabricID, radix: 16)), nodeID: 0x\(String(nodeID, radix: 16)), "
            + "label: \"\(label)\", operationalKey: <redacted>, ipk: <redacted>)"
    }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }
}
