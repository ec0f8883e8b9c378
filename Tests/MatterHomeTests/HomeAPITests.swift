import Foundation
import MatterCertificates
import MatterClusters
import MatterCommissioning
import MatterDiscovery
import MatterHome
import MatterInteraction
import MatterTLV
import MatterVirtualDevice
import Synchronization
import Testing
import TestSupport

/// DNS-SD answers pointing at devices on UDP loopback ([::1]), or at each device's address in
/// `addresses`: the Home API runs end to end against real virtual devices, without avahi.
struct LoopbackBrowser: ServiceBrowsing {
    let devices: [(discriminator: UInt16, port: UInt16)]
    var addresses: [ServiceAddress] = []

    func browse(type: String) -> AsyncThrowingStream<ServiceEvent, any Error> {
        let services = devices.enumerated().map { i, d in
            ServiceInstance(name: String(format: "%016X", UInt64(d.port)), type: "_matterc._udp", domain: "local",
                            host: "loopback.local", port: d.port,
                            addresses: [i < addresses.count ? addresses[i]
                                        : ServiceAddress(ip: "::1", family: .ipv6, interfaceIndex: 0, interfaceName: "lo")],
                            txt: TXTRecord(["D": String(d.discriminator), "VP": "65521+32768", "CM": "1"]))
        }
        // A subtype browse (by discriminator, _CM) gets only the services that fit it.
        return FixedServiceBrowser(services).browse(type: type)
    }
}

@Suite(.serialized) struct HomeAPITests {
    static func paaStore() throws -> PAATrustStore {
        let url = TestVectors.directory.appendingPathComponent("attestation/test-attestation/Chip-Test-PAA-FFF1-Cert.der")
        return PAATrustStore(files: [("paa.der", [UInt8](try Data(contentsOf: url)))])
    }

    static func device(discriminator: UInt16, netnsPath: String? = nil) async throws -> VirtualDevice {
        let d = try await VirtualDevice(configuration: VirtualDeviceConfiguration(
            passcode: 20_202_021, discriminator: discriminator, port: 0, advertises: false, netnsPath: netnsPath))
        await d.start()
        return d
    }

    static func tempDir() -> String {
        let dir = NSTemporaryDirectory() + "matterhub-home-\(UInt32.random(in: 0...UInt32.max))"
        return dir
    }

    /// The discriminator a test's device has in `mode` on `network` (each run its own).
    static func discriminator(_ base: UInt16, _ mode: HomeMode, _ network: HomeNetwork) -> UInt16 {
        base + mode.offset + network.offset
    }

    /// Runs `body` on a device and a home in `mode` on `network`, closing both afterwards.
    static func withHome(_ mode: HomeMode, _ network: HomeNetwork = .loopback, discriminator: UInt16?,
                         _ body: (HomeFixture, VirtualDevice?) async throws -> Void) async throws {
        var device: VirtualDevice?
        var devices: [(discriminator: UInt16, port: UInt16)] = []
        if let discriminator {
            let d = try await Self.device(discriminator: Self.discriminator(discriminator, mode, network),
                                          netnsPath: try network.netnsPath(HomeNetwork.deviceHost))
            device = d
            devices = [(Self.discriminator(discriminator, mode, network), await d.port)]
        }
        let fixture = try await HomeFixture.make(mode, network, devices: devices)
        do { try await body(fixture, device) } catch {
            await fixture.close()
            await device?.shutdown()
            throw error
        }
        await fixture.close()
        await device?.shutdown()
    }

