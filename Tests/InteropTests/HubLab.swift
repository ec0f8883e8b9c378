import Foundation
import Testing
import TestSupport

/// What the hub lab tests start: our virtual device on one host and `matterctl hub serve` on
/// another, each with a state directory the test names (so either can be restarted with it).
enum HubLab {
    struct Device {
        let process: ChildProcess
        let qr: String
        let manual: String
    }

    static func newDirectory(_ lab: Lab, _ prefix: String) -> String {
        "\(lab.directory)/\(prefix)-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Starts `matterctl virtual-device` on `host` with `state` (new or kept) and waits until ready.
    static func startDevice(_ lab: Lab, on host: Int, state: String, discriminator: Int, port: Int,
                            _ extra: [String] = []) async throws -> Device {
        let device = try lab.spawn(on: host, [Lab.matterctl, "virtual-device", "--state", state, "--passcode", "13572468",
                                              "--discriminator", String(discriminator), "--port", String(port)] + extra)
        let ready = await device.waitForLine(timeout: 30) { $0.contains("virtual-device: ready") }
        try #require(ready != nil, "the virtual device did not start: \(device.text)")
        let lines = device.text.split(separator: "\n").map(String.init)
        let qr = try #require(lines.first { $0.hasPrefix("QR code: ") }?.dropFirst(9)).description
        let manual = try #require(lines.first { $0.hasPrefix("Manual code: ") }?.dropFirst(13)).description
        return Device(process: device, qr: qr, manual: manual)
    }

    /// Starts `matterctl hub serve` on `host` (with `environment` entries, e.g. a crash hook) and
    /// waits for its ready line.
    static func startHub(_ lab: Lab, on host: Int, state: String, port: Int = 5580, paa: String,
                         environment: [String] = []) async throws -> ChildProcess {
        let hub = try lab.spawn(on: host, ["/usr/bin/env"] + environment + [Lab.matterctl, "hub", "serve", "--state", state,
                                           "--port", String(port), "--paa-store", paa, "--allow-test-devices"])
        let ready = await hub.waitForLine(timeout: 60) { $0.contains("hub: ready") }
        try #require(ready != nil, "the hub did not start: \(hub.text)")
        return hub
    }

    /// The (fabric, node) pairs in the virtual device's saved state: the fabrics it committed
    /// (none when it never saved one).
    static func deviceFabrics(_ state: String) throws -> [(compressedFabricID: UInt64, nodeID: UInt64)] {
        guard FileManager.default.fileExists(atPath: "\(state)/state.json") else { return [] }
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(state)/state.json"))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return ((object?["fabrics"] as? [[String: Any]]) ?? []).compactMap { fabric in
            guard let cfid = (fabric["compressedFabricID"] as? NSNumber)?.uint64Value,
                  let node = (fabric["nodeID"] as? NSNumber)?.uint64Value else { return nil }
            return (cfid, node)
        }
    }
}
