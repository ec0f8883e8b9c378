import MatterDiscovery
import MatterMessaging
import MatterSetupPayload
import MatterTLV

/// A commissionable device found for a setup code, with every address to try.
public struct DeviceCandidate: Sendable, Hashable, CustomStringConvertible {
    public var instanceName: String
    public var host: String
    public var addresses: [PeerAddress]
    public var discriminator: UInt16?
    public var vendorID: UInt16?
    public var productID: UInt16?
    /// Its primary device type (TXT `DT`), when it advertises one.
    public var deviceType: UInt32? = nil
    /// The device's MRP timing from its TXT (SII/SAI/SAT), or the defaults.
    public var mrp: MRPParameters

    public init(instanceName: String, host: String, addresses: [PeerAddress], discriminator: UInt16?,
                vendorID: UInt16?, productID: UInt16?, mrp: MRPParameters) {
        self.instanceName = instanceName
        self.host = host
        self.addresses = addresses
        self.discriminator = discriminator
        self.vendorID = vendorID
        self.productID = productID
        self.mrp = mrp
    }

    public init(_ node: CommissionableNode) {
        let port = node.service.port
        // Link-local IPv6 first (always present on Matter devices), then others, then IPv4.
        let ordered = node.service.addresses.sorted { a, b in
            func rank(_ x: ServiceAddress) -> Int { x.family == .ipv6 ? (x.isLinkLocal ? 0 : 1) : 2 }
            return rank(a) < rank(b)
        }
        addresses = ordered.compactMap { PeerAddress($0, port: port) }
        instanceName = node.instanceName
        host = node.service.host
        discriminator = node.txt.discriminator
        vendorID = node.txt.vendorID
        productID = node.txt.productID
        deviceType = node.txt.deviceType.map { UInt32($0) }
        let txt = node.txt
        mrp = MRPParameters(idleInterval: Milliseconds(txt.sessionIdleInterval ?? 500),
                            activeInterval: Milliseconds(txt.sessionActiveInterval ?? 300),
                            activeThreshold: Milliseconds(txt.sessionActiveThreshold ?? 4000))
    }

    public var description: String {
        let d = discriminator.map { "discriminator \($0)" } ?? "unknown discriminator"
        return "\(instanceName) (\(d), \(addresses.first.map { "\($0)" } ?? host))"
    }
}

extension PeerAddress {
    /// Where to reach a resolved DNS-SD address: the interface Avahi saw it on is its scope
    /// (needed for `fe80::` addresses).
    public init?(_ address: ServiceAddress, port: UInt16) {
        self.init(address.ip, port: port, interfaceIndex: UInt32(max(0, address.interfaceIndex)))
    }
}

extension ServiceInstance {
    /// Every address of the service with its port, in the order it was resolved.
    public var peerAddresses: [PeerAddress] { addresses.compactMap { PeerAddress($0, port: port) } }
}

/// Finds the commissionable devices a setup code points to (Matter Core 5.4.3): by long
/// discriminator from a QR code, by short discriminator from a manual code.
public struct DeviceFinder: Sendable {
    public let discovery: MatterDiscovery

    public init(discovery: MatterDiscovery = MatterDiscovery()) {
        self.discovery = discovery
    }

    public static func filter(for payload: SetupPayload) -> CommissionableFilter {
        switch payload.discriminator {
        case .long(let d): return .longDiscriminator(d)
        case .short(let s): return .shortDiscriminator(s)
        }
    }

    /// The candidates as they are found, first one as soon as it resolves; the stream ends at
    /// `timeout` or when the consumer stops.
    public func candidates(for payload: SetupPayload, timeout: Duration) -> AsyncThrowingStream<DeviceCandidate, any Error> {
        candidates(matching: Self.filter(for: payload), timeout: timeout) { node in
            // A device whose vendor/product differ from the code's is not the one on the label.
            if let v = payload.vendorID, v != 0, let tv = node.txt.vendorID, tv != v { return false }
            if let p = payload.productID, p != 0, let tp = node.txt.productID, tp != p { return false }
            return true
        }
    }

    /// Every device whose commissioning window is open (`CM` 1 or 2), as it is found, and again
    /// when a later resolution changes its addresses (avahi resolves IPv4 and IPv6 apart): for a
    /// passcode without a discriminator (a device shared from another ecosystem, whose app shows
    /// only the PIN), where the device may be wanted at one address.
    public func candidatesInCommissioningMode(timeout: Duration) -> AsyncThrowingStream<DeviceCandidate, any Error> {
        candidates(matching: .commissioningMode, timeout: timeout, yieldingUpdates: true) {
            $0.txt.commissioningMode.map { $0 > 0 } ?? false
        }
    }

