import MatterCommissioning
import MatterDiscovery
import MatterMessaging
import MatterTLV
import Testing

/// Where an operational node answers: avahi resolves IPv4 and IPv6 apart, and whichever came
/// first used to be the node's address (the commissioner recorded fe80::..., the hub's
/// reconnection 169.254.x.y). IPv6 is waited for a moment and put first.
@Suite struct OperationalAddressTests {
    /// `_matter._tcp` answers: `first`, then (after `delay`) `then` as an update.
    struct TwoStepBrowser: ServiceBrowsing {
        let first: [ServiceAddress]
        let then: [ServiceAddress]?
        let delay: Duration

        static let name = "0000000000000001-0000000000000002"

        func service(_ addresses: [ServiceAddress]) -> ServiceInstance {
            ServiceInstance(name: Self.name, type: "_matter._tcp", domain: "local", host: "node.local", port: 5540,
                            addresses: addresses, txt: TXTRecord())
        }

        func browse(type: String) -> AsyncThrowingStream<ServiceEvent, any Error> {
            let (stream, continuation) = AsyncThrowingStream.makeStream(of: ServiceEvent.self)
            guard type.hasSuffix("_matter._tcp") else { continuation.yield(.allForNow); return stream }
            continuation.yield(.found(service(first)))
            continuation.yield(.allForNow)
            if let then {
                let update = ServiceEvent.updated(service(then))
                let delay = self.delay
                Task { try? await Task.sleep(for: delay); continuation.yield(update) }
            }
            return stream
        }
    }

    static let v4 = ServiceAddress(ip: "169.254.1.24", family: .ipv4, interfaceIndex: 2, interfaceName: "eth0")
    static let v6 = ServiceAddress(ip: "fe80::ff:fe00:18", family: .ipv6, interfaceIndex: 2, interfaceName: "eth0")

    /// (The timeout and, where the IPv6 answer does come, the grace are long: the main test run
    /// starves the task pool for seconds at a time, so a 50 ms update can arrive after a 300 ms
    /// grace; what is checked here is which addresses come back, not how fast.)
    func addresses(_ browser: TwoStepBrowser, grace: Duration = DeviceFinder.ipv6Grace) async -> [String]? {
        let finder = DeviceFinder(discovery: MatterDiscovery(browser: browser))
        return await finder.operationalAddresses(compressedFabricID: 1, nodeID: NodeID(2), timeout: .seconds(30),
                                                 ipv6Grace: grace)?.map(\.description)
    }

    @Test func ipv6FirstWhenItIsResolvedAfterIPv4() async {
        let found = await addresses(TwoStepBrowser(first: [Self.v4], then: [Self.v4, Self.v6], delay: .milliseconds(50)),
                                    grace: .seconds(20))
        #expect(found == ["[fe80::ff:fe00:18%2]:5540", "169.254.1.24:5540"], "\(found ?? [])")
    }

    @Test func ipv6FirstWhenBothAreThere() async {
        let found = await addresses(TwoStepBrowser(first: [Self.v4, Self.v6], then: nil, delay: .zero))
        #expect(found == ["[fe80::ff:fe00:18%2]:5540", "169.254.1.24:5540"], "\(found ?? [])")
    }

    /// A node with only IPv4 (not a Matter node, but it must not be lost): its address after the grace.
    @Test func ipv4AloneAfterTheGrace() async {
        let clock = ContinuousClock()
        let start = clock.now
        let found = await addresses(TwoStepBrowser(first: [Self.v4], then: nil, delay: .zero))
        #expect(found == ["169.254.1.24:5540"], "\(found ?? [])")
        #expect(clock.now - start >= DeviceFinder.ipv6Grace)
    }
}
