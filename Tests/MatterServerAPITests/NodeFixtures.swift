import Foundation
import MatterServerAPI
import TestSupport

/// Node data copied from Home Assistant's test fixtures (testvectors/matter-server/).
enum NodeFixtures {
    static func text(_ file: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: TestVectors.directory.appendingPathComponent("matter-server/\(file)")))
    }

    /// The `node` member of ha_mock_onoff_light.json.
    static func onOffLight() throws -> JSONValue {
        let doc = try JSONParser.parse(text("ha_mock_onoff_light.json"))
        guard let node = doc["node"] else { throw APIError(.invalidArguments, "the fixture has no node") }
        return node
    }
}
