import Foundation
import Testing
import TestSupport

/// matterctl's home commands through a running hub and embedded, in the lab (virtual devices on
/// h23, the hub and the CLI on h22): the same output either way; a second client of the hub
/// sees the CLI's commissioning steps live and is refused a second session; `matterctl add`
/// driven in a real terminal (tmux).
@Suite(.serialized, .enabled(if: Lab.isAvailable, "lab integration tests need root (network namespaces): run scripts/test as root"))
struct HubClientCLITests {
    static let hubHost = 22
    static let deviceHost = 23

    static func startDevice(_ lab: Lab, discriminator: Int, port: Int, faults: [String] = [],
                            options: [String] = []) async throws -> (process: ChildProcess, qr: String, manual: String) {
        let dir = "\(lab.directory)/hcc-\(UInt32.random(in: 0...UInt32.max))"
        let device = try lab.spawn(on: deviceHost, [Lab.matterctl, "virtual-device", "--state", dir, "--passcode", "13572468",
                                                    "--discriminator", String(discriminator), "--port", String(port)]
                                   + faults.flatMap { ["--fault", $0] } + options)
        try #require(await device.waitForLine(timeout: 30) { $0.contains("virtual-device: ready") } != nil, "\(device.text)")
        let lines = device.text.split(separator: "\n").map(String.init)
        let qr = try #require(lines.first { $0.hasPrefix("QR code: ") }).dropFirst(9)
        let manual = try #require(lines.first { $0.hasPrefix("Manual code: ") }).dropFirst(13)
        return (device, String(qr), String(manual))
    }

    static func startHub(_ lab: Lab, state: String, port: Int) async throws -> ChildProcess {
        let hub = try lab.spawn(on: hubHost, [Lab.matterctl, "hub", "serve", "--state", state, "--port", String(port),
                                              "--paa-store", try HubVirtualDeviceTests.paa(lab), "--allow-test-devices"])
        try #require(await hub.waitForLine(timeout: 30) { $0.hasPrefix("hub: ready unix:") } != nil, "\(hub.text)")
        return hub
    }

    static func ctl(_ lab: Lab, _ state: String, _ args: [String]) async throws -> (Int32, String) {
        try await lab.run(on: hubHost, [Lab.matterctl] + args + ["--state", state], timeout: 120)
    }

