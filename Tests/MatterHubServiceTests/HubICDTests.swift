import Foundation
import MatterCommissioning
import MatterDiscovery
import MatterHome
import MatterHubService
import MatterServerAPI
import MatterTLV
import MatterVirtualDevice
import Synchronization
import Testing
import TestSupport

/// Sleepy devices, in process on loopback: a LIT virtual light that, once the hub registers
/// for its Check-Ins, sleeps between wakes and loses every datagram that arrives meanwhile.
/// The hub keeps it available (asleep) on its schedule, holds a command until it wakes,
/// reconnects on each Check-In when the device lost its subscription, and calls it unavailable
/// only after three wakes pass in silence. The wakes are 3 s apart here (30 s in the lab).
@Suite(.serialized) struct HubICDTests {
    final class Lines: Sendable {
        let all = Mutex<[String]>([])
        func append(_ s: String) { all.withLock { $0.append(s) } }
        func count(_ s: String) -> Int { all.withLock { $0.filter { $0.contains(s) }.count } }
    }

    struct SleepyLab {
        let device: VirtualDevice
        let server: HubServer
        let nodeID: UInt64
        let log: Lines
        let state: String
        var service: HubService { server.service }

        func stop() async {
            await server.stop()
            await device.shutdown()
            try? FileManager.default.removeItem(atPath: state)
        }
    }

    /// Wakes every 3 s, awake 1 s after each, 0.5 s more per message.
    static let fastSchedule = ICDConfiguration(mode: .lit, idleSeconds: 3, activeMilliseconds: 1000, thresholdMilliseconds: 500)

    /// A LIT virtual light and a hub that finds it through fixed DNS-SD answers; with
    /// `commission`, the hub commissions it and it is available (`nodeID`; 0 otherwise).
    static func lab(discriminator: UInt16, schedule: ICDConfiguration = fastSchedule, faults: Set<VirtualDeviceFault> = [],
                    commission: Bool = true, log print: (@Sendable (String) -> Void)? = nil) async throws -> SleepyLab {
        var c = VirtualDeviceConfiguration(discriminator: discriminator, port: 0, advertises: false)
        c.icd = schedule
        c.faults = faults
        let device = try await VirtualDevice(configuration: c)
        await device.start()
        let log = Lines()
        let hub = try await InProcessHub.start(devices: [(discriminator, await device.port)], name: "hubicd",
                                               log: { log.append($0); print?($0) })
        let server = hub.server, state = hub.state
        guard commission else { return SleepyLab(device: device, server: server, nodeID: 0, log: log, state: state) }
        let added = try await server.service.handle(.commissionWithCode(code: device.qrCode, networkOnly: true))
        let nodeID = try #require(added["node_id"]?.uint64)
        #expect(await server.service.runtime.waitUntilAvailable(NodeID(nodeID), timeout: .seconds(30)))
        return SleepyLab(device: device, server: server, nodeID: nodeID, log: log, state: state)
    }

