/// Finds Matter nodes, commissioners and Thread border routers over DNS-SD.
///
/// Every method returns an `AsyncThrowingStream` that runs until the consumer stops iterating
/// (or the task is cancelled); it throws `DiscoveryError` when avahi-daemon cannot be reached.
/// Results carry every address with its interface; they update when a service changes and are
/// reported removed when it goes away.
public struct MatterDiscovery: Sendable {
    /// The daemon connection of a running browse.
    public enum DaemonState: Sendable, Hashable {
        /// avahi-daemon went away (restart, crash); the browse waits for it and reconnects.
        case disconnected
        /// The daemon is back and the browse was recreated.
        case reconnected
    }

    private let browser: any ServiceBrowsing
    private let onDaemonState: (@Sendable (DaemonState) -> Void)?

    /// - Parameters:
    ///   - browser: the DNS-SD source; the system's Avahi by default.
    ///   - onDaemonState: told when a browse loses and regains its daemon (for diagnostics).
    public init(browser: any ServiceBrowsing = AvahiBrowser(),
                onDaemonState: (@Sendable (DaemonState) -> Void)? = nil) {
        self.browser = browser
        self.onDaemonState = onDaemonState
    }

    /// Commissionable nodes (`_matterc._udp`) matching `filter`.
    ///
    /// A subtype filter browses the subtype (`_L3840._sub._matterc._udp`). Some devices publish
    /// no `_S`/`_V` (or other) subtypes, so when the subtype browse has answered "all for now" with
    /// nothing, it also browses all `_matterc._udp` and keeps the nodes whose TXT matches.
    ///
    /// With `eagerFallback` both browses start at once (a commissioner in a hurry: a device
    /// without the subtype is then found without waiting ~1 s for "all for now").
    public func commissionableNodes(matching filter: CommissionableFilter = .any, eagerFallback: Bool = false)
        -> AsyncThrowingStream<DiscoveryEvent<CommissionableNode>, any Error> {
        let subtype: String
        do { subtype = try filter.dnssdFilter.subtype() } catch {
            return .init { $0.finish(throwing: error) }
        }
        let type = MatterServiceType.commissionable
        let fallback: String? = subtype.isEmpty ? nil : type.rawValue
        // A subtype browse is trusted as it stands (the device put itself in the subtype); a
        // plain browse, and the fallback, are matched on name and TXT.
        return typed(primary: type.browseType(subtype: subtype), fallback: fallback, eagerFallback: eagerFallback,
                     filterPrimary: subtype.isEmpty, make: CommissionableNode.init) { filter.matches($0) }
    }

    /// Operational nodes (`_matter._tcp`), all of them, those of one fabric (by compressed fabric
    /// ID, browsing `_I<CFID>`), or one node of one fabric.
    public func operationalNodes(compressedFabricID: UInt64? = nil, nodeID: UInt64? = nil)
        -> AsyncThrowingStream<DiscoveryEvent<OperationalNode>, any Error> {
        let type = MatterServiceType.operational
        let subtype = compressedFabricID.map { "_I" + OperationalInstanceName.hex16($0) }
        return typed(primary: type.browseType(subtype: subtype), fallback: nil, filterPrimary: true,
                     make: OperationalNode.init) { node in
            if let f = compressedFabricID, node.name?.compressedFabricID != f { return false }
            if let n = nodeID, node.name?.nodeID != n { return false }
            return true
        }
    }

    /// Commissioners (`_matterd._udp`).
    public func commissioners() -> AsyncThrowingStream<DiscoveryEvent<CommissionerNode>, any Error> {
        typed(primary: MatterServiceType.commissioner.rawValue, fallback: nil, filterPrimary: false,
              make: CommissionerNode.init) { _ in true }
    }

    /// Thread border routers (`_meshcop._udp`).
    public func borderRouters() -> AsyncThrowingStream<DiscoveryEvent<BorderRouter>, any Error> {
        typed(primary: MatterServiceType.borderRouter.rawValue, fallback: nil, filterPrimary: false,
              make: BorderRouter.init) { _ in true }
    }