    @Test(arguments: HomeMode.allCases, HomeNetwork.available)
    func commissioningFlowShapedLikeTheHomeAPIs(_ mode: HomeMode, _ network: HomeNetwork) async throws {
        try await Self.withHome(mode, network, discriminator: 101) { fixture, device in
            let device = try #require(device)
            let home = fixture.home
            #expect(home.mode == fixture.expectedMode)
            let structure = try #require(try await home.structures().first)

            // Complete before prepare is refused, and a second prepare while one is active too.
            await #expect(throws: HomeError.self) { _ = try await structure.completeMatterCommissioning() }
            do throws(HomeError) { _ = try await structure.completeMatterCommissioning() } catch {
                #expect(error.code == .noCommissioningSession && error.message == "call prepareForMatterCommissioning() first")
            }
            try await structure.prepareForMatterCommissioning()
            do throws(HomeError) {
                try await structure.prepareForMatterCommissioning()
                Issue.record("a second prepare was accepted")
            } catch {
                #expect(error.code == .commissioningSessionActive && error.message.hasPrefix("another commissioning session is active"))
            }

            let request = structure.matterCommissioningRequest(
                topology: CommissioningTopology(ecosystemName: "MatterHub tests", homes: [.init(id: structure.id, name: structure.name)]),
                onboardingPayload: device.qrCode, options: fixture.callerOptions)
            let steps = Mutex<[String]>([])
            let results = try await request.perform(name: "Lamp") { _, t in steps.withLock { $0.append(t.step.rawValue) } }
            let result = try #require(try results.first?.get())
            // Every step was heard as it finished, in order, and they are the steps of the result.
            #expect(steps.withLock { $0 }.last == "commissioning-complete")
            #expect(steps.withLock { $0 } == result.timings.map(\.step.rawValue))
            #expect(result.vendorID == 0xFFF1 && result.productID == 0x8000)
            // Where it answered on its operational network (the loopback DNS-SD answer), and the
            // store's record of it: the same through the hub as embedded.
            let port = await device.port
            let expected = try network.deviceAddress(port: port)
            #expect(result.address == expected.address)
            let added = try await structure.completeMatterCommissioning()
            #expect(added == [result.nodeID])
            #expect(await device.isCommissioned)
            let devices = try await home.devices()
            #expect(devices.map(\.id) == [result.nodeID] && devices.first?.name == "Lamp")
            #expect(devices.first?.record.addresses == [expected.record])
        }
    }

    /// What `matterctl commission --name --room` does, from the Home API: the room is found
    /// whatever its case (or added), and the name goes on the device as NodeLabel.
    @Test(arguments: HomeMode.allCases, HomeNetwork.available)
    func commissionsIntoANamedRoomAndLabelsTheDevice(_ mode: HomeMode, _ network: HomeNetwork) async throws {
        try await Self.withHome(mode, network, discriminator: 105) { fixture, device in
            let device = try #require(device)
            let structure = try #require(try await fixture.home.structures().first)
            let kitchen = try await structure.addRoom(name: "Kitchen")
            #expect(try await structure.room(named: "kITCHEN") == kitchen)
            try await structure.prepareForMatterCommissioning()
            let porch = try await structure.room(named: "Porch")
            #expect(try await structure.rooms().map(\.name).sorted() == ["Kitchen", "Porch"])
            let results = try await structure.commissionMatterDevices(onboardingPayload: device.qrCode, name: "Lamp", room: porch,
                                                                      options: fixture.callerOptions)
            let outcome = try #require(try results.first?.get())
            #expect(outcome.nodeLabelError == nil)
            #expect(try await structure.completeMatterCommissioning() == [outcome.device.nodeID])
            let lamp = try await fixture.home.device(outcome.device.nodeID)
            #expect(lamp.name == "Lamp" && lamp.room?.id == porch.id)
            #expect(try await lamp.read(endpoint: 0, cluster: 0x28, attribute: 5).utf8() == "Lamp")
        }
    }

    @Test(arguments: HomeMode.allCases, HomeNetwork.available)
    func cancelReleasesTheSession(_ mode: HomeMode, _ network: HomeNetwork) async throws {
        try await Self.withHome(mode, network, discriminator: nil) { fixture, _ in
            let structure = try #require(try await fixture.home.structures().first)
            try await structure.prepareForMatterCommissioning()
            try await structure.cancelMatterCommissioning()
            try await structure.prepareForMatterCommissioning()
            try await structure.cancelMatterCommissioning()
            do throws(HomeError) {
                try await structure.cancelMatterCommissioning()
                Issue.record("cancel without a session was accepted")
            } catch {
                #expect(error.code == .noCommissioningSession)
            }
        }
    }

