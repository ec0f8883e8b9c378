import FoundationEssentials
import MatterDiscovery
import MatterNetworkCredentials
import MatterPlatform

/// `matterctl doctor`: the network problems that make commissioning fail, found before it
/// starts. `gather` probes the host (read-only) and the DNS-SD daemon; `evaluate` turns what
/// was found into findings, each ok, warn or fail with what it means and what to do.
public enum NetworkDoctor {
    /// What the DNS-SD side of the probe found.
    public struct DiscoveryFacts: Sendable, Hashable {
        /// nil when avahi-daemon answered; else why not.
        public var avahiError: String?
        /// Whether a service this process published came back through avahi's browse.
        public var selfTestPassed: Bool?
        /// Interfaces on which Matter devices (`_matter._tcp`, `_matterc._udp`) were seen.
        public var deviceInterfaces: [String] = []
        /// Border routers: instance name, OMR prefix (16 bytes) and length.
        public var borderRouters: [(name: String, omr: [UInt8]?, length: Int)] = []

        public init() {}

        public static func == (a: Self, b: Self) -> Bool {
            a.avahiError == b.avahiError && a.selfTestPassed == b.selfTestPassed && a.deviceInterfaces == b.deviceInterfaces
                && a.borderRouters.map(\.name) == b.borderRouters.map(\.name)
        }
        public func hash(into h: inout Hasher) { h.combine(avahiError); h.combine(deviceInterfaces) }
    }

    /// Probes the DNS-SD side: avahi reachable, a publish-and-browse self-test, the devices and
    /// border routers seen within `seconds`.
    public static func gatherDiscovery(seconds: Double = 2) async -> DiscoveryFacts {
        var facts = DiscoveryFacts()
        let discovery = MatterDiscovery()
        let name = "matterhub-doctor-\(UInt32.random(in: 0...UInt32.max))"
        let type = "_matterhub-doctor._udp"
        let advert: AvahiAdvertisement
        do {
            advert = try AvahiAdvertisement(ServiceAdvert(name: name, type: type, port: 9))
        } catch {
            facts.avahiError = error.message
            return facts
        }
        defer { advert.withdraw() }
        // Published by this process, browsed back through the daemon; a browse that cannot reach
        // the daemon says why.
        async let selfTest: SelfTest = Self.within(seconds + 1) {
            do {
                for try await e in AvahiBrowser().browse(type: type) {
                    if case .found(let s) = e, s.name == name { return SelfTest.passed }
                }
                return SelfTest.failed
            } catch let e as DiscoveryError {
                return SelfTest.unreachable(e.message)
            }
        } ?? .failed
        async let devices: [ServiceInstance] = Self.collect(seconds) { sink in
            for try await e in discovery.operationalNodes() { if case .found(let n) = e { sink(n.service) } }
        } + Self.collect(seconds) { sink in
            for try await e in discovery.commissionableNodes() { if case .found(let n) = e { sink(n.service) } }
        }
        async let routers: [BorderRouter] = Self.collectRouters(seconds, discovery)
        switch await selfTest {
        case .passed: facts.selfTestPassed = true
        case .failed: facts.selfTestPassed = false
        case .unreachable(let why): facts.avahiError = why
        }
        facts.deviceInterfaces = Array(Set(await devices.flatMap { (s: ServiceInstance) in s.addresses.compactMap { $0.interfaceName } })).sorted()
        for r in await routers {
            if let omr = r.txt.omrPrefix, let bits = omr.first {
                facts.borderRouters.append((r.service.name, Array(omr.dropFirst()) + [UInt8](repeating: 0, count: 17 - omr.count), Int(bits)))
            } else {
                facts.borderRouters.append((r.service.name, nil, 0))
            }
        }
        return facts
    }

    enum SelfTest: Sendable { case passed, failed, unreachable(String) }

    private static func within<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { try? await body() }
            group.addTask { try? await Task.sleep(for: .seconds(seconds)); return nil }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    private static func collect(_ seconds: Double,
                                _ body: @escaping @Sendable (@Sendable (ServiceInstance) -> Void) async throws -> Void) async -> [ServiceInstance] {
        let box = LockedValue<[ServiceInstance]>([])
        _ = await within(seconds) { try await body { s in box.set(box.get() + [s]) }; return true }
        return box.get()
    }

