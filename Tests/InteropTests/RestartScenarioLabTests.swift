import Foundation
import Testing
import TestSupport

/// Every device back by itself (issue 29), in the lab, each scenario with its bound:
/// - the hub restarted with 50 nodes: all available within ``restartBound``, with `_matter._tcp`
///   answering and with the hub host's mDNS silent (its last-known addresses alone);
/// - a device restarted on another port, and a device whose host's address changed (a new ULA, the
///   old one gone): available again within ``movedBound`` of the change;
/// - the device's network down for 2 minutes: unavailable within its subscription's lapse, then
///   available within ``outageBound`` of the network's return (the retry backoff's 60 s ceiling
///   and a handshake);
/// - a subscription that goes silent on the device side while it keeps answering: noticed within
///   its max interval plus ``lapseSlack``.
/// Devices on h12, the hub on h13 (its API over the state directory's Unix socket). The suite
/// runs with no other suite beside it (scripts/test's one-at-a-time pass): its 50 devices'
/// adverts on the shared link slowed the discovery tests next to it, and they its bounds.
/// `MATTERHUB_RESTART_RUNS=10` runs each scenario ten times in a row (CI runs each once);
/// `MATTERHUB_RESTART_NODES` sets the first scenario's fleet (default 50).
@Suite(.serialized, .enabled(if: Lab.isAvailable, "lab integration tests need root (network namespaces): run scripts/test as root"))
struct RestartScenarioLabTests {
    static let deviceHost = 12
    static let hubHost = 13
    static let runs = max(1, Int(ProcessInfo.processInfo.environment["MATTERHUB_RESTART_RUNS"] ?? "") ?? 1)
    static let fleet = max(1, Int(ProcessInfo.processInfo.environment["MATTERHUB_RESTART_NODES"] ?? "") ?? 50)

    static let restartBound = 30.0
    static let movedBound = 15.0
    static let outageBound = 75.0
    /// The hub's lapse margin (5 s) and scheduling slack.
    static let lapseSlack = 8.0