    @Test(arguments: HomeMode.allCases, HomeNetwork.available)
    func homeMatterCommissionerCommissionsAndConfigures(_ mode: HomeMode, _ network: HomeNetwork) async throws {
        try await Self.withHome(mode, network, discriminator: 102) { fixture, device in
            let device = try #require(device)
            let commissioner = await HomeMatterCommissioner(home: fixture.home, options: fixture.callerOptions)
            let ids = try await commissioner.commissionMatterDevice(onboardingPayload: device.manualCode)
            #expect(ids.count == 1)
            try await commissioner.configureMatterDevice(deviceName: "Hall light", roomName: "Hall")
            #expect(try await commissioner.fetchRooms().map(\.name).contains("Hall"))
            let stored = try await commissioner.home.device(try #require(ids.first))
            #expect(stored.name == "Hall light" && stored.room?.name == "Hall")
            // NodeLabel was written on the device over CASE.
            let label = try await stored.read(endpoint: 0, cluster: 0x28, attribute: 5)
            #expect(try label.utf8() == "Hall light")
        }
    }

    @Test(arguments: HomeMode.allCases, HomeNetwork.available)
    func wrongPasscodeIsANamedPASEFailureAndNothingIsRecorded(_ mode: HomeMode, _ network: HomeNetwork) async throws {
        try await Self.withHome(mode, network, discriminator: 103) { fixture, _ in
            let commissioner = await HomeMatterCommissioner(home: fixture.home, options: fixture.callerOptions)
            // The device's discriminator with another passcode.
            let wrong = try QRCodeHelper.code(discriminator: Self.discriminator(103, mode, network), passcode: 20_202_022)
            do throws(HomeError) {
                _ = try await commissioner.commissionMatterDevice(onboardingPayload: wrong)
                Issue.record("commissioning with a wrong passcode succeeded")
            } catch {
                #expect(error.code == .commissioningFailed)
                #expect(error.commissioningError?.step == .pase && error.commissioningError?.isWrongPasscode == true)
                #expect(error.message == error.commissioningError?.description)
            }
            #expect(try await commissioner.home.devices().isEmpty)
        }
    }

    /// Control after commissioning: invoke and read follow each other, a device that is not
    /// there is the same error either way, sharing opens a window, unpair takes the fabric off.
    @Test(arguments: HomeMode.allCases, HomeNetwork.available)
    func controlShareAndUnpair(_ mode: HomeMode, _ network: HomeNetwork) async throws {
        try await Self.withHome(mode, network, discriminator: 104) { fixture, device in
            let device = try #require(device)
            let commissioner = await HomeMatterCommissioner(home: fixture.home, options: fixture.callerOptions)
            let node = try #require(try await commissioner.commissionMatterDevice(onboardingPayload: device.qrCode).first)
            let lamp = try await fixture.home.device(node)
            try await lamp.invoke(endpoint: 1, cluster: 6, command: 1)  // On
            #expect(try await lamp.read(endpoint: 1, cluster: 6, attribute: 0).bool() == true)
            try await lamp.invoke(endpoint: 1, cluster: 6, command: 0)  // Off
            #expect(try await lamp.read(endpoint: 1, cluster: 6, attribute: 0).bool() == false)
            // Level Control (0x0008): any level above MinLevel turns the light on, lower than now
            // too; MinLevel turns it off; the device's CONSTRAINT_ERROR for 255 is the same error
            // either way.
            func moveToLevelWithOnOff(_ level: UInt8) -> TLVElement {
                Clusters.LevelControl.MoveToLevel(level: level, transitionTime: 0).element(tag: .anonymous)
            }
            try await lamp.invoke(endpoint: 1, cluster: 8, command: 4, fields: moveToLevelWithOnOff(42))
            #expect(try await lamp.read(endpoint: 1, cluster: 8, attribute: 0).unsigned(as: UInt8.self) == 42)
            #expect(try await lamp.read(endpoint: 1, cluster: 6, attribute: 0).bool() == true)
            try await lamp.invoke(endpoint: 1, cluster: 8, command: 4, fields: moveToLevelWithOnOff(1))
            #expect(try await lamp.read(endpoint: 1, cluster: 6, attribute: 0).bool() == false)
            try await lamp.invoke(endpoint: 1, cluster: 8, command: 4, fields: moveToLevelWithOnOff(200))
            #expect(try await lamp.read(endpoint: 1, cluster: 8, attribute: 0).unsigned(as: UInt8.self) == 200)
            #expect(try await lamp.read(endpoint: 1, cluster: 6, attribute: 0).bool() == true)
            #expect(await device.currentLevel == 200)
            #expect(await device.isOn)
            do throws(HomeError) {
                try await lamp.invoke(endpoint: 1, cluster: 8, command: 4, fields: moveToLevelWithOnOff(255))
                Issue.record("the device took level 255")
            } catch {
                #expect(error.code == .deviceRefused, "\(error)")
                #expect(error.message == "command 8/4 on \(lamp.name) failed: command 1/0x8/0x4 failed with ConstraintError (0x87): "
                        + "a value is out of its allowed range")
            }
            // Writes: Location (0/40/6), then NodeLabel; the home keeps its name for the device.
            try await lamp.write(endpoint: 0, cluster: 0x28, attribute: 6, value: .utf8("DE"))
            #expect(try await lamp.read(endpoint: 0, cluster: 0x28, attribute: 6).utf8() == "DE")
            try await lamp.writeNodeLabel("Porch")
            #expect(try await lamp.read(endpoint: 0, cluster: 0x28, attribute: 5).utf8() == "Porch")
            #expect(try await fixture.home.device(node).name == lamp.name)
            do throws(HomeError) {
                try await lamp.write(endpoint: 0, cluster: 0x28, attribute: 6, value: .utf8("DEU"))  // not 2 letters
                Issue.record("the device took a 3-letter Location")
            } catch {
                #expect(error.code == .deviceRefused && error.message.hasPrefix("writing 40/6 on \(lamp.name) failed: "), "\(error)")
            }
            do throws(HomeError) {
                _ = try await fixture.home.device(0xDEAD)
                Issue.record("a missing device was found")
            } catch {
                #expect(error.code == .deviceNotFound && error.message == "no device with node ID 0x000000000000DEAD in this home (see 'matterctl devices')")
            }
            let codes = try await lamp.share(timeoutSeconds: 180)
            #expect(codes.qr.hasPrefix("MT:") && codes.manual.count == 11)
            try await lamp.unpair()
            #expect(try await fixture.home.devices().isEmpty)
            #expect(await eventually(5) { await device.fabricIndexes.isEmpty })
        }
    }

