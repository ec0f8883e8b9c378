import Foundation
import Testing
@testable import MatterHome

/// The doctor's verdicts on fixed host facts (the lab tests run it on real namespaces).
@Suite struct NetworkDoctorTests {
    static func healthy() -> HostNetworkFacts {
        var h = HostNetworkFacts()
        h.ipv6Disabled = false
        h.interfaces = [.init(name: "lo", isUp: true, isLoopback: true, hasMulticast: false, ipv6LinkLocal: []),
                        .init(name: "eth0", isUp: true, isLoopback: false, hasMulticast: true, ipv6LinkLocal: ["fe80::1"])]
        h.mdnsSocketOwners = ["avahi-daemon"]
        h.defaultRouteInterfaces = ["eth0"]
        return h
    }

    static func discovery() -> NetworkDoctor.DiscoveryFacts {
        var d = NetworkDoctor.DiscoveryFacts()
        d.selfTestPassed = true
        d.deviceInterfaces = ["eth0"]
        return d
    }

    static func status(_ findings: [DoctorFinding], _ check: String) -> DoctorFinding.Status? {
        findings.first { $0.check == check }?.status
    }

    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    @Test func healthyHostPasses() {
        let f = NetworkDoctor.evaluate(host: Self.healthy(), discovery: Self.discovery(), now: Self.now)
        #expect(f.map(\.check) == ["avahi", "ipv6", "multicast", "firewall", "mdns-responders", "default-route", "thread", "clock"])
        #expect(f.allSatisfy { $0.status == .ok }, "\(f)")
    }

    @Test func eachDefectIsNamed() {
        var h = Self.healthy()
        h.ipv6Disabled = true
        #expect(Self.status(NetworkDoctor.evaluate(host: h, discovery: Self.discovery(), now: Self.now), "ipv6") == .fail)
        h = Self.healthy()
        h.interfaces[1].ipv6LinkLocal = []
        #expect(Self.status(NetworkDoctor.evaluate(host: h, discovery: Self.discovery(), now: Self.now), "ipv6") == .fail)
        h = Self.healthy()
        h.mdnsSocketOwners = ["avahi-daemon", "systemd-resolve"]
        let m = NetworkDoctor.evaluate(host: h, discovery: Self.discovery(), now: Self.now).first { $0.check == "mdns-responders" }
        #expect(m?.status == .warn && m?.summary.contains("systemd-resolve") == true)
        var d = Self.discovery()
        d.avahiError = "no bus"
        d.selfTestPassed = nil
        #expect(Self.status(NetworkDoctor.evaluate(host: Self.healthy(), discovery: d, now: Self.now), "avahi") == .fail)
        d = Self.discovery()
        d.selfTestPassed = false
        #expect(Self.status(NetworkDoctor.evaluate(host: Self.healthy(), discovery: d, now: Self.now), "multicast") == .fail)
        d = Self.discovery()
        d.deviceInterfaces = ["wlan0"]
        #expect(Self.status(NetworkDoctor.evaluate(host: Self.healthy(), discovery: d, now: Self.now), "default-route") == .warn)
        #expect(Self.status(NetworkDoctor.evaluate(host: Self.healthy(), discovery: Self.discovery(),
                                                   now: Date(timeIntervalSince1970: 0)), "clock") == .fail)
    }

    @Test func unroutedOMRPrefixFails() {
        var d = Self.discovery()
        let omr: [UInt8] = [0xFD, 0x20, 0xBE, 0x89, 0x49, 0x5A, 0x00, 0x01] + [UInt8](repeating: 0, count: 8)
        d.borderRouters = [(name: "OTBR", omr: omr, length: 64)]
        var h = Self.healthy()
        let f = NetworkDoctor.evaluate(host: h, discovery: d, now: Self.now).first { $0.check == "thread" }
        #expect(f?.status == .fail && f?.summary.contains("fd20:be89:495a:1::/64") == true, "\(String(describing: f))")
        h.routes = HostRoutes(procText: "fd20be89495a00010000000000000000 40 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003     eth0\n")
        #expect(Self.status(NetworkDoctor.evaluate(host: h, discovery: d, now: Self.now), "thread") == .ok)
    }

    @Test(arguments: [
        ("table inet filter {\n chain input {\n  type filter hook input priority filter; policy accept;\n  udp dport 5353 drop\n }\n}", DoctorFinding.Status.fail),
        ("table inet f {\n chain input {\n  type filter hook input priority 0; policy drop;\n }\n}", .warn),
        ("table inet f {\n chain input {\n  type filter hook input priority 0; policy drop;\n  udp dport { 5353, 5540 } accept\n }\n}", .ok),
        ("table inet f {\n chain input {\n  udp dport 5540 reject\n }\n}", .fail),
        ("", .ok),
    ])
    func nftRules(_ ruleset: String, _ expected: DoctorFinding.Status) {
        #expect(NetworkDoctor.firewallFinding(nft: ruleset, iptables: nil).status == expected)
    }

    @Test func iptablesRules() {
        #expect(NetworkDoctor.firewallFinding(nft: nil, iptables: "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p udp -m udp --dport 5353 -j DROP\nCOMMIT\n").status == .fail)
        #expect(NetworkDoctor.firewallFinding(nft: nil, iptables: "*filter\n:INPUT DROP [0:0]\nCOMMIT\n").status == .warn)
        #expect(NetworkDoctor.firewallFinding(nft: nil, iptables: nil).status == .ok)
    }

    @Test func linkLocalAddressesAreRead() {
        let text = "fe80000000000000021122fffe334455 02 40 20 80     eth0\nfd000000000000000000000000000002 02 80 00 80     eth0\n00000000000000000000000000000001 01 80 10 80       lo\n"
        #expect(HostNetworkFacts.parseLinkLocal(text) == ["eth0": ["fe80:0:0:0:211:22ff:fe33:4455"]])
    }
}
