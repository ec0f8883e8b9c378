import Foundation
import Synchronization
import Testing
import TestSupport
@testable import MatterDiscovery

/// CircuitMatter (a Matter device we did not write) in lab host h0, discovered from h1 by long
/// and by short discriminator. It publishes `_L3840` and `_CM` but no `_S15`, so the short
/// discriminator search goes through the TXT fallback.
@Suite(.enabled(if: Lab.isAvailable,
                "lab integration tests need root (network namespaces): run scripts/test as root, or set MATTERHUB_LAB_ENV"))
struct CircuitMatterDiscoveryTests {
    @Test func foundByLongAndShortDiscriminator() async throws {
        let lab = try Lab.shared()
        let python = Lab.repositoryRoot.appendingPathComponent(".peers/venv/bin/python").path
        try #require(FileManager.default.isExecutableFile(atPath: python),
                     "CircuitMatter is not installed: run scripts/peers (scripts/test does)")
        let state = "\(lab.directory)/circuitmatter-\(UInt32.random(in: 0...UInt32.max))"
        let device = try lab.spawn(on: LabDiscoveryTests.publisher, [
            python, Lab.repositoryRoot.appendingPathComponent("scripts/circuitmatter-device.py").path, state,
            "--passcode", "20202021", "--discriminator", "3840",
        ])
        defer { device.kill9() }
        let ready = await device.waitForLine(timeout: 30) { $0.contains("circuitmatter: ready") }
        try #require(ready != nil, "CircuitMatter did not start: \(device.text)")
        #expect(device.text.contains("MT:MNOA55UM00KA0648G00"), "the fixed setup code gives the known QR payload")

        let publisher = lab.hosts[LabDiscoveryTests.publisher]
        let resolved: @Sendable ([[String: Any]]) -> Bool = { results in
            LabDiscoveryTests.hasResolved(results, on: publisher) { $0["port"] as? Int == 5541 }
        }
        async let long = LabDiscoveryTests.discover(lab, ["commissionable", "--discriminator", "3840"], until: resolved)
        async let short = LabDiscoveryTests.discover(lab, ["commissionable", "--short-discriminator", "15"], until: resolved)
        for (label, results) in [("long", try await long), ("short", try await short)] {
            let d = try #require(results.first { $0["port"] as? Int == 5541 }, "\(label): not found: \(results)")
            #expect(d["discriminator"] as? Int == 3840, "\(label)")
            #expect(d["vendorId"] as? Int == 0xFFF4 && d["productId"] as? Int == 0x1234, "\(label)")
            #expect(d["commissioningMode"] as? Int == 1, "\(label)")
            #expect(d["sessionIdleInterval"] as? Int == 3000 && d["sessionActiveInterval"] as? Int == 4000,
                    "\(label): the older CRI/CRA keys")
            LabDiscoveryTests.expectAddresses(d, of: lab.hosts[LabDiscoveryTests.publisher])
        }
    }
}

/// Our own publisher (`AvahiAdvertisement`), run in this test process against h0's avahi-daemon
/// (this process's one daemon: DBUS_SYSTEM_BUS_ADDRESS is set before libdbus first reads it), seen
/// from h1 by `matterctl discover`.
@Suite(.enabled(if: Lab.isAvailable,
                "lab integration tests need root (network namespaces): run scripts/test as root, or set MATTERHUB_LAB_ENV"))
struct LabPublisherTests {
    static let busSet = Mutex(false)

    /// Points this process's libdbus at h0's bus, once.
    static func useHost0Bus(_ lab: Lab) {
        busSet.withLock { done in
            if !done { setenv("DBUS_SYSTEM_BUS_ADDRESS", lab.hosts[LabDiscoveryTests.publisher].dbusAddress, 1) }
            done = true
        }
    }

