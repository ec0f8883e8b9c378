import Foundation
import Testing
import TestSupport

/// Moving a home from python-matter-server 8.1.2 to the hub and back, with the real server and
/// its real client, devices never touched: python-matter-server commissions a light and a plug
/// (our virtual devices, on h28), is stopped; `matterctl import` takes its storage (unchanged,
/// byte for byte); `hub serve` (h29) lists both nodes with the same IDs and the attributes
/// python-matter-server had, available within seconds, and the client toggles both; then
/// the same home as matterjs-server keeps it is moved onto a running, empty hub through
/// `matterhub/import` (dry run, then confirmed) and toggled there; then `matterctl export` and
/// python-matter-server serves and toggles them again. Runs in
/// scripts/test's last pass, one suite at a time (Home Assistant's PIN-only commissioning there
/// would try these devices while they are in commissioning mode).
@Suite(.serialized, .enabled(if: Lab.isAvailable, "lab integration tests need root (network namespaces): run scripts/test as root"))
struct MigrationLabTests {
    static let deviceHost = 28
    static let serverHost = 29
    static let url = "ws://127.0.0.1:5580/ws"

    static func path(_ relative: String) -> String { Lab.repositoryRoot.appendingPathComponent(relative).path }

    /// Every file of a folder, by name.
    static func snapshot(_ dir: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            out[name] = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))
        }
        return out
    }

    /// scripts/migration-check.py verify against the server on the server host: the nodes listed,
    /// available within `seconds`, each toggled; its output, after checking it passed.
    static func verify(_ lab: Lab, _ nodeIDs: [UInt64], _ extra: [String], seconds: Int, server: ChildProcess) async throws {
        let (status, output) = try await lab.run(on: serverHost, [
            path(".peers/ohf-client/bin/python"), path("scripts/migration-check.py"), "verify", url]
            + nodeIDs.map(String.init) + extra + ["--seconds", String(seconds)], timeout: Double(seconds) * 2 + 60)
        print(output)
        #expect(status == 0 && output.contains(" passed, 0 failed"), "\(output)\nserver:\n\(server.text)")
    }

    @Test func pythonMatterServersHomeMovesToTheHubAndBack() async throws {
        let lab = try Lab.shared()
        let python = Self.path(".peers/ohf-client/bin/python")
        let pmsPython = Self.path(".peers/pms-server/bin/python")
        try #require(FileManager.default.isExecutableFile(atPath: python) && FileManager.default.isExecutableFile(atPath: pmsPython),
                     "run scripts/peers (scripts/test does)")
        let work = "\(lab.directory)/migration-\(UInt32.random(in: 0...UInt32.max))"
        let storage = work + "/storage"
        var processes: [ChildProcess] = []
        defer { for p in processes { p.kill9() } }

        var codes: [String] = []
        for (i, kind) in ["light", "plug"].enumerated() {
            let device = try lab.spawn(on: Self.deviceHost, [Lab.matterctl, "virtual-device", "--kind", kind, "--state", "\(work)/\(kind)",
                                                             "--passcode", "20202021", "--discriminator", String(2801 + i),
                                                             "--port", String(5801 + i)])
            processes.append(device)
            let ready = await device.waitForLine(timeout: 30) { $0.contains("virtual-device: ready") }
            try #require(ready != nil, "the \(kind) did not start: \(device.text)")
            codes.append(try #require(device.text.split(separator: "\n").first { $0.hasPrefix("QR code: ") }?.dropFirst(9)).description)
        }

        // python-matter-server commissions both, then stops (SIGTERM: its clean flush).
        let pms = try lab.spawn(on: Self.serverHost, [Self.path("scripts/pms-server"), work + "/pms", storage])
        processes.append(pms)
        let (commissioned, out) = try await lab.run(on: Self.serverHost, [python, Self.path("scripts/migration-check.py"), "commission",
                                                                          Self.url] + codes, timeout: 240)
        try #require(commissioned == 0, "python-matter-server did not commission both: \(out)\n\(pms.text)")
        let line = try #require(out.split(separator: "\n").last { $0.hasPrefix("{") })
        let nodes = try #require((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["nodes"] as? [[String: Any]])
        let nodeIDs = nodes.compactMap { ($0["node_id"] as? NSNumber)?.uint64Value }
        #expect(nodeIDs.count == 2)
        await pms.stop(grace: 10)
        let nodeFile = try #require(try FileManager.default.contentsOfDirectory(atPath: storage)
            .first { $0.hasSuffix(".json") && $0 != "chip.json" })
        let before = try Self.snapshot(storage)

        // The import, timed; the source is left as it was.
        let state = work + "/hub"
        let (imported, report) = try await lab.run(on: Self.serverHost, [Lab.matterctl, "--state", state, "import",
                                                                         "python-matter-server", storage, "--json"], timeout: 60)
        #expect(imported == 0, "\(report)")
        print("migration: import \(report.split(separator: "\n").last { $0.hasPrefix("{") }.map { String($0.prefix(120)) } ?? report)")
        #expect(try Self.snapshot(storage) == before, "the import changed python-matter-server's storage")
        // Again into the same state: refused; with --replace: the old state is kept aside.
        let (again, refusal) = try await lab.run(on: Self.serverHost, [Lab.matterctl, "--state", state, "import",
                                                                       "python-matter-server", storage])
        #expect(again == 1 && refusal.contains("already holds a fabric or devices"), "\(refusal)")
        let (replaced, replacing) = try await lab.run(on: Self.serverHost, [Lab.matterctl, "--state", state, "import",
                                                                            "python-matter-server", storage, "--replace"])
        #expect(replaced == 0 && replacing.contains("The state directory before is kept in \(state).replaced-"), "\(replacing)")

        // The hub serves the same nodes, available within seconds; the client toggles both.
        let hub = try lab.spawn(on: Self.serverHost, [Lab.matterctl, "hub", "serve", "--state", state, "--port", "5580"])
        processes.append(hub)
        let ready = await hub.waitForLine(timeout: 60) { $0.contains("hub: ready unix:") }
        try #require(ready != nil, "the hub did not start: \(hub.text)")
        try await Self.verify(lab, nodeIDs, ["--attributes", storage + "/" + nodeFile], seconds: 30, server: hub)
        await hub.stop(grace: 10)

        // The same home as matterjs-server keeps it after taking it over from python-matter-server
        // (scripts/gen-matterjs-storage.py, from its sources: no matterjs-server runs here), moved
        // onto a running hub that is still empty through matterhub/import (dry run, then the
        // confirmed import): the hub swaps its unused fabric for this one, and reaches and toggles
        // the same devices without a restart.
        let matterjs = work + "/matterjs"
        let generated = try ProcessRunner.run("/usr/bin/env", ["python3", Self.path("scripts/gen-matterjs-storage.py"), storage, matterjs,
                                                               "--driver", "wal", "--gzip", "--wal-commits", "3"])
        try #require(generated.status == 0, "\(generated.stderr)")
        let jsState = work + "/hub-from-matterjs"
        let jsHub = try lab.spawn(on: Self.serverHost, [Lab.matterctl, "hub", "serve", "--state", jsState, "--port", "5580"])
        processes.append(jsHub)
        try #require(await jsHub.waitForLine(timeout: 60) { $0.contains("hub: ready unix:") } != nil, "the hub did not start: \(jsHub.text)")
        let (moved, moveOutput) = try await lab.run(on: Self.serverHost, [
            python, Self.path("scripts/migration-check.py"), "api-import", Self.url, "matterjs-server", matterjs]
            + nodeIDs.map(String.init), timeout: 180)
        print(moveOutput)
        #expect(moved == 0 && moveOutput.contains(" passed, 0 failed"), "\(moveOutput)\nhub:\n\(jsHub.text)")
        try await Self.verify(lab, nodeIDs, [], seconds: 30, server: jsHub)
        await jsHub.stop(grace: 10)

        // And back: python-matter-server serves and toggles them from the export.
        let back = work + "/back"
        let (exported, exportOut) = try await lab.run(on: Self.serverHost, [Lab.matterctl, "--state", state, "export",
                                                                            "python-matter-server", back])
        try #require(exported == 0, "\(exportOut)")
        let pmsAgain = try lab.spawn(on: Self.serverHost, [Self.path("scripts/pms-server"), work + "/pms2", back])
        processes.append(pmsAgain)
        try await Self.verify(lab, nodeIDs, [], seconds: 120, server: pmsAgain)
        await pmsAgain.stop(grace: 10)
    }
}
