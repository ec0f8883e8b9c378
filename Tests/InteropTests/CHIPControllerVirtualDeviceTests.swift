import Foundation
import MatterCrypto
import MatterTLV
import Testing
import TestSupport

/// The CHIP SDK's Python controller (a strict commissioner we did not write, peers.md)
/// commissions our virtual device across two lab hosts: discovery through avahi, PASE, the
/// attestation checks, CSR/NOC, operational discovery, CASE, CommissioningComplete; then reads,
/// toggles and removes its fabric. The device runs on h6, the controller on h7.
@Suite(.serialized, .enabled(if: Lab.isAvailable,
                             "lab integration tests need root (network namespaces): run scripts/test as root"))
struct CHIPControllerVirtualDeviceTests {
    static let deviceHost = 6
    static let controllerHost = 7

    /// Starts `matterctl virtual-device` on h6 and waits for its ready line.
    static func startDevice(_ lab: Lab, _ extra: [String] = [], state: String? = nil) async throws -> (ChildProcess, qr: String, manual: String) {
        let dir = state ?? "\(lab.directory)/vd-\(UInt32.random(in: 0...UInt32.max))"
        // Its own passcode and a short discriminator (8) no other lab test uses: a manual code
        // carries only the short discriminator, and the lab hosts share one link.
        let identity = extra.contains("--discriminator") ? [] : ["--discriminator", "2100"]
        let device = try lab.spawn(on: deviceHost, [Lab.matterctl, "virtual-device", "--state", dir, "--passcode", "24681357"]
                                   + identity + extra)
        let ready = await device.waitForLine(timeout: 30) { $0.contains("virtual-device: ready") }
        try #require(ready != nil, "the virtual device did not start: \(device.text)")
        let lines = device.text.split(separator: "\n").map(String.init)
        let qr = try #require(lines.first { $0.hasPrefix("QR code: ") }?.dropFirst(9)).description
        let manual = try #require(lines.first { $0.hasPrefix("Manual code: ") }?.dropFirst(13)).description
        return (device, qr, manual)
    }

    /// Runs scripts/chip-controller on h7 (or `host`); returns its exit status and its JSON lines.
    static func controller(_ lab: Lab, _ arguments: [String], work: String? = nil,
                           host: Int = controllerHost) async throws -> (Int32, [[String: Any]], String) {
        let python = Lab.repositoryRoot.appendingPathComponent(".peers/venv/bin/python").path
        try #require(FileManager.default.isExecutableFile(atPath: python),
                     "the CHIP controller is not installed: run scripts/peers (scripts/test does)")
        let work = work ?? "\(lab.directory)/chip-\(UInt32.random(in: 0...UInt32.max))"
        try? FileManager.default.removeItem(atPath: "\(work)/results.jsonl")
        let script = Lab.repositoryRoot.appendingPathComponent("scripts/chip-controller").path
        let (status, output) = try await lab.run(on: host, [script, work] + arguments, timeout: 120)
        let text = (try? String(contentsOfFile: "\(work)/results.jsonl", encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        return (status, lines, output)
    }

    static func step(_ lines: [[String: Any]], _ name: String) -> [String: Any]? {
        lines.first { $0["step"] as? String == name }
    }

    @Test(arguments: ["qr", "manual"])
    func chipControllerCommissionsReadsTogglesAndRemovesItsFabric(_ codeKind: String) async throws {
        let lab = try Lab.shared()
        let (device, qr, manual) = try await Self.startDevice(lab)
        defer { device.kill9() }
        let (status, lines, output) = try await Self.controller(lab, ["--code", codeKind == "qr" ? qr : manual])
        #expect(status == 0, "controller failed: \(lines)\n\(output.suffix(3000))\ndevice: \(device.text)")
        #expect(Self.step(lines, "commission")?["ok"] as? Bool == true)
        #expect(Self.step(lines, "vendor-name")?["value"] as? String == "MatterHub")
        let onOff = Self.step(lines, "on-off")
        #expect(onOff?["ok"] as? Bool == true && (onOff?["before"] as? Bool) != (onOff?["after"] as? Bool))
        // The device reported the second toggle to the controller's subscription on its own.
        #expect(Self.step(lines, "reported-on-off")?["ok"] as? Bool == true)
        #expect(Self.step(lines, "remove-fabric")?["ok"] as? Bool == true)
        #expect(lines.last?["result"] as? String == "ok")
    }

    /// BDX against the CHIP SDK: its controller sends (TestOnlyPrepareToSendBdxData, the SDK's
    /// TransferSession as a responder-sender) and our receiver drives the transfer from the
    /// virtual device (`--fetch`, ReceiveInit then BlockQuery per block, as an OTA requestor
    /// downloads its image). 5,000 bytes are 5 blocks of at most 1,024; what arrived must hash to
    /// what the SDK sent.
    @Test func ourBDXReceiverDownloadsFromTheSDKsSender() async throws {
        let lab = try Lab.shared()
        let size = 5000
        let (device, qr, _) = try await Self.startDevice(lab, ["--fetch", "firmware.ota", "--discriminator", "2107"])
        defer { device.kill9() }
        let (status, lines, output) = try await Self.controller(lab, ["--code", qr, "--bdx-send", String(size)])
        #expect(status == 0, "controller failed: \(lines)\n\(output.suffix(3000))\ndevice: \(device.text)")
        let initMessage = Self.step(lines, "bdx-init")
        #expect(initMessage?["designator"] as? String == "firmware.ota" && initMessage?["maxBlockSize"] as? Int == 1024
                && initMessage?["control"] as? Int == 0x20, "\(initMessage ?? [:])")
        #expect(Self.step(lines, "bdx-send")?["ok"] as? Bool == true, "\(lines)")
        let fetched = await device.waitForLine(timeout: 20) { $0.contains("virtual-device: fetched") }
        let expected = Base16.encode(SHA256.hash((0..<size).map { UInt8((7 * $0 + 3) % 256) }))
        #expect(fetched == "virtual-device: fetched \(size) bytes of firmware.ota over BDX, sha256 \(expected)", "\(device.text)")
    }