    private static func collectRouters(_ seconds: Double, _ discovery: MatterDiscovery) async -> [BorderRouter] {
        let box = LockedValue<[String: BorderRouter]>([:])
        _ = await within(seconds) {
            for try await e in discovery.borderRouters() {
                switch e {
                case .found(let r), .updated(let r):
                    var m = box.get(); m[r.service.name] = r; box.set(m)
                case .removed(let r):
                    var m = box.get(); m[r.service.name] = nil; box.set(m)
                }
            }
            return true
        }
        return box.get().values.sorted { $0.service.name < $1.service.name }
    }

    /// The findings, in a fixed order of checks.
    public static func evaluate(host: HostNetworkFacts, discovery: DiscoveryFacts, now: Date) -> [DoctorFinding] {
        var out: [DoctorFinding] = []
        // avahi
        if let e = discovery.avahiError {
            out.append(DoctorFinding("avahi", .fail, "avahi-daemon cannot be reached: \(e)",
                                     meaning: "MatterHub finds devices and advertises itself through avahi-daemon; without it nothing is discovered.",
                                     action: "Start it: systemctl start avahi-daemon (it needs D-Bus: systemctl start dbus)."))
        } else {
            out.append(DoctorFinding("avahi", .ok, "avahi-daemon answers on D-Bus"))
        }
        // IPv6
        let candidates = host.interfaces.filter { $0.isUp && !$0.isLoopback }
        if host.ipv6Disabled != false {
            out.append(DoctorFinding("ipv6", .fail, host.ipv6Disabled == nil ? "this kernel has no IPv6" : "IPv6 is disabled (net.ipv6.conf.all.disable_ipv6 = 1)",
                                     meaning: "Matter runs over IPv6: devices advertise and answer on IPv6 link-local and ULA addresses.",
                                     action: "Enable it: sysctl -w net.ipv6.conf.all.disable_ipv6=0 (and remove the setting from /etc/sysctl.d)."))
        } else if candidates.isEmpty {
            out.append(DoctorFinding("ipv6", .fail, "no network interface is up",
                                     meaning: "Devices can only be reached through an interface that is up.",
                                     action: "Bring the LAN interface up (ip link set <if> up) or connect the network."))
        } else {
            let without = candidates.filter { $0.ipv6LinkLocal.isEmpty }.map(\.name)
            if without.count == candidates.count {
                out.append(DoctorFinding("ipv6", .fail, "no interface has an IPv6 link-local address (\(without.joined(separator: ", ")))",
                                         meaning: "Matter devices are reached on fe80:: addresses first; without one the host cannot talk to them.",
                                         action: "Check net.ipv6.conf.<if>.disable_ipv6 and addr_gen_mode for those interfaces."))
            } else if !without.isEmpty {
                out.append(DoctorFinding("ipv6", .warn, "no IPv6 link-local address on \(without.joined(separator: ", "))",
                                         meaning: "Devices on those links cannot be reached.",
                                         action: "Enable IPv6 on those interfaces if devices are there."))
            } else {
                out.append(DoctorFinding("ipv6", .ok, "IPv6 link-local on " + candidates.map { "\($0.name) (\($0.ipv6LinkLocal[0]))" }.joined(separator: ", ")))
            }
        }
        // multicast self-test
        switch discovery.selfTestPassed {
        case .some(true): out.append(DoctorFinding("multicast", .ok, "a test service published through avahi was browsed back"))
        case .some(false):
            out.append(DoctorFinding("multicast", .fail, "a test service published through avahi was not browsed back within the timeout",
                                     meaning: "avahi is not publishing or not browsing on any interface, so devices will not be found.",
                                     action: "Check avahi-daemon.conf (allow-interfaces, use-ipv6) and its log (journalctl -u avahi-daemon)."))
        case .none:
            if discovery.avahiError == nil { out.append(DoctorFinding("multicast", .warn, "the self-test did not run")) }
        }
        // firewall
        out.append(firewallFinding(nft: host.nftRuleset, iptables: host.iptablesRules))
        // other mDNS responders
        if let owners = host.mdnsSocketOwners {
            let others = owners.filter { $0 != "avahi-daemon" }
            if others.isEmpty {
                out.append(DoctorFinding("mdns-responders", .ok, owners.isEmpty ? "nothing listens on UDP 5353" : "only avahi-daemon listens on UDP 5353"))
            } else {
                out.append(DoctorFinding("mdns-responders", .warn, "other programs listen on UDP 5353: \(others.joined(separator: ", "))",
                                         meaning: "Two mDNS responders on one host answer and cache differently; names can conflict and answers go missing.",
                                         action: "Turn off the other responder's mDNS (e.g. MulticastDNS=no in resolved.conf) and let avahi-daemon do it."))
            }
        }
        // default route against device interfaces
        let defaults = host.defaultRouteInterfaces
        if defaults.isEmpty {
            out.append(DoctorFinding("default-route", .warn, "no default route",
                                     meaning: "Fine for a closed LAN; devices that need the internet (OTA, their cloud) will fail.",
                                     action: "Nothing to do unless devices need the internet."))
        } else if !discovery.deviceInterfaces.isEmpty && Set(discovery.deviceInterfaces).isDisjoint(with: defaults) {
            out.append(DoctorFinding("default-route", .warn,
                                     "the default route uses \(defaults.joined(separator: ", ")) but devices were seen on \(discovery.deviceInterfaces.joined(separator: ", "))",
                                     meaning: "Traffic to devices with routable addresses may leave on the wrong interface.",
                                     action: "Make sure the devices' network is the LAN this host's default route points to, or route their prefixes."))
        } else {
            out.append(DoctorFinding("default-route", .ok, "default route via \(defaults.joined(separator: ", "))"
                                     + (discovery.deviceInterfaces.isEmpty ? "" : "; devices seen on \(discovery.deviceInterfaces.joined(separator: ", "))")))
        }
        // Thread
        let withOMR = discovery.borderRouters.filter { $0.omr != nil }
        if discovery.borderRouters.isEmpty {
            out.append(DoctorFinding("thread", .ok, "no Thread border routers seen"))
        } else {
            let unrouted = withOMR.filter { host.routes.route(to: $0.omr!, length: $0.length) == nil }
            if unrouted.isEmpty {
                out.append(DoctorFinding("thread", .ok, "\(discovery.borderRouters.count) border router(s); every OMR prefix is routed here"))
            } else {
                out.append(DoctorFinding("thread", .fail, "no route to the OMR prefix of " + unrouted.map {
                    "\($0.name) (\(IPv6Text.prefix($0.omr!, length: $0.length)))" }.joined(separator: ", "),
                                         meaning: "Thread devices behind that border router are seen but cannot be reached from this host.",
                                         action: "Accept Router Advertisements with route information on the LAN interface (net.ipv6.conf.<if>.accept_ra=2, accept_ra_rt_info_max_plen=64), or add the route."))
            }
        }
        // clock
        let floor = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01
        if now < floor {
            out.append(DoctorFinding("clock", .fail, "the clock says \(now.formatted(.iso8601)), before 2025",
                                     meaning: "Device attestation checks certificate validity against the time; a clock in the past rejects valid devices.",
                                     action: "Set the time (timedatectl set-ntp true, or date -s)."))
        } else {
            out.append(DoctorFinding("clock", .ok, "the clock reads \(now.formatted(.iso8601))"))
        }
        return out
    }

