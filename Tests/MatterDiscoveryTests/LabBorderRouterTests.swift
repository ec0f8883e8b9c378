import Foundation
import Testing
import TestSupport
@testable import MatterDiscovery

/// `matterctl thread border-routers` on lab host h1 against border agents advertised on h0,
/// their TXT copied from the captures in Home Assistant's Thread tests (home-assistant/core
/// tests/components/thread/__init__.py @ 06ec8a9dd93e4dd64e43a01095c341cfa9e14c84: a Google
/// Nest Hub and Home Assistant's OpenThread border router, with its OMR prefix). Their binary
/// values contain NUL bytes, which `avahi-publish` cannot take on its command line, so they are
/// published through libavahi-client (`AvahiAdvertisement`) on h0's daemon; a text-only border
/// agent goes through `avahi-publish` itself. The OMR check is made against h1's routing table,
/// first without a route to the prefix and then with one through h0 (a random prefix each run,
/// removed at the end; left behind after a failure it harms nothing).
@Suite(.enabled(if: Lab.isAvailable,
                "lab integration tests need root (network namespaces): run scripts/test as root, or set MATTERHUB_LAB_ENV"))
struct LabBorderRouterTests {
    static func txt(_ pairs: [(String, [UInt8])]) -> TXTRecord {
        var r = TXTRecord()
        for (k, v) in pairs { r.set(k, v) }
        return r
    }

    static func hex(_ s: String) -> [UInt8] { Hex.decode(s)! }

    /// `ROUTER_DISCOVERY_GOOGLE_1`'s properties (the `v*` keys are Google's own text copies).
    static let google: [(String, [UInt8])] = [
        ("rv", Array("1".utf8)), ("vn", Array("Google Inc.".utf8)), ("mn", Array("Google Nest Hub".utf8)),
        ("nn", Array("NEST-PAN-E1AF".utf8)), ("xp", hex("9e75e256f61409a3")), ("tv", Array("1.3.0".utf8)),
        ("xa", hex("f6a99b425a67abed")), ("sb", hex("000001b1")), ("at", hex("000062f2f82454e3")),
        ("pt", hex("34863044")), ("sq", hex("7b")), ("bb", hex("f0bf")), ("dn", Array("DefaultDomain".utf8)),
        ("id", hex("bc3740c3e963aa8735bebecd7cc503c7")), ("vat", Array("000062f2f82454e3".utf8)),
        ("vcd", Array("BC3740C3E963AA8735BEBECD7CC503C7".utf8)), ("vo", hex("7cd95c")), ("vvo", Array("7CD95C".utf8)),
        ("vxp", Array("9e75e256f61409a3".utf8)),
    ]

    /// `ROUTER_DISCOVERY_HASS`'s properties with the state bitmap of `..._STATE_BITMAP_NOT_ACTIVE`
    /// (0x131: backbone router inactive) and, so parallel runs do not share a route, an OMR prefix
    /// of the same shape (`@` = /64, `fd` + 7 bytes) but random.
    static func openThread(omr: [UInt8]) -> [(String, [UInt8])] {
        [("rv", Array("1".utf8)), ("id", hex("230c6a1ac57f6f4be262acf32e5ef52c")), ("vn", Array("HomeAssistant".utf8)),
         ("mn", Array("OpenThreadBorderRouter".utf8)), ("nn", Array("OpenThread HC".utf8)), ("xp", hex("e60fc7c186212ce5")),
         ("tv", Array("1.3.0".utf8)), ("xa", hex("aeeb2f594b570bbf")), ("sb", hex("00000131")),
         ("at", hex("0000000000010000")), ("pt", hex("8f06517e")), ("sq", Array("3".utf8)), ("bb", hex("f0bf")),
         ("dn", Array("DefaultDomain".utf8)), ("omr", [0x40] + omr)]
    }