    /// Level Control as the SDK's controller sees it: its cluster objects decode every attribute
    /// (nullable CurrentLevel and OnLevel, the Options bitmap), and MoveToLevelWithOnOff turns the
    /// light on at any level above MinLevel and off at MinLevel; MoveToLevel while off obeys
    /// ExecuteIfOff; a level of 255 comes back as CONSTRAINT_ERROR. The device's own state file
    /// agrees with what the controller read.
    @Test func chipControllerDimsTheLight() async throws {
        let lab = try Lab.shared()
        let dir = "\(lab.directory)/vd-dim-\(UInt32.random(in: 0...UInt32.max))"
        let (device, qr, _) = try await Self.startDevice(lab, state: dir)
        defer { device.kill9() }
        let (status, lines, output) = try await Self.controller(lab, ["--code", qr, "--dim"])
        #expect(status == 0, "controller failed: \(lines)\n\(output.suffix(3000))\ndevice: \(device.text)")
        let attributes = Self.step(lines, "level-control-attributes")
        #expect(attributes?["featureMap"] as? Int == 3)
        #expect(attributes?["minLevel"] as? Int == 1 && attributes?["maxLevel"] as? Int == 254)
        #expect(attributes?["onLevel"] is NSNull && attributes?["remainingTime"] as? Int == 0)
        #expect(attributes?["acceptedCommandList"] as? [Int] == Array(0...7))
        let descriptor = Self.step(lines, "descriptor")
        #expect(descriptor?["serverList"] as? [Int] == [0x1D, 0x06, 0x08])
        #expect(descriptor?["deviceTypes"] as? [Int] == [0x0101])
        for name in ["level-77", "level-min", "level-ignored-while-off", "level-execute-if-off", "level-200"] {
            #expect(Self.step(lines, name)?["ok"] as? Bool == true, "\(name): \(Self.step(lines, name) ?? [:])")
        }
        let refused = Self.step(lines, "level-255")
        // The SDK's InteractionModelError carries the status: 0x87, CONSTRAINT_ERROR.
        let refusal = refused?["error"] as? String ?? ""
        #expect(refused?["status"] as? String == "135" && refusal.contains("ConstraintError (0x87)"), "level 255: \(refused ?? [:])")
        #expect(lines.last?["result"] as? String == "ok")
        // The device's own persisted state, not what any controller read.
        await device.stop()
        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/state.json"))) as? [String: Any]
        #expect((saved?["level"] as? [String: Any])?["currentLevel"] as? Int == 200)
        #expect(saved?["onOff"] as? Bool == true)
    }

    /// A second CHIP controller on another fabric joins through an enhanced commissioning window
    /// that the first opened (OpenCommissioningWindow with a PAKE verifier).
    @Test func secondFabricJoinsThroughAnOpenedWindow() async throws {
        let lab = try Lab.shared()
        let (device, qr, _) = try await Self.startDevice(lab)
        defer { device.kill9() }
        let (status, lines, output) = try await Self.controller(lab, ["--code", qr, "--second-fabric"])
        #expect(status == 0, "controller failed: \(lines)\n\(output.suffix(3000))")
        #expect(Self.step(lines, "open-commissioning-window")?["ok"] as? Bool == true)
        #expect(Self.step(lines, "commission-second-fabric")?["ok"] as? Bool == true)
        #expect(Self.step(lines, "commissioned-fabrics")?["value"] as? Int == 2)
        #expect(Self.step(lines, "remove-second-fabric")?["ok"] as? Bool == true)
        #expect(Self.step(lines, "remove-fabric")?["ok"] as? Bool == true)
    }