    private func candidates(matching filter: CommissionableFilter, timeout: Duration, yieldingUpdates: Bool = false,
                            accept: @escaping @Sendable (CommissionableNode) -> Bool) -> AsyncThrowingStream<DeviceCandidate, any Error> {
        // Both browses at once: devices that publish no _S/_V/_CM subtype (CircuitMatter) are
        // found from their TXT without waiting for the subtype browse to come back empty.
        let browse = discovery.commissionableNodes(matching: filter, eagerFallback: true)
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: DeviceCandidate.self)
        let task = Task {
            // The addresses each device was last yielded with.
            var seen: [String: [PeerAddress]] = [:]
            do {
                for try await event in browse {
                    let node: CommissionableNode
                    switch event {
                    case .found(let n): node = n
                    case .updated(let n) where yieldingUpdates: node = n
                    default: continue
                    }
                    guard accept(node) else { continue }
                    let candidate = DeviceCandidate(node)
                    guard !candidate.addresses.isEmpty, seen[node.instanceName] == nil
                        || (yieldingUpdates && seen[node.instanceName] != candidate.addresses) else { continue }
                    seen[node.instanceName] = candidate.addresses
                    continuation.yield(candidate)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            continuation.finish()
        }
        continuation.onTermination = { _ in
            task.cancel()
            timer.cancel()
        }
        return stream
    }
}

extension DeviceFinder {
    /// How long to wait for a node's IPv6 address after its IPv4 one was resolved first (every
    /// Matter node has one; on a loaded host avahi's AAAA answer came more than 300 ms after the
    /// A answer, and the node was recorded at its IPv4 address by one process, IPv6 by another).
    public static let ipv6Grace: Duration = .seconds(1)

    /// Where an operational node (`_matter._tcp`) answers: its first resolved addresses, IPv6
    /// first (link-local first), or nil when it did not announce itself within `timeout`. avahi
    /// resolves IPv4 and IPv6 apart; when the IPv4 answer comes first, the IPv6 one (a Matter node
    /// always has one) is waited for a moment, so that the same node gets the same address
    /// whichever answer wins (the commissioner and the hub's reconnection recorded different ones).
    public func operationalAddresses(compressedFabricID cfid: UInt64, nodeID: NodeID, timeout: Duration,
                                     ipv6Grace grace: Duration = ipv6Grace) async -> [PeerAddress]? {
        let stream = discovery.operationalNodes(compressedFabricID: cfid, nodeID: nodeID.rawValue)
        return await MatterMessaging.first(within: timeout) { await Self.addresses(stream, grace: grace) }
    }

    /// What the resolution of one node gives, with the moment the grace ends.
    private enum Resolution: Sendable {
        case resolved([PeerAddress])
        case graceOver
        case ended
    }

    /// The first addresses `stream` resolves, IPv6 first (link-local first); when only IPv4 came,
    /// the same browse's later answers are waited on for `grace` for an IPv6 one.
    static func addresses(_ stream: AsyncThrowingStream<DiscoveryEvent<OperationalNode>, any Error>,
                          grace: Duration) async -> [PeerAddress]? {
        let (events, sink) = AsyncStream.makeStream(of: Resolution.self)
        let reader = Task {
            do {
                for try await event in stream {
                    switch event {
                    case .found(let node), .updated(let node): sink.yield(.resolved(node.service.peerAddresses))
                    case .removed: continue
                    }
                }
            } catch {}
            sink.yield(.ended)
        }
        var timer: Task<Void, Never>?
        defer {
            reader.cancel()
            timer?.cancel()
            sink.finish()
        }
        var ipv4Only: [PeerAddress]?
        for await event in events {
            switch event {
            case .resolved(let addresses):
                let ipv6 = addresses.filter(\.isIPv6).sorted { $0.isLinkLocal && !$1.isLinkLocal }
                if !ipv6.isEmpty {
                    let ipv4 = (ipv4Only ?? []) + addresses.filter { !$0.isIPv6 }
                    return ipv6 + ipv4.reduce(into: [PeerAddress]()) { if !$0.contains($1) { $0.append($1) } }
                }
                if ipv4Only == nil, !addresses.isEmpty {
                    ipv4Only = addresses
                    timer = Task {
                        try? await Task.sleep(for: grace)
                        sink.yield(.graceOver)
                    }
                }
            case .graceOver, .ended:
                return ipv4Only
            }
        }
        return ipv4Only
    }
}