    /// Waits until `count` nodes are available on a hub whose process started at `start`: the
    /// listing at `start_listening`, then each node_updated. How many were, and when (seconds).
    static func waitAllAvailable(_ api: HubAPIDriver, count: Int, since start: ContinuousClock.Instant,
                                 timeout: Double) async throws -> (available: Int, seconds: Double) {
        let listing = try await api.command("start_listening")
        var available = Set(((listing["result"] as? [[String: Any]]) ?? []).compactMap { node -> UInt64? in
            node["available"] as? Bool == true ? (node["node_id"] as? NSNumber)?.uint64Value : nil
        })
        let deadline = Date().addingTimeInterval(timeout)
        var from = api.events.count
        while available.count < count,
              let (index, data) = try await api.event("node_updated", from: from, timeout: deadline.timeIntervalSinceNow) {
            from = index + 1
            guard let node = data as? [String: Any], let id = (node["node_id"] as? NSNumber)?.uint64Value else { continue }
            if node["available"] as? Bool == true { available.insert(id) } else { available.remove(id) }
        }
        return (available.count, Self.seconds(since: start))
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// One hub on a fresh state, one device commissioned into it through the API.
    static func hubWithDevice(_ lab: Lab, _ name: String, discriminator: Int, port: Int, _ extra: [String] = [])
        async throws -> (hub: ChildProcess, api: HubAPIDriver, device: HubLab.Device, deviceState: String, node: UInt64) {
        let deviceState = HubLab.newDirectory(lab, "\(name)-vd")
        let device = try await HubLab.startDevice(lab, on: deviceHost, state: deviceState, discriminator: discriminator, port: port, extra)
        let state = HubLab.newDirectory(lab, "\(name)-hub")
        let hub = try await HubLab.startHub(lab, on: hubHost, state: state, paa: try CircuitMatterCommissioningTests.paaStore(lab))
        let api = try await HubAPIDriver(stateDirectory: state)
        _ = try await api.command("start_listening")
        let node = try await HubLifecycleLabTests.commission(api, device.qr)
        return (hub, api, device, deviceState, node)
    }

    @Test func aRestartedHubHasEveryNodeBackWithAndWithoutMDNS() async throws {
        let lab = try Lab.shared()
        let paa = try CircuitMatterCommissioningTests.paaStore(lab)
        let devices = try lab.spawn(on: Self.deviceHost, [Lab.matterctl, "virtual-device", "--count", String(Self.fleet),
                                                         "--discriminator", "2401", "--port", "7001", "--passcode", "13572468",
                                                         "--state", HubLab.newDirectory(lab, "fleet-vd")])
        defer { devices.kill9() }
        try #require(await devices.waitForLine(timeout: 60) { $0.contains("virtual-device: ready") } != nil, "\(devices.text.suffix(2000))")
        let codes = devices.lines.filter { $0.hasPrefix("QR code: MT:") }.map { String($0.dropFirst("QR code: MT:".count)) }
        try #require(codes.count == Self.fleet)
        let state = HubLab.newDirectory(lab, "fleet-hub")
        let (status, output) = try await lab.run(on: Self.hubHost, [Lab.matterctl, "commission", "MT:" + codes.joined(separator: "*"),
                                                                    "--state", state, "--paa-store", paa, "--allow-test-devices", "--json"],
                                                 timeout: 300)
        #expect(status == 0, "\(output.suffix(3000))")
        try #require(output.components(separatedBy: "\"commissioned\"").count - 1 >= Self.fleet, "\(output.suffix(3000))")

        for run in 1...Self.runs {
            for silent in [false, true] {
                // Silent: the hub host's avahi-daemon is stopped, so the hub neither browses nor
                // resolves; only the addresses it stored can bring its nodes back.
                if silent { try await lab.avahi(on: Self.hubHost, "stop") }
                let start = ContinuousClock.now
                let hub = try await HubLab.startHub(lab, on: Self.hubHost, state: state, paa: paa)
                defer { hub.kill9() }
                let api = try await HubAPIDriver(stateDirectory: state)
                let (available, seconds) = try await Self.waitAllAvailable(api, count: Self.fleet, since: start,
                                                                           timeout: Self.restartBound + 30)
                let mdns = silent ? "silent" : "answering"
                print(String(format: "restart scenario: hub restart %d/%d with %d nodes, mDNS %@: %d available after %.1f s (bound %.0f s)",
                             run, Self.runs, Self.fleet, mdns, available, seconds, Self.restartBound))
                #expect(available == Self.fleet && seconds <= Self.restartBound,
                        "hub restart \(run), mDNS \(mdns): \(available)/\(Self.fleet) after \(seconds) s\nhub:\n\(hub.text.suffix(3000))")
                // A clean stop tells clients nothing about availability (Home Assistant keeps the
                // last state across a server restart).
                let mark = api.events.count
                await hub.stop(grace: 15)
                let down = try? await api.event("node_updated", from: mark, timeout: 1) { ($0 as? [String: Any])?["available"] as? Bool == false }
                #expect(down == nil, "a clean hub stop sent available: false")
                if silent { try await lab.avahi(on: Self.hubHost, "start") }
            }
        }
    }