    /// The strict controller notices each deliberate fault and refuses to commission.
    @Test(arguments: [("invalid-attestation", "Failed Device Attestation"), ("cd-vendor-mismatch", "Failed Device Attestation"),
                      ("bad-sigma2-signature", "Invalid signature")])
    func chipControllerRejectsAFaultyDevice(_ fault: String, _ expectedError: String) async throws {
        let lab = try Lab.shared()
        let (device, qr, _) = try await Self.startDevice(lab, ["--fault", fault])
        defer { device.kill9() }
        let (status, lines, output) = try await Self.controller(lab, ["--code", qr, "--keep"])
        #expect(status != 0, "the controller accepted a device with fault \(fault): \(lines)")
        let commission = Self.step(lines, "commission")
        #expect(commission?["ok"] as? Bool == false, "\(lines)\n\(output.suffix(2000))")
        #expect((commission?["error"] as? String)?.contains(expectedError) == true, "\(lines)")
    }

    /// The device dies right after AddNOC (fault reboot-mid-commissioning): the staged fabric was
    /// never committed, so after a restart it is commissionable again and the controller succeeds.
    @Test func rebootMidCommissioningLeavesTheDeviceCommissionable() async throws {
        let lab = try Lab.shared()
        let state = "\(lab.directory)/vd-reboot-\(UInt32.random(in: 0...UInt32.max))"
        let (first, qr, _) = try await Self.startDevice(lab, ["--fault", "reboot-mid-commissioning"], state: state)
        defer { first.kill9() }
        // The controller would wait minutes for the dead device's operational advert: stop it
        // once the device has exited.
        let script = Lab.repositoryRoot.appendingPathComponent("scripts/chip-controller").path
        let controller = try lab.spawn(on: Self.controllerHost, [script, "\(lab.directory)/chip-reboot-\(UInt32.random(in: 0...UInt32.max))",
                                                                 "--code", qr, "--keep"])
        #expect(await first.wait(timeout: 90) == 3, "the device did not exit after AddNOC: \(first.text)")
        await controller.stop()
        #expect(controller.text.contains("SendNOC"), "the controller never reached AddNOC")
        let saved = try String(contentsOfFile: "\(state)/state.json", encoding: .utf8)
        #expect(saved.contains("\"fabrics\":[]"), "a staged fabric was persisted: \(saved.prefix(300))")
        let (second, _, _) = try await Self.startDevice(lab, state: state)
        defer { second.kill9() }
        let (status, lines, output) = try await Self.controller(lab, ["--code", qr])
        #expect(status == 0, "\(lines)\n\(output.suffix(2000))")
    }

    /// Instances still present at the end of `avahi-browse -p` output (resolved, not removed).
    static func liveInstances(_ browse: String, discriminator: Int) -> Set<String> {
        var live: Set<String> = []
        for line in browse.split(separator: "\n") {
            let f = line.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            guard f.count > 3 else { continue }
            if f[0] == "=" && line.contains("\"D=\(discriminator)\"") { live.insert(f[3]) }
            if f[0] == "-" { live.remove(f[3]) }
        }
        return live
    }

    /// The device keeps its fabric across a restart: it comes back with its operational advert,
    /// without a commissionable one, and the controller that commissioned it reads, toggles and
    /// removes its fabric over a new CASE session.
    @Test func commissionedStateSurvivesARestart() async throws {
        let lab = try Lab.shared()
        let state = "\(lab.directory)/vd-persist-\(UInt32.random(in: 0...UInt32.max))"
        // Its own discriminator, so stale adverts of devices other tests killed do not interfere.
        var (device, qr, _) = try await Self.startDevice(lab, ["--discriminator", "3333"], state: state)
        let work = "\(lab.directory)/chip-persist-\(UInt32.random(in: 0...UInt32.max))"
        let (status, lines, _) = try await Self.controller(lab, ["--code", qr, "--keep"], work: work)
        #expect(status == 0, "\(lines)")
        await device.stop()
        let attributes = try FileManager.default.attributesOfItem(atPath: "\(state)/state.json")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let saved = try String(contentsOfFile: "\(state)/state.json", encoding: .utf8)
        #expect(saved.contains("\"fabrics\":[{"), "no fabric persisted: \(saved.prefix(200))")
        (device, _, _) = try await Self.startDevice(lab, ["--discriminator", "3333"], state: state)
        defer { device.kill9() }
        // A restarted commissioned device does not advertise as commissionable.
        let (operational, browsed) = try await lab.browseUntilResolved(on: Self.controllerHost, "_matter._tcp", timeout: 30) { _ in true }
        #expect(operational != nil, "no operational advert after restart: \(browsed)")
        let browse = try await lab.browse(on: Self.controllerHost, "_matterc._udp", for: 5)
        #expect(Self.liveInstances(browse, discriminator: 3333).isEmpty, "commissionable advert after restart: \(browse)")
        // The same controller (its stored fabric) reaches the restarted device over CASE.
        let (again, againLines, output) = try await Self.controller(lab, ["--reuse"], work: work)
        #expect(again == 0, "\(againLines)\n\(output.suffix(2000))")
        #expect(Self.step(againLines, "vendor-name")?["value"] as? String == "MatterHub")
        #expect(Self.step(againLines, "remove-fabric")?["ok"] as? Bool == true)
    }
}