    /// A device shared from another ecosystem, known by its PIN alone (`matterctl commission
    /// --pin`, the dashboard's add with 8 digits): every device in commissioning mode is tried;
    /// a PIN none accepts is a wrong-passcode failure naming both and records nothing; the
    /// second device's PIN commissions the second and leaves the first untouched; an address
    /// limits the search to the device there.
    @Test(arguments: HomeMode.allCases, HomeNetwork.available)
    func commissionsTheDeviceThatAcceptsThePIN(_ mode: HomeMode, _ network: HomeNetwork) async throws {
        var devices: [VirtualDevice] = []
        var adverts: [(discriminator: UInt16, port: UInt16)] = []
        for (i, passcode) in [UInt32(20_202_021), 13_572_468].enumerated() {
            let discriminator = Self.discriminator(110 + UInt16(i), mode, network)
            let device = try await VirtualDevice(configuration: VirtualDeviceConfiguration(
                passcode: passcode, discriminator: discriminator, port: 0, advertises: false,
                netnsPath: try network.netnsPath(HomeNetwork.deviceHost)))
            await device.start()
            devices.append(device)
            adverts.append((discriminator, await device.port))
        }
        let fixture = try await HomeFixture.make(mode, network, devices: adverts)
        do { try await pinOnly(fixture, devices, adverts) } catch {
            await fixture.close()
            for d in devices { await d.shutdown() }
            throw error
        }
        await fixture.close()
        for d in devices { await d.shutdown() }
    }