    /// What differs between two runs by nature: node IDs, times, dates, fresh codes, and which of
    /// the device's addresses (both runs' devices listen on the same port of h23) was resolved
    /// first: avahi answers IPv4 and IPv6 apart, and on a loaded machine the IPv6 answer can
    /// come after the resolver's grace (OperationalAddressTests checks the preference itself).
    static func normalized(_ text: String) -> String {
        var s = text
        for (pattern, replacement) in [("(\\[fe80::[0-9a-f:]+%[0-9]+\\]|fe80::[0-9a-f:]+|169\\.254\\.[0-9]+\\.[0-9]+):(57[0-9][0-9])", "ADDR:$2"),
                                       ("0x[0-9A-Fa-f]{16}", "NODE"), ("[0-9]+(\\.[0-9])? ms", "N ms"),
                                       ("\"(totalMs|ms)\":[0-9.]+", "\"$1\":N"),
                                       ("\"commissionedAt\":\"[^\"]*\"", "\"commissionedAt\":DATE"),
                                       ("\"nodeId\":[0-9]+", "\"nodeId\":ID"), ("MT:[0-9A-Z.\\-]+", "MT:QR"),
                                       ("[0-9]{4}-[0-9]{3}-[0-9]{4}", "MANUAL"),
                                       // the device as named in warnings: instance, discriminator, address
                                       ("[0-9A-F]{16} \\(discriminator [0-9]+, [^)]*\\)", "DEVICE")] {
            s = s.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        // The embedded run's flag warning (through the hub the hub's own policy applies).
        return s.split(separator: "\n").filter { !$0.hasPrefix("warning: devices with test attestation") }.joined(separator: "\n")
    }

    /// One device's life through the CLI; the normalized output of every command.
    static func session(_ lab: Lab, state: String, device: (process: ChildProcess, qr: String, manual: String), embedded: Bool)
        async throws -> [String] {
        var out: [String] = []
        let policy = embedded ? ["--paa-store", try HubVirtualDeviceTests.paa(lab), "--allow-test-devices"] : []
        let (status, commissioned) = try await ctl(lab, state, ["commission", device.qr, "--name", "Lamp", "--room", "Kitchen", "--json"]
                                                      + policy)
        #expect(status == 0, "\(commissioned)\n\(device.process.text)")
        // The operational address: the device's, on h23.
        #expect(commissioned.contains("\"address\":\"") && !commissioned.contains("\"address\":\"\""), "\(commissioned)")
        out.append(commissioned)
        if !embedded {
            // The hub did the work: its node runtime knows the node (a CLI writing the store
            // beside the hub would be unknown to it).
            let (_, status) = try await ctl(lab, state, ["hub", "status", "--json"])
            #expect(status.contains("\"nodes\":1"), "\(status)")
            // Its connectivity history, which the hub writes within a second: available once subscribed.
            var history = ""
            for _ in 0..<30 where !history.contains("\"reason\":\"subscribed\"") {
                history = try await ctl(lab, state, ["devices", "--history", "--json"]).1
                if !history.contains("\"reason\":\"subscribed\"") { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(history.contains("\"available\":true,\"reason\":\"subscribed\""), "\(history)")
        }
        let (_, list) = try await ctl(lab, state, ["devices", "--json"])
        #expect(list.contains("\"addresses\":[\""), "the store's addresses are missing: \(list)")
        out.append(list)
        let line = list.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? "{}"
        let json = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        let first = try #require((json?["devices"] as? [[String: Any]])?.first, "\(list)")
        let node = HubVirtualDeviceTests.nodeHex(first)
        // Every cluster through the generated model: a write refused before it is sent, naming the
        // type; a command with a response printed name-keyed; timed invokes (the model marks the
        // commissioning-window commands timed, and the device refuses them untimed).
        let checked: [([String], Int32, String)] = [
            (["write", node, "basicinformation", "nodelabel", "5"], 64, "NodeLabel is string: must be a string, not 5"),
            (["write", node, "basicinformation", "nodelabel", "Desk"], 0, "OK"),
            (["read", node, "BasicInformation", "0x5"], 0, "Desk"),
            (["invoke", node, "generalcommissioning", "armfailsafe", #"{"expiryLengthSeconds": 0, "breadcrumb": 0}"#], 0,
             #"{"errorCode":0,"debugText":""}"#),
            (["invoke", node, "administratorcommissioning", "openbasiccommissioningwindow", #"{"commissioningTimeout": 180}"#], 0, "OK"),
            (["invoke", node, "administratorcommissioning", "revokecommissioning"], 0, "OK"),
            (["invoke", node, "administratorcommissioning", "revokecommissioning", "--timed", "0"], 1, "NeedsTimedInteraction"),
            (["invoke", node, "levelcontrol", "movetolevel", #"{"level": "high"}"#], 64, "payload.level: must be a non-negative integer"),
            // Wildcards: every attribute of a cluster, one attribute of every cluster.
            (["read", node, "onoff", "*"], 0, "1/OnOff/OnOff = "),
            (["read", node, "*", "0xFFFD", "--endpoint", "0"], 0, "0/BasicInformation/ClusterRevision = "),
        ]
        for (args, expectedStatus, expectedText) in checked {
            let (s, text) = try await ctl(lab, state, args)
            #expect(s == expectedStatus && text.contains(expectedText), "\(args): exit \(s): \(text)")
            out.append("\(args.prefix(4).map { $0 == node ? "NODE" : $0 }.joined(separator: " ")) exit \(s): \(text)")
        }
        out.append(try await subscribeSeesAToggle(lab, state: state, node: node))
        for args in [["devices"], ["rooms", "list"], ["read", node, "basicinformation", "nodelabel"], ["invoke", node, "onoff", "toggle"],
                     ["read", node, "onoff", "onoff"], ["share", node, "--timeout", "180"], ["read", "0x1", "onoff", "onoff"],
                     ["unpair", node], ["devices"]] {
            let (s, text) = try await ctl(lab, state, args)
            out.append("\(args.first!) exit \(s): \(text)")
        }
        return out.map(normalized)
    }

    /// `subscribe` prints the current value, then the change another command makes.
    static func subscribeSeesAToggle(_ lab: Lab, state: String, node: String) async throws -> String {
        let watcher = try lab.spawn(on: hubHost, [Lab.matterctl, "subscribe", node, "onoff", "onoff", "--count", "2", "--max", "10",
                                                  "--state", state])
        defer { watcher.kill9() }
        let first = await watcher.waitForLine(timeout: 30) { $0.hasPrefix("1/OnOff/OnOff = ") }
        #expect(first != nil, "no first report: \(watcher.text)")
        let before = first?.hasSuffix("true") == true
        #expect(try await ctl(lab, state, ["invoke", node, "onoff", "toggle"]).0 == 0)
        let status = await watcher.wait(timeout: 30)
        let reports = watcher.lines.filter { $0.hasPrefix("1/OnOff/OnOff = ") }
        #expect(status == 0 && reports == ["1/OnOff/OnOff = \(before)", "1/OnOff/OnOff = \(!before)"], "exit \(String(describing: status)): \(watcher.text)")
        return "subscribe: " + reports.joined(separator: " | ")
    }

    @Test func homeCommandsGiveTheSameOutputThroughTheHubAndEmbedded() async throws {
        let lab = try Lab.shared()
        let a = try await Self.startDevice(lab, discriminator: 3401, port: 5701)
        defer { a.process.kill9() }
        let embeddedState = HubVirtualDeviceTests.newState(lab)
        let embedded = try await Self.session(lab, state: embeddedState, device: a, embedded: true)
        a.process.kill9()  // its port is the next device's: the same address either way

        let b = try await Self.startDevice(lab, discriminator: 3402, port: 5701)
        defer { b.process.kill9() }
        let hubState = HubVirtualDeviceTests.newState(lab)
        let hub = try await Self.startHub(lab, state: hubState, port: 5590)
        defer { hub.kill9() }
        let (stopped, before) = try await Self.ctl(lab, hubState, ["hub", "status", "--json"])
        #expect(stopped == 0 && before.contains("\"running\":true") && before.contains("\"nodes\":0"), "\(before)")
        let remote = try await Self.session(lab, state: hubState, device: b, embedded: false)
        #expect(remote.count == embedded.count)
        for (e, r) in zip(embedded, remote) { #expect(e == r, "embedded:\n\(e)\nthrough the hub:\n\(r)") }
        print("embedded and through the hub:\n" + remote.joined(separator: "\n"))
        let (_, status) = try await Self.ctl(lab, hubState, ["hub", "status"])
        #expect(status.contains("hub: running (PID") && status.contains("nodes:     0 (0 available)"), "\(status)")
    }

    /// The CLI commissions through the hub while another client is connected (on the hub's Unix
    /// socket, as the dashboard would be on TCP): it sees each step as it happens, and its own
    /// prepare_commissioning meanwhile gets commissioningSessionActive. The device answers each
    /// interaction 2 s late (slow-responses), so the request lands while the session is active
    /// however late this client reads the first step: without it the whole commissioning took
    /// 236 ms, and on a loaded CI machine the request was answered after the session had ended.
    @Test func aSecondClientSeesTheStepsAndIsRefusedASession() async throws {
        try await Self.withHubAndDevice(discriminator: 3403, port: 5703, hubPort: 5591, faults: ["slow-responses"]) { lab, state, device in
            try await Self.watchWhileTheCLICommissions(lab, state, device)
        }
    }

    /// A virtual device on h23 and a hub on a fresh state on h22, both stopped afterwards.
    static func withHubAndDevice(discriminator: Int, port: Int, hubPort: Int, faults: [String] = [],
                                 _ body: (Lab, String, (process: ChildProcess, qr: String, manual: String)) async throws -> Void)
        async throws {
        let lab = try Lab.shared()
        let device = try await startDevice(lab, discriminator: discriminator, port: port, faults: faults)
        defer { device.process.kill9() }
        let state = HubVirtualDeviceTests.newState(lab)
        let hub = try await startHub(lab, state: state, port: hubPort)
        defer { hub.kill9() }
        try await body(lab, state, device)
    }

    static func watchWhileTheCLICommissions(_ lab: Lab, _ state: String,
                                            _ device: (process: ChildProcess, qr: String, manual: String)) async throws {

        let watcher = try WebSocketTestClient(unixPath: state + "/hub.sock", timeout: 60)
        #expect(try await watcher.upgrade() == 101)
        _ = try await watcher.nextText()  // server info
        try await watcher.sendText(#"{"message_id":"e","command":"matterhub/enable","args":{}}"#)
        #expect(try await watcher.nextText().contains("\"api_version\""))

        let cli = try lab.spawn(on: hubHost, [Lab.matterctl, "commission", device.qr, "--name", "Lamp", "--state", state])
        var steps: [String] = []
        var refused = ""
        while true {
            let text = try await watcher.nextText()
            if text.contains("matterhub/commissioning_step") {
                if let r = text.range(of: #""step":"[a-z-]+""#, options: .regularExpression) { steps.append(String(text[r])) }
                if steps.count == 1 {
                    try await watcher.sendText(#"{"message_id":"p","command":"matterhub/prepare_commissioning","args":{}}"#)
                }
            } else if text.contains(#""message_id":"p""#) {
                refused = text
            } else if text.contains("matterhub/commissioning_finished") {
                break
            }
        }
        #expect(await cli.wait(timeout: 60) == 0, "\(cli.text)")
        #expect(steps.first == #""step":"discovery""# && steps.contains(#""step":"commissioning-complete""#), "\(steps)")
        #expect(refused.contains(#""matterhub_error":"commissioningSessionActive""#), "\(refused)")
        // The CLI printed the same steps the other client saw.
        #expect(cli.text.contains("[1] discovery") && cli.text.contains("Commissioned node"), "\(cli.text)")
    }

    /// Firmware from the CLI through the hub: `ota make` wraps a 1 MB payload as version 2 of the
    /// virtual light (at version 1), `ota add` gives it to the hub, `ota check` offers it, `ota
    /// update` shows the device's progress and returns once it runs version 2 (downloaded over BDX
    /// across the lab's link), `ota check` then says it is up to date (exit 2). Without a hub,
    /// `ota check` says it needs one.
    @Test func firmwareFromTheCLIThroughTheHub() async throws {
        let lab = try Lab.shared()
        let device = try await Self.startDevice(lab, discriminator: 3405, port: 5705, options: ["--software-version", "1"])
        defer { device.process.kill9() }
        let state = HubVirtualDeviceTests.newState(lab)
        let hub = try await Self.startHub(lab, state: state, port: 5593)
        defer { hub.kill9() }
        let (commissioned, text) = try await Self.ctl(lab, state, ["commission", device.qr])
        #expect(commissioned == 0, "\(text)")
        let node = HubVirtualDeviceTests.nodeHex(try #require(try await HubVirtualDeviceTests.devices(lab, state).first))

        let payload = "\(lab.directory)/firmware-\(UInt32.random(in: 0...UInt32.max))"
        try Data((0..<1_048_576).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }).write(to: URL(fileURLWithPath: payload))
        let (made, madeText) = try await lab.run(on: Self.hubHost, [Lab.matterctl, "ota", "make", payload, payload + ".ota", "--vendor-id", "0xFFF1",
                                                                   "--product-id", "0x8000", "--version", "2", "--version-string", "2.0.0"])
        #expect(made == 0, "\(madeText)")
        let steps: [([String], Int32, String)] = [
            (["ota", "add", payload + ".ota"], 0, "added FFF1-8000-2.ota: version 2 (2.0.0)"),
            (["ota", "check", node], 0, "version 2 (2.0.0) is available [local]"),
            (["ota", "update", node], 0, "runs version 2"),
            (["ota", "check", node, "--json"], 2, "null"),
        ]
        for (args, expected, shown) in steps {
            let (status, out) = try await Self.ctl(lab, state, args)
            #expect(status == expected && out.contains(shown), "\(args): exit \(status): \(out)")
            if args.prefix(2) == ["ota", "update"] {
                #expect(out.contains("  downloading"), "no progress shown: \(out)")
                print("ota update:\n\(out)")
            }
        }
        // Right after update returns, a read shows the version it installed (a bare value).
        let (read, version) = try await Self.ctl(lab, state, ["read", node, "basicinformation", "softwareversion"])
        #expect(read == 0 && version.trimmingCharacters(in: .whitespacesAndNewlines) == "2", "exit \(read): \(version)")
        print(hub.lines.filter { $0.contains("downloaded FFF1-8000-2.ota") }.joined(separator: "\n"))
        await hub.stop()
        let (alone, aloneText) = try await Self.ctl(lab, state, ["ota", "check", node])
        #expect(alone == 1 && aloneText.contains("needs a running hub"), "exit \(alone): \(aloneText)")
    }

    /// `matterctl add` in a real terminal: a wrong code is refused at the prompt with the reason
    /// and asked again; the device lands in the typed room with the typed name.
    @Test func addInARealTerminal() async throws {
        try await Self.withHubAndDevice(discriminator: 3404, port: 5704, hubPort: 5592) { lab, state, device in
            try await Self.driveAddInTmux(lab, state, device)
        }
    }

    static func driveAddInTmux(_ lab: Lab, _ state: String, _ device: (process: ChildProcess, qr: String, manual: String)) async throws {
        let socket = "mhadd\(UInt32.random(in: 0...UInt32.max))"
        let tmux = ["tmux", "-L", socket]
        let (started, startOut) = try await lab.run(on: hubHost, tmux + [
            "new-session", "-d", "-s", "add", "-x", "160", "-y", "50",
            "\(Lab.matterctl) add --state \(state); echo EXIT=$?; sleep 60"])
        #expect(started == 0, "\(startOut)")
        defer { _ = try? ProcessRunner.run("/usr/bin/tmux", ["-L", socket, "kill-server"]) }

        func screen() throws -> String { try ProcessRunner.run("/usr/bin/tmux", ["-L", socket, "capture-pane", "-p", "-t", "add"]).stdout }
        func type(_ text: String) throws {
            _ = try ProcessRunner.run("/usr/bin/tmux", ["-L", socket, "send-keys", "-t", "add", "-l", text])
            _ = try ProcessRunner.run("/usr/bin/tmux", ["-L", socket, "send-keys", "-t", "add", "Enter"])
        }
        func waitFor(_ text: String, count: Int = 1, seconds: Double = 30) async throws -> String {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                let s = try screen()
                if s.components(separatedBy: text).count - 1 >= count { return s }
                try await Task.sleep(for: .milliseconds(100))
            }
            Issue.record("'\(text)' did not appear; the screen:\n\(try screen())")
            return try screen()
        }

        _ = try await waitFor("Setup code")
        try type("34970112333")  // a check digit that does not match
        let refused = try await waitFor("Setup code", count: 2)
        #expect(refused.contains("that is not a valid setup code"), "\(refused)")
        // Pasted as a QR code: its long discriminator picks this device among the lab's others
        // (a manual code carries only the short one, which other tests' devices share).
        try type(device.qr)
        _ = try await waitFor("Room:")
        try type("Office")
        _ = try await waitFor("Name [")
        try type("Desk lamp")
        let done = try await waitFor("EXIT=", seconds: 60)
        print(done)
        #expect(done.contains("Added \"Desk lamp\" in Office.") && done.contains("EXIT=0"), "\(done)")
        #expect(done.contains("[1] discovery") && done.contains("CommissioningComplete"), "\(done)")
        let (_, list) = try await ctl(lab, state, ["devices", "--json"])
        #expect(list.contains("\"name\":\"Desk lamp\"") && list.contains("\"room\":\"Office\""), "\(list)")
    }
}