    /// Drop or reject rules for UDP 5353 (mDNS) or 5540 (Matter), and input policies that drop
    /// without accepting them.
    static func firewallFinding(nft: String?, iptables: String?) -> DoctorFinding {
        guard nft != nil || iptables != nil else {
            return DoctorFinding("firewall", .ok, "no nftables or iptables tools, so no rules to read")
        }
        var blocking: [String] = []
        var dropPolicy = false, accepts = false
        for raw in ((nft ?? "") + "\n" + (iptables ?? "")).split(separator: "\n") {
            let line = raw.trimmingWhitespace()
            let lower = line.lowercased()
            let ports = lower.contains("5353") || lower.contains("5540")
            if ports && (lower.contains("drop") || lower.contains("reject")) && !lower.hasPrefix("#") { blocking.append(line) }
            if ports && lower.contains("accept") { accepts = true }
            if (lower.contains("hook input") && lower.contains("policy drop")) || lower.hasPrefix(":input drop") { dropPolicy = true }
        }
        if !blocking.isEmpty {
            return DoctorFinding("firewall", .fail, "a firewall rule drops Matter or mDNS traffic: " + blocking.joined(separator: "; "),
                                 meaning: "UDP 5353 carries discovery and UDP 5540 Matter itself; dropped, devices are not found or do not answer.",
                                 action: "Allow UDP 5353 and 5540 in (e.g. nft add rule inet filter input udp dport { 5353, 5540 } accept).")
        }
        if dropPolicy && !accepts {
            return DoctorFinding("firewall", .warn, "the input chain drops by default and no rule accepts UDP 5353 or 5540",
                                 meaning: "Unless another rule lets them in, discovery and Matter traffic are dropped.",
                                 action: "Accept UDP 5353 and 5540 in the input chain.")
        }
        return DoctorFinding("firewall", .ok, "no rule drops UDP 5353 or 5540")
    }
}