    func pinOnly(_ fixture: HomeFixture, _ devices: [VirtualDevice], _ adverts: [(discriminator: UInt16, port: UInt16)]) async throws {
        let structure = try #require(try await fixture.home.structures().first)
        func commission(pin: UInt32, address: String? = nil) async throws -> Result<CommissioningOutcome, CommissioningError> {
            try await structure.prepareForMatterCommissioning()
            let results = try await structure.commissionMatterDevices(.setupPIN(pin, address: address), name: "Shared lamp",
                                                                      options: fixture.callerOptions)
            _ = try await structure.completeMatterCommissioning()
            #expect(results.count == 1)
            return try #require(results.first)
        }

        if case .failure(let error) = try await commission(pin: 11_223_344) {
            #expect(error.code == .wrongPasscode && error.step == .pase, "\(error)")
            for (discriminator, _) in adverts { #expect(error.reason.contains("discriminator \(discriminator)"), "\(error)") }
            #expect(!error.description.contains("11223344"), "the PIN is a secret: \(error)")
        } else {
            Issue.record("a PIN no device has commissioned one")
        }
        if case .failure(let error) = try await commission(pin: 13_572_468, address: "192.0.2.99") {
            #expect(error.code == .deviceNotFound && error.reason.contains("none was found"), "\(error)")
            #expect(error.device.contains("at 192.0.2.99"), "\(error)")
        } else {
            Issue.record("commissioned a device at an address none has")
        }
        #expect(try await fixture.home.devices().isEmpty)

        let address = try fixture.network.deviceAddress(port: adverts[1].port).service.ip
        let outcome = try await commission(pin: 13_572_468, address: address).get()
        let (first, second) = (await devices[0].isCommissioned, await devices[1].isCommissioned)
        #expect(second && !first)
        let stored = try await fixture.home.devices()
        #expect(stored.map(\.id) == [outcome.device.nodeID] && stored.first?.name == "Shared lamp")
    }

    /// One commissioning session for the whole home: a second client (another connection to
    /// the hub, or another process on the directory) is refused while the first holds it.
    @Test(arguments: HomeMode.allCases, HomeNetwork.available)
    func aSecondClientGetsCommissioningSessionActive(_ mode: HomeMode, _ network: HomeNetwork) async throws {
        try await Self.withHome(mode, network, discriminator: nil) { fixture, _ in
            let first = try #require(try await fixture.home.structures().first)
            let other = try await fixture.secondClient()
            let second = try #require(try await other.structures().first)
            try await first.prepareForMatterCommissioning()
            do throws(HomeError) {
                try await second.prepareForMatterCommissioning()
                Issue.record("two sessions at once")
            } catch {
                #expect(error.code == .commissioningSessionActive)
            }
            try await first.cancelMatterCommissioning()
            try await second.prepareForMatterCommissioning()
            try await second.cancelMatterCommissioning()
            await other.close()
        }
    }
}

import MatterSetupPayload
enum QRCodeHelper {
    static func code(discriminator: UInt16, passcode: UInt32) throws -> String {
        try QRCode.encode([SetupPayload(kind: .qrCode, vendorID: 0xFFF1, productID: 0x8000, commissioningFlow: .standard,
                                        discoveryCapabilities: .onNetwork, discriminator: .long(discriminator), passcode: passcode)])
    }
}
