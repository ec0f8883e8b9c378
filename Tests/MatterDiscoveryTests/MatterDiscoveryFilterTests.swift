import Synchronization
import Testing
@testable import MatterDiscovery

/// A scripted DNS-SD source: each browse type yields its instances, then "all for now", then
/// stays open like a real browse.
final class ScriptedBrowser: ServiceBrowsing {
    let instances: [String: [ServiceInstance]]
    let browsed = Mutex<[String]>([])
    init(_ instances: [String: [ServiceInstance]]) { self.instances = instances }

    func browse(type: String) -> AsyncThrowingStream<ServiceEvent, any Error> {
        browsed.withLock { $0.append(type) }
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ServiceEvent.self)
        for i in instances[type] ?? [] { continuation.yield(.found(i)) }
        continuation.yield(.allForNow)
        return stream
    }
}

func instance(_ name: String, _ txt: KeyValuePairs<String, String>, type: String = "_matterc._udp") -> ServiceInstance {
    ServiceInstance(name: name, type: type, domain: "local", host: "\(name).local", port: 5540,
                    addresses: [ServiceAddress(ip: "fe80::1", family: .ipv6, interfaceIndex: 2, interfaceName: "eth0")],
                    txt: TXTRecord(txt))
}

final class Locked<T: Sendable>: Sendable {
    let value: Mutex<T>
    init(_ v: T) { value = Mutex(v) }
}

/// Events of a stream until `count` have come or `window` seconds have passed.
func firstEvents<N>(_ stream: AsyncThrowingStream<DiscoveryEvent<N>, any Error>, count: Int,
                    window: Double = 0.5) async throws -> [DiscoveryEvent<N>] {
    let collected = Locked<[DiscoveryEvent<N>]>([])
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            for try await e in stream {
                if collected.value.withLock({ $0.append(e); return $0.count }) >= count { break }
            }
        }
        group.addTask { try await Task.sleep(for: .milliseconds(Int(window * 1000))) }
        _ = try await group.next()
        group.cancelAll()
    }
    return collected.value.withLock { $0 }
}

@Suite struct MatterDiscoveryFilterTests {
    let tagged = instance("TAGGED", ["D": "3840", "VP": "65521+1", "CM": "1"])
    let bare = instance("BARE", ["D": "3841", "VP": "65524+1", "CM": "1"])
    let other = instance("OTHER", ["D": "100", "VP": "65530"])

    @Test func subtypeHitNeedsNoFallback() async throws {
        let browser = ScriptedBrowser(["_L3840._sub._matterc._udp": [tagged], "_matterc._udp": [tagged, bare, other]])
        let events = try await firstEvents(MatterDiscovery(browser: browser).commissionableNodes(matching: .longDiscriminator(3840)), count: 1)
        #expect(events.map(\.node.instanceName) == ["TAGGED"])
        try await Task.sleep(for: .milliseconds(50))
        #expect(browser.browsed.withLock { $0 } == ["_L3840._sub._matterc._udp"])
    }

    @Test func emptySubtypeFallsBackToTXTMatching() async throws {
        // BARE publishes no _S/_V subtypes (like CircuitMatter): only the fallback finds it.
        let browser = ScriptedBrowser(["_matterc._udp": [tagged, bare, other]])
        let discovery = MatterDiscovery(browser: browser)
        let byShort = try await firstEvents(discovery.commissionableNodes(matching: .shortDiscriminator(15)), count: 2, window: 5)
        #expect(Set(byShort.map(\.node.instanceName)) == ["TAGGED", "BARE"])
        let byVendor = try await firstEvents(discovery.commissionableNodes(matching: .vendorID(65524)), count: 1, window: 5)
        #expect(byVendor.map(\.node.instanceName) == ["BARE"])
        #expect(browser.browsed.withLock { $0 }.contains("_S15._sub._matterc._udp"))
    }

    @Test func instanceNameAndCommissioningModeFilters() async throws {
        let browser = ScriptedBrowser(["_matterc._udp": [tagged, bare, other]])
        let discovery = MatterDiscovery(browser: browser)
        let byName = try await firstEvents(discovery.commissionableNodes(matching: .instanceName("bare")), count: 1, window: 5)
        #expect(byName.map(\.node.instanceName) == ["BARE"])
        let open = try await firstEvents(discovery.commissionableNodes(matching: .commissioningMode), count: 2, window: 5)
        #expect(Set(open.map(\.node.instanceName)) == ["TAGGED", "BARE"])
    }

    @Test func operationalByFabricAndNode() async throws {
        let a = instance("2906C908D115D362-0000000000000001", ["SII": "5000"], type: "_matter._tcp")
        let b = instance("2906C908D115D362-0000000000000002", [:], type: "_matter._tcp")
        let browser = ScriptedBrowser(["_I2906C908D115D362._sub._matter._tcp": [a, b]])
        let events = try await firstEvents(
            MatterDiscovery(browser: browser).operationalNodes(compressedFabricID: 0x2906_C908_D115_D362, nodeID: 2), count: 2)
        #expect(events.map(\.node.service.name) == ["2906C908D115D362-0000000000000002"])
        #expect(events.first?.node.name?.nodeID == 2)
    }

    @Test func outOfRangeFilterThrows() async {
        let stream = MatterDiscovery(browser: ScriptedBrowser([:])).commissionableNodes(matching: .shortDiscriminator(16))
        await #expect(throws: DiscoveryError.self) { for try await _ in stream {} }
    }

    @Test func mergerReportsOnceAndRemovesWhenNoSourceHasIt() {
        var m = SourceMerger<CommissionableNode>(filterPrimary: false)
        let keep: (CommissionableNode) -> Bool = { $0.txt.discriminator == 3840 }
        #expect(m.apply(source: 0, event: .found(tagged), make: CommissionableNode.init, keep: keep).count == 1)
        #expect(m.apply(source: 1, event: .found(tagged), make: CommissionableNode.init, keep: keep).isEmpty)
        #expect(m.apply(source: 0, event: .removed(tagged), make: CommissionableNode.init, keep: keep).isEmpty)
        let gone = m.apply(source: 1, event: .removed(tagged), make: CommissionableNode.init, keep: keep)
        if case .removed? = gone.first {} else { Issue.record("not removed: \(gone)") }
        #expect(m.apply(source: 1, event: .found(other), make: CommissionableNode.init, keep: keep).isEmpty,
                "the fallback's results go through the TXT match")
    }
}