    /// Every border router seen within `window`, the latest view of each, in the order found
    /// (what `matterctl thread border-routers` and the API's `get_thread_border_routers` list).
    public func borderRouterSnapshot(within window: Duration) async throws(DiscoveryError) -> [BorderRouter] {
        let stream = borderRouters()
        let (events, sink) = AsyncThrowingStream.makeStream(of: DiscoveryEvent<BorderRouter>.self)
        let browse = Task {
            do {
                for try await e in stream { sink.yield(e) }
                sink.finish()
            } catch { sink.finish(throwing: error) }
        }
        let timer = Task { try? await Task.sleep(for: window); sink.finish() }
        defer { browse.cancel(); timer.cancel() }
        var latest: [String: BorderRouter] = [:]
        var order: [String] = []
        do {
            for try await e in events {
                switch e {
                case .found(let r), .updated(let r):
                    if latest[r.service.name] == nil { order.append(r.service.name) }
                    latest[r.service.name] = r
                case .removed(let r):
                    latest[r.service.name] = nil
                    order.removeAll { $0 == r.service.name }
                }
            }
        } catch let e as DiscoveryError {
            throw e
        } catch {
            throw DiscoveryError(.browseFailed, "browsing _meshcop._udp failed: \(error)")
        }
        return order.compactMap { latest[$0] }
    }

    /// Runs the primary browse, and the fallback browse once the primary found nothing; merges
    /// both (a node found by either is reported once) and types the results.
    private func typed<Node: Sendable & Hashable>(
        primary: String, fallback: String?, eagerFallback: Bool = false, filterPrimary: Bool,
        make: @escaping @Sendable (ServiceInstance) -> Node,
        keep: @escaping @Sendable (Node) -> Bool
    ) -> AsyncThrowingStream<DiscoveryEvent<Node>, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: DiscoveryEvent<Node>.self)
        let browser = self.browser
        let onDaemonState = self.onDaemonState
        let task = Task {
            let (merged, sink) = AsyncThrowingStream.makeStream(of: (source: Int, event: ServiceEvent).self)
            let (startFallback, trigger) = AsyncStream.makeStream(of: Void.self)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        for try await e in browser.browse(type: primary) { sink.yield((0, e)) }
                        sink.finish()
                    } catch { sink.finish(throwing: error) }
                }
                if let fallback {
                    group.addTask {
                        var it = startFallback.makeAsyncIterator()
                        guard await it.next() != nil else { return }
                        do {
                            for try await e in browser.browse(type: fallback) { sink.yield((1, e)) }
                        } catch { sink.finish(throwing: error) }
                    }
                }
                if eagerFallback { trigger.yield() }
                var merger = SourceMerger<Node>(filterPrimary: filterPrimary)
                do {
                    for try await (source, event) in merged {
                        if case .allForNow = event, source == 0, merger.isEmpty { trigger.yield() }
                        if source == 0, case .disconnected = event { onDaemonState?(.disconnected) }
                        if source == 0, case .reconnected = event { onDaemonState?(.reconnected) }
                        for out in merger.apply(source: source, event: event, make: make, keep: keep) {
                            continuation.yield(out)
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
                group.cancelAll()
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// Merges the events of several browses by instance name: a node is found once, updated with
/// the latest view, and removed when no browse has it any more.
struct SourceMerger<Node: Sendable & Hashable> {
    private var views: [String: [Int: Node]] = [:]
    private var reported: [String: Node] = [:]
    /// Whether source 0's results go through `keep` too (the fallback's always do).
    let filterPrimary: Bool

    init(filterPrimary: Bool) { self.filterPrimary = filterPrimary }

    var isEmpty: Bool { reported.isEmpty }

    mutating func apply(source: Int, event: ServiceEvent, make: (ServiceInstance) -> Node,
                        keep: (Node) -> Bool) -> [DiscoveryEvent<Node>] {
        let key: String
        switch event {
        case .found(let s), .updated(let s):
            key = "\(s.name).\(s.type).\(s.domain)"
            let node = make(s)
            if (source == 0 && !filterPrimary) || keep(node) { views[key, default: [:]][source] = node } else { views[key]?[source] = nil }
        case .removed(let s):
            key = "\(s.name).\(s.type).\(s.domain)"
            views[key]?[source] = nil
        case .allForNow, .disconnected, .reconnected:
            return []
        }
        guard let current = views[key]?.values.first else {
            views[key] = nil
            return reported.removeValue(forKey: key).map { [.removed($0)] } ?? []
        }
        let latest = views[key]?[source] ?? current
        guard let previous = reported.updateValue(latest, forKey: key) else { return [.found(latest)] }
        return previous == latest ? [] : [.updated(latest)]
    }
}
