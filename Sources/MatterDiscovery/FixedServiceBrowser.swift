/// A browser that answers from a fixed list of resolved services, as avahi-daemon would once it
/// has resolved them: for in-process runs and tests without a daemon. A subtype browse
/// (`_L3840._sub._matterc._udp`) returns the services whose TXT values match the subtype (`_L`,
/// `_S`, `_V`, `_CM`), as the subtypes a device publishes would; others are not filtered.
package struct FixedServiceBrowser: ServiceBrowsing {
    package var services: [ServiceInstance]

    package init(_ services: [ServiceInstance]) {
        self.services = services
    }

    package func browse(type: String) -> AsyncThrowingStream<ServiceEvent, any Error> {
        let range = type.firstRange(of: "._sub.")
        let base = range.map { String(type[$0.upperBound...]) } ?? type
        let subtype = range.map { String(type[..<$0.lowerBound]) }
        let matching = services.filter { service in service.type == base && (subtype.map { Self.matches(service, subtype: $0) } ?? true) }
        // Like a live browse it stays open (until the caller stops listening).
        return AsyncThrowingStream { continuation in
            for service in matching { continuation.yield(.found(service)) }
            continuation.yield(.allForNow)
        }
    }

    /// Whether a service's TXT record fits a commissionable subtype, as if it had published it.
    static func matches(_ service: ServiceInstance, subtype: String) -> Bool {
        func txt(_ key: String) -> String? {
            service.txt.entries.first { $0.key == key }?.value.map { String(decoding: $0, as: UTF8.self) }
        }
        let d = txt("D").flatMap { UInt16($0) }
        if subtype == "_CM" { return (txt("CM").flatMap { Int($0) } ?? 0) > 0 }
        if subtype.hasPrefix("_L"), let want = UInt16(subtype.dropFirst(2)) { return d == want }
        if subtype.hasPrefix("_S"), let want = UInt16(subtype.dropFirst(2)) { return d.map { $0 >> 8 } == want }
        if subtype.hasPrefix("_V"), let want = UInt16(subtype.dropFirst(2)) {
            return txt("VP").flatMap { UInt16($0.split(separator: "+").first ?? "") } == want
        }
        return true
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
