import Foundation
import MatterCommissioning
import MatterDiscovery
@testable import MatterHome
import MatterInteraction
import MatterTLV
import MatterVirtualDevice
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A node whose stored addresses start with one that swallows every datagram (a host that kept
/// the address but not the device) is still reached at once: the addresses are tried in
/// parallel, staggered, instead of each waiting out a whole CASE timeout (5 s) in turn.
@Suite(.serialized) struct CASEAddressRaceTests {
    /// A UDP socket on ::1 that never answers (not closed, so no ICMP port-unreachable either).
    static func silentPort() throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET6, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound)
        return (fd, UInt16(bigEndian: address.sin6_port))
    }

    @Test func aDeadAddressFirstCostsAStaggerNotATimeout() async throws {
        let device = try await VirtualDevice(configuration: VirtualDeviceConfiguration(
            passcode: 20_202_021, discriminator: 208, port: 0, advertises: false))
        await device.start()
        defer { Task { await device.shutdown() } }
        let port = await device.port
        let hub = try Hub(stateDirectory: NSTemporaryDirectory() + "matterhub-race-\(UUID().uuidString)",
                          discovery: MatterDiscovery(browser: FixedServiceBrowser([FixedServiceBrowser.commissionable(discriminator: 208, port: port)])))
        let commissioner = try await HomeMatterCommissioner(
            hub: hub, options: CommissioningOptions(trustStore: try NodeRuntimeTests.paaStore(), allowTestDevices: true))
        let nodeID = try #require(try await commissioner.commissionMatterDevice(onboardingPayload: device.qrCode).first)
        let live = try #require(try hub.store.node(nodeID)?.addresses.first)

        let silent = try Self.silentPort()
        defer { close(silent.fd) }
        let dead = NodeAddress(host: "::1", port: silent.port, interfaceIndex: nil)
        try hub.store.updateAddresses([dead, live], for: nodeID)
        await hub.dropSession(for: nodeID)

        let clock = ContinuousClock()
        let started = clock.now
        let client = try await hub.client(for: nodeID)
        let took = clock.now - started
        // Tried one after the other, the silent address alone would take its 5 s CASE timeout.
        #expect(took < .seconds(4), "reaching the node took \(took)")
        #expect(try await client.readAttribute(ConcreteAttributePath(0, .basicInformation, 1)) == .utf8("MatterHub"))
        // The address that answered is remembered first (the silent one, which did not fail but
        // was cancelled, after it: next time it costs nothing).
        let remembered = try #require(try hub.store.node(nodeID)?.addresses)
        #expect(remembered.count == 2 && remembered[0].isSameEndpoint(as: live) && remembered[1] == dead, "\(remembered)")
        // With when it answered.
        #expect(remembered[0].reachedAt.map { abs($0.timeIntervalSinceNow) < 60 } == true)
        print("reached past a silent first address in \(took)")
    }
}
