import Foundation
import MatterCertificates
import MatterCommissioning
import MatterDiscovery
import MatterHome
import MatterVirtualDevice
import Synchronization
import Testing
import TestSupport

/// DNS-SD answers pointing at devices on UDP loopback ([::1]): the Home API runs end to end in
/// this process against real virtual devices, without avahi.
struct LoopbackBrowser: ServiceBrowsing {
    let devices: [(discriminator: UInt16, port: UInt16)]

    func browse(type: String) -> AsyncThrowingStream<ServiceEvent, any Error> {
        let services = devices.map { d in
            ServiceInstance(name: String(format: "%016X", UInt64(d.port)), type: "_matterc._udp", domain: "local",
                            host: "loopback.local", port: d.port,
                            addresses: [ServiceAddress(ip: "::1", family: .ipv6, interfaceIndex: 0, interfaceName: "lo")],
                            txt: TXTRecord(["D": String(d.discriminator), "VP": "65521+32768", "CM": "1"]))
        }
        return AsyncThrowingStream { c in
            if type.contains("_matterc") { for s in services { c.yield(.found(s)) } }
            c.yield(.allForNow)
        }
    }
}

@Suite(.serialized) struct HomeAPITests {
    static func paaStore() throws -> PAATrustStore {
        let url = TestVectors.directory.appendingPathComponent("attestation/test-attestation/Chip-Test-PAA-FFF1-Cert.der")
        return PAATrustStore(files: [("paa.der", [UInt8](try Data(contentsOf: url)))])
    }

    static func device(discriminator: UInt16) async throws -> VirtualDevice {
        let d = try await VirtualDevice(configuration: VirtualDeviceConfiguration(
            passcode: 20_202_021, discriminator: discriminator, port: 0, advertises: false))
        await d.start()
        return d
    }

    static func tempDir() -> String {
        let dir = NSTemporaryDirectory() + "matterhub-home-\(UInt32.random(in: 0...UInt32.max))"
        return dir
    }

    @Test func commissioningFlowShapedLikeTheHomeAPIs() async throws {
        let device = try await Self.device(discriminator: 101)
        defer { Task { await device.shutdown() } }
        let port = await device.port
        let hub = try Hub(stateDirectory: Self.tempDir(), discovery: MatterDiscovery(browser: LoopbackBrowser(devices: [(101, port)])))
        let home = Home(hub: hub)
        let structure = try #require(try await home.structures().first)

        // Complete before prepare is refused, and a second prepare while one is active too.
        await #expect(throws: HomeError.self) { _ = try await structure.completeMatterCommissioning() }
        try await structure.prepareForMatterCommissioning()
        await #expect(throws: HomeError.self) { try await structure.prepareForMatterCommissioning() }

        let request = structure.matterCommissioningRequest(
            topology: CommissioningTopology(ecosystemName: "MatterHub tests", homes: [.init(id: structure.id, name: structure.name)]),
            onboardingPayload: device.qrCode,
            options: CommissioningOptions(trustStore: try Self.paaStore(), allowTestDevices: true))
        let steps = Mutex<[String]>([])
        let results = try await request.perform { _, t in steps.withLock { $0.append(t.step.rawValue) } }
        let result = try #require(try results.first?.get())
        #expect(steps.withLock { $0 }.last == "commissioning-complete")
        let added = try await structure.completeMatterCommissioning()
        #expect(added == [result.nodeID])
        #expect(await device.isCommissioned)
        #expect(try await home.devices().map(\.id) == [result.nodeID])
        await home.close()
    }

    @Test func cancelReleasesTheSession() async throws {
        let hub = try Hub(stateDirectory: Self.tempDir(), discovery: MatterDiscovery(browser: LoopbackBrowser(devices: [])))
        let structure = try #require(try await Home(hub: hub).structures().first)
        try await structure.prepareForMatterCommissioning()
        try await structure.cancelMatterCommissioning()
        try await structure.prepareForMatterCommissioning()
        try await structure.cancelMatterCommissioning()
        await hub.shutdown()
    }

    @Test func homeMatterCommissionerCommissionsAndConfigures() async throws {
        let device = try await Self.device(discriminator: 102)
        defer { Task { await device.shutdown() } }
        let port = await device.port
        let dir = Self.tempDir()
        let commissioner = try await HomeMatterCommissioner(
            hub: try Hub(stateDirectory: dir, discovery: MatterDiscovery(browser: LoopbackBrowser(devices: [(102, port)]))),
            options: CommissioningOptions(trustStore: try Self.paaStore(), allowTestDevices: true))
        let ids = try await commissioner.commissionMatterDevice(onboardingPayload: device.manualCode)
        #expect(ids.count == 1)
        try await commissioner.configureMatterDevice(deviceName: "Hall light", roomName: "Hall")
        #expect(try await commissioner.fetchRooms().map(\.name).contains("Hall"))
        let stored = try await commissioner.home.device(try #require(ids.first))
        #expect(stored.name == "Hall light" && stored.room?.name == "Hall")
        // NodeLabel was written on the device over CASE.
        let label = try await stored.read(endpoint: 0, cluster: 0x28, attribute: 5)
        #expect(try label.utf8() == "Hall light")
        await commissioner.home.close()
    }

    @Test func wrongPasscodeIsANamedPASEFailureAndNothingIsRecorded() async throws {
        let device = try await Self.device(discriminator: 103)
        defer { Task { await device.shutdown() } }
        let port = await device.port
        let commissioner = try await HomeMatterCommissioner(
            hub: try Hub(stateDirectory: Self.tempDir(), discovery: MatterDiscovery(browser: LoopbackBrowser(devices: [(103, port)]))),
            options: CommissioningOptions(trustStore: try Self.paaStore(), allowTestDevices: true))
        // Discriminator 103 with another passcode.
        let wrong = try QRCodeHelper.code(discriminator: 103, passcode: 20_202_022)
        do {
            _ = try await commissioner.commissionMatterDevice(onboardingPayload: wrong)
            Issue.record("commissioning with a wrong passcode succeeded")
        } catch {
            #expect(error.commissioningError?.step == .pase && error.commissioningError?.isWrongPasscode == true)
        }
        #expect(try await commissioner.home.devices().isEmpty)
        await commissioner.home.close()
    }
}

import MatterSetupPayload
enum QRCodeHelper {
    static func code(discriminator: UInt16, passcode: UInt32) throws -> String {
        try QRCode.encode([SetupPayload(kind: .qrCode, vendorID: 0xFFF1, productID: 0x8000, commissioningFlow: .standard,
                                        discoveryCapabilities: .onNetwork, discriminator: .long(discriminator), passcode: passcode)])
    }
}
