/// Folds Avahi's per-(interface, protocol) browse and resolve results into one `ServiceInstance`
/// per name with all its addresses, and turns them into found/updated/removed events. Sans-I/O:
/// the Avahi bridge feeds it on the poll thread.
struct ServiceAggregator {
    struct Key: Hashable {
        let name: String
        let type: String
        let domain: String
    }

    /// One resolution: what Avahi resolved on one interface over one protocol.
    struct Resolution: Hashable {
        let host: String
        let address: ServiceAddress?
        let port: UInt16
        let txt: TXTRecord
        let sequence: Int
    }

    struct Slot: Hashable {
        let interfaceIndex: Int32
        let protocolIsIPv6: Bool
    }

    private var known: [Key: [Slot: Resolution]] = [:]
    /// Further addresses of the resolved host per slot (its other A/AAAA records).
    private var extra: [Key: [Slot: Set<ServiceAddress>]] = [:]
    private var reported: [Key: ServiceInstance] = [:]
    private var stale: Set<Key> = []
    private var sequence = 0

    /// A resolution arrived (new or changed).
    mutating func resolved(name: String, type: String, domain: String, slot: Slot, host: String,
                           address: ServiceAddress?, port: UInt16, txt: TXTRecord) -> ServiceEvent? {
        let key = Key(name: name, type: type, domain: domain)
        sequence += 1
        known[key, default: [:]][slot] = Resolution(host: host, address: address, port: port,
                                                     txt: txt, sequence: sequence)
        stale.remove(key)
        return report(key)
    }

    /// Avahi withdrew the instance on one interface/protocol.
    mutating func removed(name: String, type: String, domain: String, slot: Slot) -> ServiceEvent? {
        let key = Key(name: name, type: type, domain: domain)
        guard known[key]?.removeValue(forKey: slot) != nil else { return nil }
        extra[key]?[slot] = nil
        return report(key)
    }

    /// The resolved host has (or no longer has) `address` on one interface/protocol.
    mutating func address(name: String, type: String, domain: String, slot: Slot, address: ServiceAddress,
                          present: Bool) -> ServiceEvent? {
        let key = Key(name: name, type: type, domain: domain)
        guard known[key]?[slot] != nil else { return nil }
        if present {
            guard extra[key, default: [:]][slot, default: []].insert(address).inserted else { return nil }
        } else {
            guard extra[key]?[slot]?.remove(address) != nil else { return nil }
        }
        return report(key)
    }

    /// The daemon went away: what we knew is kept until the reconnected browse has answered.
    mutating func disconnected() {
        stale = Set(reported.keys)
        known = [:]
        extra = [:]
    }

    /// After a reconnect, the first "all for now" ends the grace: instances not seen again are
    /// reported removed.
    mutating func allForNow() -> [ServiceEvent] {
        defer { stale = [] }
        return stale.compactMap { key in reported.removeValue(forKey: key).map(ServiceEvent.removed) }
    }

    private mutating func report(_ key: Key) -> ServiceEvent? {
        guard let slots = known[key], !slots.isEmpty else {
            known[key] = nil
            extra[key] = nil
            return reported.removeValue(forKey: key).map(ServiceEvent.removed)
        }
        let latest = slots.values.max { $0.sequence < $1.sequence }!
        var addresses: [ServiceAddress] = []
        for (slot, r) in slots.sorted(by: { $0.value.sequence < $1.value.sequence }) {
            if let a = r.address, !addresses.contains(a) { addresses.append(a) }
            for a in extra[key]?[slot] ?? [] where !addresses.contains(a) { addresses.append(a) }
        }
        addresses.sort { lhs, rhs in
            if lhs.family != rhs.family { return lhs.family == .ipv6 }
            if lhs.interfaceIndex != rhs.interfaceIndex { return lhs.interfaceIndex < rhs.interfaceIndex }
            return lhs.ip < rhs.ip
        }
        let instance = ServiceInstance(name: key.name, type: key.type, domain: key.domain,
                                       host: latest.host, port: latest.port, addresses: addresses,
                                       txt: latest.txt)
        let previous = reported.updateValue(instance, forKey: key)
        if previous == nil { return .found(instance) }
        return previous == instance ? nil : .updated(instance)
    }
}