    @Test func aSleepyDeviceStaysAvailableAndTakesACommandAtItsWake() async throws {
        let lab = try await Self.lab(discriminator: 433)
        let service = lab.service, id = lab.nodeID, node = NodeID(lab.nodeID)

        // Registered by the hub itself when it commissioned the LIT-capable device.
        let registered = try await service.handle(.getICDState(nodeID: id))
        #expect(registered["supported"] == .bool(true) && registered["lit_supported"] == .bool(true)
                && registered["registered"] == .bool(true) && registered["next_expected_checkin"]?.int64 != nil, "\(registered)")
        #expect(await lab.device.icdRegisteredClients == 1)
        await #expect(throws: APIError.self, "a second registration") {
            _ = try await service.handle(.registerICD(nodeID: id, allowMultiAdmin: false, ignoredVendors: nil))
        }

        // Eight wakes: available at every look, asleep at some, the device deaf between wakes.
        let clock = ContinuousClock(), start = clock.now
        var asleepSeen = 0, deviceAsleep = 0, looks = 0
        while clock.now - start < .seconds(24) {
            #expect(await service.runtime.isAvailable(node), "unavailable after \((clock.now - start).milliseconds) ms")
            if case .asleep = await service.runtime.connection(of: node) { asleepSeen += 1 }
            if lab.device.isAsleep { deviceAsleep += 1 }
            looks += 1
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(asleepSeen > looks / 4, "the hub said asleep at \(asleepSeen) of \(looks) looks")
        #expect(deviceAsleep > looks / 4, "the device slept at \(deviceAsleep) of \(looks) looks")
        let state = try await service.handle(.getICDState(nodeID: id))
        #expect(state["operating_mode"] == .string("LIT") && state["available"] == .bool(true), "\(state)")

        // A command sent while it sleeps waits for its wake and is delivered then.
        #expect(await eventually(10) { if case .asleep = await service.runtime.connection(of: node) { true } else { false } })
        let wasOn = await lab.device.isOn
        let sent = clock.now
        _ = try await service.handle(.deviceCommand(DeviceCommandArguments(nodeID: id, endpointID: 1, clusterID: 6, commandName: "Toggle")))
        print("a command to the sleeping device was delivered after \((clock.now - sent).milliseconds) ms (wakes every 3000 ms)")
        #expect(await lab.device.isOn != wasOn)
        #expect(lab.log.count("is asleep; the request waits") >= 1)

        // Unregistered: the device forgets the hub and stops sleeping at its next wake.
        let unregistered = try await service.handle(.unregisterICD(nodeID: id, force: false))
        #expect(unregistered["registered"] == .bool(false) && unregistered["next_expected_checkin"] == .null, "\(unregistered)")
        #expect(await lab.device.icdRegisteredClients == 0)
        // register_icd reads the fabrics (one, the hub's) and registers again.
        let again = try await service.handle(.registerICD(nodeID: id, allowMultiAdmin: false, ignoredVendors: []))
        #expect(again["registered"] == .bool(true), "\(again)")
        #expect(await lab.device.icdRegisteredClients == 1)
        #expect(try await service.handle(.resyncICD(nodeID: id)) == .null)
        await lab.stop()
    }

    /// The device loses every subscription (fault silent-subscriptions), so at each wake it
    /// checks in; the hub checks the Check-In and subscribes again. Stopped, it misses its
    /// wakes and the hub calls it unavailable after the third.
    @Test func checkInsBringTheHubBackAndThreeMissedWakesMakeItUnavailable() async throws {
        let lab = try await Self.lab(discriminator: 434, faults: [.silentSubscriptions])
        let service = lab.service, node = NodeID(lab.nodeID)
        let clock = ContinuousClock(), start = clock.now
        while clock.now - start < .seconds(15) {
            #expect(await service.runtime.isAvailable(node), "unavailable after \((clock.now - start).milliseconds) ms")
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(lab.device.checkInsSent >= 2, "\(lab.device.checkInsSent) Check-Ins")
        #expect(lab.log.count("checked in (counter offset") >= 2, "\(lab.log.all.withLock { $0 })")

        await lab.device.shutdown()
        let stopped = clock.now
        let wentUnavailable = await eventually(60) { await !service.runtime.isAvailable(node) }
        let connection = await service.runtime.connection(of: node)
        #expect(wentUnavailable, "still available, \(connection):\n\(lab.log.all.withLock { $0 }.suffix(20).joined(separator: "\n"))")
        print("unavailable \((clock.now - stopped).milliseconds) ms after the device stopped (3 wakes of 3 s, 5 s margin each)")
        #expect(clock.now - stopped > .seconds(15), "unavailable before three wakes passed")
        // The history is written with the next batch of cached values (within a second).
        let store = lab.server.service.hub.store
        #expect(await eventually(5) { (try? store.connectivityHistory(of: node, limit: 1))?.first?.reason == "missed-check-ins" },
                "\((try? store.connectivityHistory(of: node, limit: 3)) ?? [])")
        await lab.server.stop()
        try? FileManager.default.removeItem(atPath: lab.state)
    }

    /// matter-python-client 1.6.1 calls every ICD command against the hub (each answer parsed
    /// into its IcdStateData) and sends a command while the device sleeps (scripts/icd-check.py).
    @Test func matterPythonClient161DrivesASleepyDevice() async throws {
        guard let python = Lab.matterPythonClient() else { return }
        let lab = try await Self.lab(discriminator: 435, commission: false, log: { print($0) })
        let url = try #require(lab.server.urls.first { $0.hasPrefix("ws://") })
        let script = Lab.repositoryRoot.appendingPathComponent("scripts/icd-check.py").path
        let child = try ChildProcess([python, script, url, lab.device.qrCode, "3"])
        let status = await child.wait(timeout: 180)
        let output = child.text
        print(output)
        #expect(status == 0, "\(output)")
        #expect(output.contains(" passed, 0 failed") && !output.contains("FAIL"), "\(output)")
        #expect(output.contains("is delivered at its wake"), "\(output)")
        await lab.stop()
    }

    /// The issue's schedule: a LIT device that wakes every 30 s (ActiveModeDuration 3 s,
    /// threshold 5 s, the CLI's defaults) stays available, asleep between wakes, for 10 minutes;
    /// a command sent while it sleeps is delivered at its next wake; stopped, it is unavailable
    /// after three missed wakes. 12 minutes: it runs under CI (CI=true) or with
    /// MATTERHUB_ICD_SOAK_SECONDS set (the available phase's length).
    @Test func aDeviceWakingEvery30SecondsStaysAvailableForTenMinutes() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let seconds = Int(environment["MATTERHUB_ICD_SOAK_SECONDS"] ?? (environment["CI"] == "true" ? "600" : "")) else {
            print("skipped: the 12-minute soak runs under CI=true or with MATTERHUB_ICD_SOAK_SECONDS")
            return
        }
        let lab = try await Self.lab(discriminator: 436, schedule: ICDConfiguration(mode: .lit))
        let service = lab.service, device = lab.device, id = lab.nodeID, node = NodeID(lab.nodeID)
        #expect(try await service.handle(.getICDState(nodeID: id))["registered"] == .bool(true), "registered at commissioning")

        let clock = ContinuousClock(), start = clock.now
        var looks = 0, unavailableLooks = 0, asleepLooks = 0, deviceAsleepLooks = 0
        var commandDelay: Duration?
        while clock.now - start < .seconds(seconds) {
            looks += 1
            if await !service.runtime.isAvailable(node) { unavailableLooks += 1 }
            if case .asleep = await service.runtime.connection(of: node) { asleepLooks += 1 }
            if device.isAsleep { deviceAsleepLooks += 1 }
            // Half way, while it sleeps: a command, held until its wake.
            if commandDelay == nil, clock.now - start > .seconds(seconds / 2), device.isAsleep {
                let sent = clock.now, wasOn = await device.isOn
                _ = try await service.handle(.deviceCommand(DeviceCommandArguments(nodeID: id, endpointID: 1, clusterID: 6,
                                                                                 commandName: "Toggle")))
                commandDelay = clock.now - sent
                #expect(await device.isOn != wasOn, "the Toggle did not reach the device")
            }
            try await Task.sleep(for: .seconds(1))
        }
        print("soak: \(looks) looks over \(seconds) s: unavailable at \(unavailableLooks), the hub said asleep at \(asleepLooks), "
              + "the device slept at \(deviceAsleepLooks); a Toggle sent while it slept was delivered after "
              + "\(commandDelay.map { "\($0.milliseconds) ms" } ?? "-"); \(device.datagramsLostAsleep) datagrams lost to sleep")
        #expect(unavailableLooks == 0)
        #expect(asleepLooks > looks / 2 && deviceAsleepLooks > looks / 2)
        #expect(commandDelay != nil, "the device was never seen asleep after half time")

        await device.shutdown()
        let stopped = clock.now
        #expect(await eventually(180) { await !service.runtime.isAvailable(node) })
        let after = clock.now - stopped
        print("soak: unavailable \(after.milliseconds) ms after the device stopped (three wakes of 30 s and a 5 s margin each)")
        #expect(after > .seconds(90), "unavailable before three wakes passed")
        await lab.server.stop()
        try? FileManager.default.removeItem(atPath: lab.state)
    }
}