    /// `matterctl thread border-routers` until `found` holds (at most 3 runs of 6 s: on a loaded
    /// machine one short window may end before avahi has resolved every advert).
    static func borderRouters(_ lab: Lab, until found: ([[String: Any]]) -> Bool) async throws -> [[String: Any]] {
        var routers: [[String: Any]] = []
        for _ in 0..<3 {
            let (status, output) = try await lab.run(on: LabDiscoveryTests.browser,
                                                     [Lab.matterctl, "thread", "border-routers", "--json", "--timeout", "6"])
            #expect(status == 0, "matterctl thread border-routers exited \(status): \(output)")
            routers = output.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }
            if found(routers) { break }
        }
        return routers
    }

    @Test func googleAndOpenThreadAdvertsDecode() async throws {
        let lab = try Lab.shared()
        LabPublisherTests.useHost0Bus(lab)
        let googleName = LabDiscoveryTests.uniqueName("Google-Nest-Hub-#")
        let otName = LabDiscoveryTests.uniqueName("HomeAssistant OpenThreadBorderRouter #")
        let omr = [0xFD] + (0..<7).map { _ in UInt8.random(in: 0...255) }
        let google = try AvahiAdvertisement(ServiceAdvert(name: googleName, type: "_meshcop._udp", port: 49191,
                                                          txt: Self.txt(Self.google)))
        defer { google.withdraw() }
        let ot = try AvahiAdvertisement(ServiceAdvert(name: otName, type: "_meshcop._udp", port: 49153,
                                                      txt: Self.txt(Self.openThread(omr: omr))))
        defer { ot.withdraw() }
        #expect(await LabPublisherTests.established(google))
        #expect(await LabPublisherTests.established(ot))
        // A text-only border agent (an older one without the binary keys), through avahi-publish.
        let plainName = LabDiscoveryTests.uniqueName("Plain-BR-")
        let plain = try await LabDiscoveryTests.publish(lab, name: plainName, type: "_meshcop._udp", port: 49154, subtypes: [],
                                                        txt: ["rv=1", "tv=1.2.0", "nn=Plain Mesh", "vn=Acme", "mn=BR-1"])
        defer { plain.kill9() }

        var routers = try await Self.borderRouters(lab) { found in
            [googleName, otName, plainName].allSatisfy { name in found.contains { $0["instance"] as? String == name } }
        }
        let g = try #require(routers.first { $0["instance"] as? String == googleName }, "\(routers)")
        #expect(g["networkName"] as? String == "NEST-PAN-E1AF")
        #expect(g["extPanId"] as? String == "9e75e256f61409a3")
        #expect(g["vendorName"] as? String == "Google Inc." && g["modelName"] as? String == "Google Nest Hub")
        #expect(g["threadVersion"] as? String == "1.3.0")
        let gsb = try #require(g["stateBitmap"] as? [String: Any])
        // 0x1b1: connection mode 1 (PSKc), interface 2 (active), availability 1 (high), BBR active and primary.
        #expect(gsb["raw"] as? Int == 0x1B1)
        #expect(gsb["connectionMode"] as? String == "pskc" && gsb["threadInterfaceStatus"] as? String == "active")
        #expect(gsb["availability"] as? String == "high")
        #expect(gsb["backboneRouterActive"] as? Bool == true && gsb["backboneRouterPrimary"] as? Bool == true)
        #expect(gsb["threadRole"] as? String == "disabled")
        // at = 000062f2f82454e3: seconds 0x62f2f824, ticks 0x54e3 >> 1 & 0x7fff, U bit 1.
        let at = try #require(g["activeTimestamp"] as? [String: Any])
        #expect(at["seconds"] as? Int == 0x62F2_F824 && at["ticks"] as? Int == 0x2A71 && at["authoritative"] as? Bool == true)
        #expect(g["omrPrefix"] is NSNull && g["omrRouted"] is NSNull)

        let prefixText = try #require(Self.prefixText(omr))
        let o = try #require(routers.first { $0["instance"] as? String == otName }, "\(routers)")
        #expect(o["networkName"] as? String == "OpenThread HC" && o["extPanId"] as? String == "e60fc7c186212ce5")
        #expect(o["vendorName"] as? String == "HomeAssistant" && o["modelName"] as? String == "OpenThreadBorderRouter")
        let osb = try #require(o["stateBitmap"] as? [String: Any])
        #expect(osb["raw"] as? Int == 0x131 && osb["backboneRouterActive"] as? Bool == false
                && osb["backboneRouterPrimary"] as? Bool == true)
        let oat = try #require(o["activeTimestamp"] as? [String: Any])
        #expect(oat["seconds"] as? Int == 1 && oat["ticks"] as? Int == 0 && oat["authoritative"] as? Bool == false)
        #expect(o["omrPrefix"] as? String == prefixText)
        #expect(o["omrRouted"] as? Bool == false, "h1 has no route to \(prefixText) yet: \(o)")

        let p = try #require(routers.first { $0["instance"] as? String == plainName }, "\(routers)")
        #expect(p["networkName"] as? String == "Plain Mesh" && p["threadVersion"] as? String == "1.2.0")
        #expect(p["stateBitmap"] is NSNull && p["extPanId"] is NSNull)

        // A route to the OMR prefix through h0 (as a border router's RA would install).
        let h0 = lab.hosts[LabDiscoveryTests.publisher], h1 = lab.hosts[LabDiscoveryTests.browser]
        let add = try await lab.run(on: LabDiscoveryTests.browser,
                                    ["ip", "-6", "route", "add", prefixText, "via", h0.ipv6, "dev", h1.interface])
        try #require(add.0 == 0, "\(add.1)")
        routers = try await Self.borderRouters(lab) { found in
            found.contains { $0["instance"] as? String == otName && $0["omrRouted"] as? Bool == true }
        }
        _ = try await lab.run(on: LabDiscoveryTests.browser, ["ip", "-6", "route", "del", prefixText])
        let routed = try #require(routers.first { $0["instance"] as? String == otName }, "\(routers)")
        #expect(routed["omrRouted"] as? Bool == true, "\(routed)")
        let route = try #require(routed["omrRoute"] as? [String: Any])
        #expect(route["interface"] as? String == h1.interface && route["via"] as? String == h0.ipv6, "\(route)")
    }

    /// `fdxx:...::/64` as `ip` prints it (RFC 5952).
    static func prefixText(_ omr: [UInt8]) -> String? {
        let groups = (0..<4).map { String(UInt16(omr[2 * $0]) << 8 | UInt16(omr[2 * $0 + 1]), radix: 16) }
        // Trailing zero groups collapse into the "::" before the interface part.
        var g = groups
        while g.count > 1 && g.last == "0" { g.removeLast() }
        return g.joined(separator: ":") + "::/64"
    }
}