    @Test func aDeviceOnAnotherPortOrAddressIsBackAtOnce() async throws {
        let lab = try Lab.shared()
        // IPv6 alone on the device's host: a session over its IPv4 address (which does not
        // change below) would rightly stay up and make the address change a no-op.
        let ipv4 = "\(lab.hosts[Self.deviceHost].ipv4)/16"
        _ = try await lab.run(on: Self.deviceHost, ["ip", "-4", "addr", "flush", "dev", "eth0"])
        let (hub, api, first, deviceState, node) = try await Self.hubWithDevice(lab, "moved", discriminator: 2461, port: 7101)
        defer { hub.kill9() }
        var device = first
        defer { device.process.kill9() }

        // Restarted on another port each time: its advert goes and comes back elsewhere.
        let browse = try lab.spawn(on: Self.hubHost, ["avahi-browse", "-pr", "_matter._tcp"])
        defer { browse.kill9() }
        for run in 1...Self.runs {
            await device.process.stop()
            let port = 7101 + run % 2
            let mark = api.events.count
            device = try await HubLab.startDevice(lab, on: Self.deviceHost, state: deviceState, discriminator: 2461, port: port)
            let restarted = ContinuousClock.now
            let up = try await api.event("node_updated", from: mark, timeout: Self.movedBound + 30,
                                         where: HubAPIDriver.nodeUpdated(node, available: true))
            let seconds = Self.seconds(since: restarted)
            print(String(format: "restart scenario: device restart %d/%d on port %d: available after %.1f s (bound %.0f s)",
                         run, Self.runs, port, seconds, Self.movedBound))
            #expect(up != nil && seconds <= Self.movedBound,
                    "device restart \(run): \(seconds) s\nhub:\n\(hub.text.suffix(3000))\nthe hub host's browse:\n\(browse.text.suffix(3000))")
            #expect(try await HubLifecycleLabTests.toggle(api, node), "device restart \(run): the node cannot be controlled")
        }

