import Testing
@testable import MatterDiscovery

@Suite struct ServiceAggregatorTests {
    let v6 = ServiceAggregator.Slot(interfaceIndex: 2, protocolIsIPv6: true)
    let v4 = ServiceAggregator.Slot(interfaceIndex: 2, protocolIsIPv6: false)
    let other = ServiceAggregator.Slot(interfaceIndex: 3, protocolIsIPv6: true)

    func address(_ ip: String, _ slot: ServiceAggregator.Slot) -> ServiceAddress {
        ServiceAddress(ip: ip, family: slot.protocolIsIPv6 ? .ipv6 : .ipv4, interfaceIndex: slot.interfaceIndex,
                       interfaceName: "if\(slot.interfaceIndex)")
    }

    mutating func resolve(_ a: inout ServiceAggregator, _ slot: ServiceAggregator.Slot, _ ip: String,
                          txt: TXTRecord = TXTRecord(["D": "1"])) -> ServiceEvent? {
        a.resolved(name: "N", type: "_matterc._udp", domain: "local", slot: slot, host: "h.local",
                   address: address(ip, slot), port: 5540, txt: txt)
    }

    @Test mutating func foundUpdatedRemovedAcrossInterfaces() throws {
        var a = ServiceAggregator()
        guard case .found(let first)? = resolve(&a, v6, "fe80::1") else { Issue.record("no found"); return }
        #expect(first.addresses.map(\.ip) == ["fe80::1"])
        guard case .updated(let both)? = resolve(&a, v4, "169.254.1.1") else { Issue.record("no update"); return }
        #expect(both.addresses.map(\.ip) == ["fe80::1", "169.254.1.1"])
        guard case .updated(let three)? = resolve(&a, other, "fe80::1") else { Issue.record("no update"); return }
        #expect(three.addresses.map(\.description) == ["fe80::1%if2", "fe80::1%if3", "169.254.1.1"],
                "the same link-local address on two interfaces is two addresses")
        #expect(resolve(&a, v4, "169.254.1.1") == nil, "an identical resolution is not news")
        guard case .updated(let txt)? = resolve(&a, v4, "169.254.1.1", txt: TXTRecord(["D": "2"])) else {
            Issue.record("TXT change not reported"); return
        }
        #expect(txt.txt["D"] == Array("2".utf8))
        #expect(a.removed(name: "N", type: "_matterc._udp", domain: "local", slot: other) != nil)
        #expect(a.removed(name: "N", type: "_matterc._udp", domain: "local", slot: v6) != nil)
        guard case .removed(let gone)? = a.removed(name: "N", type: "_matterc._udp", domain: "local", slot: v4) else {
            Issue.record("no removal"); return
        }
        #expect(gone.name == "N")
        #expect(a.removed(name: "N", type: "_matterc._udp", domain: "local", slot: v4) == nil)
    }

    @Test mutating func furtherAddressesOfTheHost() {
        var a = ServiceAggregator()
        _ = resolve(&a, v6, "fd00::1")
        let ula2 = address("fd00::2", v6)
        #expect(a.address(name: "X", type: "_matterc._udp", domain: "local", slot: v6, address: ula2, present: true) == nil,
                "addresses of an unknown instance are ignored")
        guard case .updated(let two)? = a.address(name: "N", type: "_matterc._udp", domain: "local", slot: v6,
                                                  address: ula2, present: true) else { Issue.record("no update"); return }
        #expect(Set(two.addresses.map(\.ip)) == ["fd00::1", "fd00::2"])
        #expect(a.address(name: "N", type: "_matterc._udp", domain: "local", slot: v6, address: ula2, present: true) == nil)
        guard case .updated(let one)? = a.address(name: "N", type: "_matterc._udp", domain: "local", slot: v6,
                                                  address: ula2, present: false) else { Issue.record("no update"); return }
        #expect(one.addresses.map(\.ip) == ["fd00::1"])
    }

    @Test mutating func reconnectDropsWhatDidNotComeBack() {
        var a = ServiceAggregator()
        _ = resolve(&a, v6, "fe80::1")
        _ = a.resolved(name: "M", type: "_matterc._udp", domain: "local", slot: v6, host: "m.local",
                       address: address("fe80::2", v6), port: 1, txt: TXTRecord())
        a.disconnected()
        #expect(resolve(&a, v6, "fe80::1") == nil, "N came back unchanged")
        let after = a.allForNow()
        #expect(after.count == 1)
        if case .removed(let m)? = after.first { #expect(m.name == "M") } else { Issue.record("M not removed") }
        #expect(a.allForNow().isEmpty)
    }
}
