import Foundation
import MatterClusters
import MatterHubService
import MatterServerAPI
import Synchronization
import TestSupport

/// A test-only backend: one fixed On/Off light (Home Assistant's fixture node) whose OnOff
/// attribute follows the On/Off/Toggle commands, reported as attribute_updated. It is not the
/// hub: there is no device behind it.
final class FixedNodeBackend: HubBackend {
    static let nodeID: UInt64 = 30
    static let onOffPath = AttributePath(endpoint: 1, cluster: 6, attribute: 0)

    let node: Mutex<MatterNodeData>
    let server = Mutex<HubAPIServer?>(nil)
    let labels = Mutex<[String?]>([])
    /// Commands that wait this long before answering (to show that results come in any order).
    let slowCommandDelay = Duration.milliseconds(300)

    init() throws {
        let text = [UInt8](try Data(contentsOf: TestVectors.directory.appendingPathComponent("matter-server/ha_mock_onoff_light.json")))
        guard let json = try JSONParser.parse(text)["node"] else { throw APIError(.unknownError, "fixture without a node") }
        var node = try MatterNodeData(json: json)
        node.available = true
        self.node = Mutex(node)
    }

    func serverInfo() -> ServerInfo {
        ServerInfo(fabricID: 1, compressedFabricID: 0x2906_C908_D115_D362, sdkVersion: "matterhub-test/0")
    }

    func nodes() async -> [MatterNodeData] { [node.withLock { $0 }] }

    func handle(_ command: ServerCommand) async throws(APIError) -> JSONValue {
        switch command {
        case .setDefaultFabricLabel(let label):
            labels.withLock { $0.append(label) }
            return .null
        case .deviceCommand(let a):
            guard a.nodeID == Self.nodeID else { throw APIError(.nodeNotReady, "Node \(a.nodeID) is not known or not available") }
            guard let spec = Clusters.command(cluster: a.clusterID, name: a.commandName) else {
                throw APIError(.unknownError, "cluster \(a.clusterID) has no command \(a.commandName)")
            }
            do { _ = try spec.encodePayload(a.payload) } catch { throw APIError(.unknownError, "\(error)") }
            guard a.endpointID == 1, a.clusterID == 6 else { throw APIError(.unknownError, "IM status UnsupportedCommand (0x81)") }
            let value = node.withLock { n -> Bool in
                let old = n.attributes[Self.onOffPath]?.bool ?? false
                let new = a.commandName == "Toggle" ? !old : a.commandName == "On"
                n.attributes[Self.onOffPath] = .bool(new)
                return new
            }
            // As from a subscription report, shortly after the command's result.
            let server = self.server.withLock { $0 }
            Task {
                try? await Task.sleep(for: .milliseconds(20))
                server?.publish(.attributeUpdated(nodeID: Self.nodeID, path: Self.onOffPath, value: .bool(value)))
            }
            return .null
        case .readAttribute(let nodeID, let paths, _):
            guard nodeID == Self.nodeID else { throw APIError(.nodeNotReady, "Node \(nodeID) is not known or not available") }
            let attrs = node.withLock { $0.attributes }
            var out = JSONObject()
            for path in attrs.keys.sorted() where paths.contains(where: { $0.matches(path) }) {
                out.append(path.description, attrs[path]!)
            }
            return .object(out)
        case .interviewNode(let nodeID):
            try? await Task.sleep(for: slowCommandDelay)  // a slow command
            guard nodeID == Self.nodeID else { throw APIError(.nodeInterviewFailed, "Node \(nodeID) does not exist") }
            return .null
        case .checkNodeUpdate:
            return .null
        default:
            throw APIError(.invalidCommand, "Invalid command: \(command.name.rawValue)")
        }
    }
}