        // Its host's address changes: a new ULA, the old one removed (as a new prefix or a Thread
        // prefix change does). The hub's host gets one in the same prefix (the lab has no router).
        let prefix = "fd29:12:34:56"
        _ = try await lab.run(on: Self.hubHost, ["ip", "-6", "addr", "add", "\(prefix)::13/64", "dev", "eth0", "nodad"])
        var current: String?
        for run in 0...Self.runs {
            let next = "\(prefix)::\(100 + run)"
            let mark = api.events.count
            let changed = ContinuousClock.now
            _ = try await lab.run(on: Self.deviceHost, ["ip", "-6", "addr", "add", "\(next)/64", "dev", "eth0", "nodad"])
            if let current { _ = try await lab.run(on: Self.deviceHost, ["ip", "-6", "addr", "del", "\(current)/64", "dev", "eth0"]) }
            current = next
            // The first ULA replaces the link-local address in the device's advert (Avahi
            // announces link-local only while there is nothing wider); the device moved.
            let down = try await api.event("node_updated", from: mark, timeout: Self.movedBound,
                                           where: HubAPIDriver.nodeUpdated(node, available: false))
            let up = try await api.event("node_updated", from: down?.index ?? mark, timeout: Self.movedBound,
                                         where: HubAPIDriver.nodeUpdated(node, available: true))
            let seconds = Self.seconds(since: changed)
            print(String(format: "restart scenario: address change %d/%d to %@: the hub reconnected after %.1f s (bound %.0f s)",
                         run, Self.runs, next, seconds, Self.movedBound))
            #expect(down != nil && up != nil && seconds <= Self.movedBound,
                    "address change \(run) to \(next): noticed \(down != nil), back \(up != nil)\nhub:\n\(hub.text.suffix(3000))")
            #expect(try await HubLifecycleLabTests.toggle(api, node), "address change \(run): the node cannot be controlled at \(next)")
        }
        if let current { _ = try? await lab.run(on: Self.deviceHost, ["ip", "-6", "addr", "del", "\(current)/64", "dev", "eth0"]) }
        _ = try? await lab.run(on: Self.hubHost, ["ip", "-6", "addr", "del", "\(prefix)::13/64", "dev", "eth0"])
        _ = try? await lab.run(on: Self.deviceHost, ["ip", "addr", "add", ipv4, "dev", "eth0"])
        await hub.stop()
    }

    @Test func aTwoMinuteOutageEndsWithTheDeviceBack() async throws {
        let lab = try Lab.shared()
        let (hub, api, device, _, node) = try await Self.hubWithDevice(lab, "outage", discriminator: 2471, port: 7201)
        defer { hub.kill9() }
        defer { device.process.kill9() }
        // Everything in and out of the device's host dropped (the switch unplugged, for it).
        let drop = ["{ type filter hook input priority 0; policy drop; }", "{ type filter hook output priority 0; policy drop; }"]
        for run in 1...Self.runs {
            let mark = api.events.count
            let began = ContinuousClock.now
            _ = try await lab.run(on: Self.deviceHost, ["nft", "add", "table", "inet", "outage"])
            _ = try await lab.run(on: Self.deviceHost, ["nft", "add", "chain", "inet", "outage", "inbound", drop[0]])
            _ = try await lab.run(on: Self.deviceHost, ["nft", "add", "chain", "inet", "outage", "outbound", drop[1]])
            let down = try await api.event("node_updated", from: mark, timeout: 120,
                                           where: HubAPIDriver.nodeUpdated(node, available: false))
            let noticed = Self.seconds(since: began)
            // Reading the API meanwhile (it pings; a client that does not answer is dropped).
            _ = try await api.event("no such event", timeout: max(0, 120 - Self.seconds(since: began)))
            let (status, output) = try await lab.run(on: Self.deviceHost, ["nft", "delete", "table", "inet", "outage"])
            try #require(status == 0, "the outage could not be ended: \(output)")
            let ended = ContinuousClock.now
            let up = try await api.event("node_updated", from: down?.index ?? mark, timeout: Self.outageBound + 30,
                                         where: HubAPIDriver.nodeUpdated(node, available: true))
            let seconds = Self.seconds(since: ended)
            print(String(format: "restart scenario: 2-minute outage %d/%d: unavailable after %.1f s, available %.1f s after the network returned (bound %.0f s)",
                         run, Self.runs, noticed, seconds, Self.outageBound))
            #expect(down != nil, "outage \(run): the hub never noticed")
            #expect(up != nil && seconds <= Self.outageBound, "outage \(run): back after \(seconds) s\nhub:\n\(hub.text.suffix(3000))")
            #expect(try await HubLifecycleLabTests.toggle(api, node), "outage \(run): the node cannot be controlled")
        }
        await hub.stop()
    }

    @Test func aSubscriptionSilentOnTheDeviceSideIsNoticed() async throws {
        let lab = try Lab.shared()
        // The device forgets each subscription when its first report is due and keeps answering
        // everything else; as a short-idle SIT device it grants a 10 s max interval.
        let maxInterval = 10.0
        let (hub, api, device, _, node) = try await Self.hubWithDevice(lab, "silent", discriminator: 2481, port: 7301,
                                                                       ["--fault", "silent-subscriptions", "--icd", "sit",
                                                                        "--icd-idle", String(Int(maxInterval))])
        defer { hub.kill9() }
        defer { device.process.kill9() }
        // The hub subscribes just after commissioning (the second or so of that is in the slack).
        var mark = 0
        var subscribed = ContinuousClock.now
        for run in 1...Self.runs {
            let down = try await api.event("node_updated", from: mark, timeout: maxInterval + Self.lapseSlack + 30,
                                           where: HubAPIDriver.nodeUpdated(node, available: false))
            let seconds = Self.seconds(since: subscribed)
            print(String(format: "restart scenario: silent subscription %d/%d: noticed %.1f s after it was made (max interval %.0f s, bound %.0f s)",
                         run, Self.runs, seconds, maxInterval, maxInterval + Self.lapseSlack))
            #expect(down != nil && seconds <= maxInterval + Self.lapseSlack && seconds >= maxInterval - 1,
                    "silent subscription \(run): \(seconds) s\nhub:\n\(hub.text.suffix(3000))")
            let up = try await api.event("node_updated", from: down?.index ?? mark, timeout: 30,
                                         where: HubAPIDriver.nodeUpdated(node, available: true))
            #expect(up != nil, "silent subscription \(run): the node did not come back")
            subscribed = ContinuousClock.now
            mark = (up?.index ?? api.events.count) + 1
        }
        await hub.stop()
    }
}
