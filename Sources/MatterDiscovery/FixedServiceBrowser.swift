/// A browser that answers from a fixed list of resolved services, as avahi-daemon would once it
/// has resolved them: for in-process runs and tests without a daemon. A subtype browse
/// (`_L3840._sub._matterc._udp`) returns every service of the base type; callers fall back to
/// the TXT values, as they do for devices that publish no subtypes.
package struct FixedServiceBrowser: ServiceBrowsing {
    package var services: [ServiceInstance]

    package init(_ services: [ServiceInstance]) {
        self.services = services
    }

    package func browse(type: String) -> AsyncThrowingStream<ServiceEvent, any Error> {
        let base = type.firstRange(of: "._sub.").map { String(type[$0.upperBound...]) } ?? type
        let matching = services.filter { $0.type == base }
        // Like a live browse it stays open (until the caller stops listening).
        return AsyncThrowingStream { continuation in
            for service in matching { continuation.yield(.found(service)) }
            continuation.yield(.allForNow)
        }
    }

    /// A commissionable device (`_matterc._udp`) on loopback ([::1]:port).
    package static func commissionable(discriminator: UInt16, port: UInt16, vendorID: UInt16 = 0xFFF1,
                                       productID: UInt16 = 0x8000) -> ServiceInstance {
        ServiceInstance(name: "LOOPBACK\(port)", type: "_matterc._udp", domain: "local", host: "loopback.local", port: port,
                        addresses: [ServiceAddress(ip: "::1", family: .ipv6, interfaceIndex: 0, interfaceName: "lo")],
                        txt: TXTRecord([.init(key: "D", value: Array(String(discriminator).utf8)),
                                        .init(key: "VP", value: Array("\(vendorID)+\(productID)".utf8)),
                                        .init(key: "CM", value: Array("1".utf8))]))
    }
}