    static func established(_ ad: AvahiAdvertisement) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await e in ad.events { if case .established = e { return true } }
                return false
            }
            group.addTask { try? await Task.sleep(for: .seconds(10)); return false }
            let r = await group.next() ?? false
            group.cancelAll()
            return r
        }
    }

    @Test func commissionableAdvertPublishUpdateWithdraw() async throws {
        let lab = try Lab.shared()
        Self.useHost0Bus(lab)
        let name = String(format: "%016llX", UInt64.random(in: 0...UInt64.max))
        var txt = MatterTXT()
        txt.discriminator = 0xABC
        txt.vendorID = 65521
        txt.productID = 5
        txt.commissioningMode = 1
        txt.deviceType = 10
        txt.sessionIdleInterval = 500
        let watch = try lab.spawn(on: LabDiscoveryTests.browser, [Lab.matterctl, "discover", "--instance", name, "--watch", "--json"])
        defer { watch.kill9() }
        let ad = try AvahiAdvertisement(CommissionableAdvert(instanceName: name, port: 5540, txt: txt))
        defer { ad.withdraw() }
        #expect(await Self.established(ad))

        // Every subtype it carries finds it (short discriminator 10 included).
        let filters = [["--discriminator", "2748"], ["--short-discriminator", "10"], ["--vendor-id", "65521"], ["--device-type", "10"]]
        let all = try await withThrowingTaskGroup(of: ([String], [[String: any Sendable]]).self) { group in
            for filter in filters {
                group.addTask {
                    let results = try await LabDiscoveryTests.discover(lab, ["commissionable"] + filter, timeout: 6) {
                        $0.contains { $0["instance"] as? String == name }
                    }
                    return (filter, results.map { $0.mapValues { "\($0)" } })
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(all.count == filters.count)
        for (filter, results) in all {
            let d = try #require(results.first { $0["instance"] as? String == name }, "\(filter): \(results)")
            #expect(d["productId"] as? String == "5" && d["sessionIdleInterval"] as? String == "500", "\(filter)")
        }

        txt.deviceName = "Renamed"
        try ad.update(CommissionableAdvert(instanceName: name, port: 5540, txt: txt).serviceAdvert())
        #expect(await watch.waitForLine(timeout: 20) { $0.contains("\"deviceName\":\"Renamed\"") } != nil, "\(watch.text)")
        ad.withdraw()
        #expect(await watch.waitForLine(timeout: 20) { $0.contains("\"removed\"") } != nil, "\(watch.text)")
    }

    /// Two browses of one type in one process share one avahi browse: the one that joins late
    /// is told at once what the first has found (and "all for now"), and keeps getting events
    /// after the first consumer has stopped.
    @Test func browsesOfOneTypeShareOneAvahiBrowse() async throws {
        let lab = try Lab.shared()
        Self.useHost0Bus(lab)
        let type = "_mh" + String(UInt32.random(in: 0x1000...0xFFFF), radix: 16) + "._udp"
        let name = "shared-\(UInt32.random(in: 0...UInt32.max))"
        let ad = try AvahiAdvertisement(ServiceAdvert(name: name, type: type, port: 5999))
        defer { ad.withdraw() }
        #expect(await Self.established(ad))

        let first = EventLog(AvahiBrowser().browse(type: type))
        #expect(await first.waitFor { $0.contains(.allForNow) && $0.contains { $0.isFound(name) } }, "\(first.events)")
        let second = EventLog(AvahiBrowser().browse(type: type))
        // Replayed from the running browse: no new round of queries needed.
        #expect(await second.waitFor(seconds: 10) { $0.contains(.allForNow) && $0.contains { $0.isFound(name) } },
                "\(second.events)")
        first.stop()
        ad.withdraw()
        #expect(await second.waitFor { $0.contains { if case .removed(let i) = $0 { i.name == name } else { false } } },
                "\(second.events)")
        second.stop()
    }

    @Test func meshcopWithBinaryTXTAndOperationalAdvert() async throws {
        let lab = try Lab.shared()
        Self.useHost0Bus(lab)
        var r = TXTRecord()
        r.set("nn", "Lab-\(UInt16.random(in: 0...UInt16.max))")
        r.set("xp", [0xDE, 0xAD, 0x00, 0xBE, 0xEF, 0x00, 0xCA, 0xFE])
        r.set("sb", [0x00, 0x00, 0x0E, 0xB1])
        r.set("tv", "1.3.0")
        let brName = "BR-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let br = try AvahiAdvertisement(ServiceAdvert(name: brName, type: "_meshcop._udp", port: 49155, txt: r))
        defer { br.withdraw() }
        let cfid = UInt64.random(in: 1...UInt64.max)
        let op = try AvahiAdvertisement(OperationalAdvert(name: OperationalInstanceName(compressedFabricID: cfid, nodeID: 0x42)))
        defer { op.withdraw() }
        #expect(await Self.established(br))
        #expect(await Self.established(op))

        let routers = try await LabDiscoveryTests.discover(lab, ["border-routers"]) { found in
            found.contains { $0["instance"] as? String == brName && $0["stateBitmap"] != nil }
        }
        let b = try #require(routers.first { $0["instance"] as? String == brName }, "\(routers)")
        #expect(b["extendedPanId"] as? String == "dead00beef00cafe")
        let sb = try #require(b["stateBitmap"] as? [String: Any])
        #expect(sb["raw"] as? Int == 0x0EB1 && sb["threadRole"] as? Int == 3 && sb["connectionMode"] as? Int == 1)

        let nodes = try await LabDiscoveryTests.discover(
            lab, ["operational", "--fabric", String(format: "%016llX", cfid), "--node-id", "0x42"]) { found in
            found.first?["nodeId"] as? String == "0000000000000042"
        }
        #expect(nodes.first?["nodeId"] as? String == "0000000000000042", "\(nodes)")
    }

    @Test func nameCollisionRenames() async throws {
        let lab = try Lab.shared()
        Self.useHost0Bus(lab)
        let name = LabDiscoveryTests.uniqueName("C")
        let other = try await LabDiscoveryTests.publish(lab, name: name, type: "_matterc._udp", port: 5540, subtypes: [], txt: ["D=1"])
        defer { other.kill9() }
        let ad = try AvahiAdvertisement(ServiceAdvert(name: name, type: "_matterc._udp", port: 5541, txt: TXTRecord(["D": "2"])))
        defer { ad.withdraw() }
        #expect(await Self.established(ad))
        #expect(ad.currentName != name && ad.currentName.hasPrefix(name), "\(ad.currentName)")
    }
}

/// Collects a browse's events on a task of its own.
final class EventLog: Sendable {
    private final class Events: Sendable { let list = Mutex<[ServiceEvent]>([]) }
    private let log = Events()
    private let task: Task<Void, Never>

    init(_ stream: AsyncThrowingStream<ServiceEvent, any Error>) {
        let log = self.log
        task = Task { do { for try await e in stream { log.list.withLock { $0.append(e) } } } catch {} }
    }

    var events: [ServiceEvent] { log.list.withLock { $0 } }

    func waitFor(seconds: Double = 10, _ condition: ([ServiceEvent]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition(events) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition(events)
    }

    func stop() { task.cancel() }
}

extension ServiceEvent {
    func isFound(_ name: String) -> Bool {
        if case .found(let i) = self { i.name == name } else { false }
    }
}
