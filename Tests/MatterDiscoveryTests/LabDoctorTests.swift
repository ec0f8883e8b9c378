import Foundation
import Testing
import TestSupport
@testable import MatterDiscovery

/// `matterctl doctor` on lab hosts h12 and h13 (used by no other test): passes on a healthy
/// host, and names each defect when h12 is made to fail it: an nft rule dropping UDP 5540 inside
/// its namespace, its avahi-daemon stopped, a border router whose OMR prefix it has no route to,
/// and IPv6 switched off (last: it is the hardest to undo).
@Suite(.enabled(if: Lab.isAvailable,
                "lab integration tests need root (network namespaces): run scripts/test as root, or set MATTERHUB_LAB_ENV"),
       .serialized)
struct LabDoctorTests {
    static let broken = 12
    static let healthy = 13

    /// `--timeout 4`: the multicast check must publish and browse back its own service, and a
    /// border router on another host be seen, within it (1.5 s was tight for a loaded machine).
    static func doctor(_ lab: Lab, on host: Int) async throws -> (status: Int32, findings: [String: [String: Any]]) {
        let (status, output) = try await lab.run(on: host, [Lab.matterctl, "doctor", "--json", "--timeout", "4"])
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("{") }, "no JSON from doctor: \(output)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let list = try #require(o["findings"] as? [[String: Any]])
        var byCheck: [String: [String: Any]] = [:]
        for f in list { byCheck[f["check"] as? String ?? "?"] = f }
        #expect(o["ok"] as? Bool == (status == 0), "exit status and ok agree")
        return (status, byCheck)
    }

    static func status(_ f: [String: [String: Any]], _ check: String) -> String? { f[check]?["status"] as? String }

    @Test func healthyHostPassesAndEachDefectIsNamed() async throws {
        let lab = try Lab.shared()
        // Healthy. Other lab tests may advertise border routers with unrouted OMR prefixes at
        // the same time; the thread check may name those, never ours.
        let good = try await Self.doctor(lab, on: Self.healthy)
        for check in ["avahi", "ipv6", "multicast", "firewall", "mdns-responders", "clock"] {
            #expect(Self.status(good.findings, check) == "ok", "\(check): \(good.findings[check] ?? [:])")
        }
        #expect(Self.status(good.findings, "default-route") == "warn", "lab hosts have no default route")
        if Self.status(good.findings, "thread") != "ok" {
            #expect((good.findings["thread"]?["summary"] as? String)?.contains("OpenThreadBorderRouter") == true)
        } else {
            #expect(good.status == 0)
        }

        // An nft rule inside h12's namespace dropping Matter's port.
        for cmd in [["nft", "add", "table", "inet", "mhdoctor"],
                    ["nft", "add", "chain", "inet", "mhdoctor", "input", "{ type filter hook input priority 0; policy accept; }"],
                    ["nft", "add", "rule", "inet", "mhdoctor", "input", "udp", "dport", "5540", "drop"]] {
            let r = try await lab.run(on: Self.broken, cmd)
            try #require(r.0 == 0, "\(cmd): \(r.1)")
        }
        var bad = try await Self.doctor(lab, on: Self.broken)
        _ = try await lab.run(on: Self.broken, ["nft", "delete", "table", "inet", "mhdoctor"])
        #expect(bad.status == 1)
        #expect(Self.status(bad.findings, "firewall") == "fail", "\(bad.findings["firewall"] ?? [:])")
        #expect((bad.findings["firewall"]?["summary"] as? String)?.contains("5540") == true)

        // avahi-daemon stopped.
        try await lab.avahi(on: Self.broken, "stop")
        bad = try await Self.doctor(lab, on: Self.broken)
        try await lab.avahi(on: Self.broken, "start")
        #expect(bad.status == 1)
        #expect(Self.status(bad.findings, "avahi") == "fail", "\(bad.findings["avahi"] ?? [:])")
        #expect((bad.findings["avahi"]?["action"] as? String)?.contains("systemctl start avahi-daemon") == true)

        // A border router (on h0) advertising an OMR prefix that h12 has no route to.
        LabPublisherTests.useHost0Bus(lab)
        let omr: [UInt8] = [0xFD] + (0..<7).map { _ in UInt8.random(in: 1...255) }
        var txt = TXTRecord()
        txt.set("nn", "Doctor Mesh")
        txt.set("xp", [UInt8](repeating: 0xD0, count: 8))
        txt.set("omr", [0x40] + omr)
        let name = LabDiscoveryTests.uniqueName("Doctor-BR-")
        let br = try AvahiAdvertisement(ServiceAdvert(name: name, type: "_meshcop._udp", port: 49160, txt: txt))
        defer { br.withdraw() }
        #expect(await LabPublisherTests.established(br))
        bad = try await Self.doctor(lab, on: Self.broken)
        #expect(Self.status(bad.findings, "thread") == "fail")
        #expect((bad.findings["thread"]?["summary"] as? String)?.contains(name) == true, "\(bad.findings["thread"] ?? [:])")
        br.withdraw()

        // IPv6 off in h12's namespace.
        let off = try await lab.run(on: Self.broken, ["sysctl", "-w", "net.ipv6.conf.all.disable_ipv6=1"])
        try #require(off.0 == 0, "\(off.1)")
        bad = try await Self.doctor(lab, on: Self.broken)
        _ = try await lab.run(on: Self.broken, ["sysctl", "-w", "net.ipv6.conf.all.disable_ipv6=0"])
        #expect(bad.status == 1)
        #expect(Self.status(bad.findings, "ipv6") == "fail", "\(bad.findings["ipv6"] ?? [:])")
    }
}
