import MatterTLV

/// A subscription report due to be sent on a new exchange the publisher opens.
public struct OutgoingSubscriptionReport: Hashable, Sendable {
    public var subscriptionID: UInt32
    /// ReportData chunks; each must be answered by StatusResponse(Success).
    public var chunks: [ReportDataMessage]
    /// The changed paths it carries (empty for a keep-alive).
    public var paths: Set<ConcreteAttributePath>
    /// The session facts of the subscriber (its session ID tells the driver where to send).
    public var context: IMSessionContext = IMSessionContext()
}

/// The server side of the Interaction Model: dispatches requests to an `InteractionDevice`
/// over a `DataModel`, and keeps the subscriptions. Each incoming exchange gets a
/// `ServerExchange` (see `exchange(context:)`) that turns received messages into replies.
public actor InteractionServer {
    public private(set) var dataModel: DataModel
    private let device: any InteractionDevice
    /// The IM payload budget for one message; reports and invoke responses are chunked to it.
    public let maxPayloadSize: Int
    /// The most commands one InvokeRequest may carry (BasicInformation.MaxPathsPerInvoke).
    public let maxPathsPerInvoke: Int
    /// An ICD's IdleModeDuration (seconds): its subscriptions' max interval, whatever the
    /// subscriber asked for, as the CHIP SDK's ICD server decides it (the device wakes for its
    /// reports and its check-ins together). Nil: the subscriber's ceiling.
    public let icdIdleSeconds: UInt16?

    struct Subscription {
        var id: UInt32
        var context: IMSessionContext
        var paths: [AttributePathIB]
        var fabricFiltered: Bool
        var scheduler: SubscriptionScheduler
        var maxInterval: UInt16
        var eventPaths: [EventPathIB]
        /// The lowest event number not yet reported on this subscription.
        var eventCursor: UInt64
    }
    private var subscriptions: [UInt32: Subscription] = [:]
    private var nextSubscriptionID: UInt32
    private var eventLog: EventLog

    /// `firstEventNumber`: above every event number the device used before (it persists them).
    public init(dataModel: DataModel, device: any InteractionDevice,
                maxPayloadSize: Int = ReportChunker.defaultMaxPayloadSize, maxPathsPerInvoke: Int = 10,
                firstSubscriptionID: UInt32 = 1, firstEventNumber: UInt64 = 1, icdIdleSeconds: UInt16? = nil) {
        self.icdIdleSeconds = icdIdleSeconds
        self.dataModel = dataModel
        self.device = device
        self.maxPayloadSize = maxPayloadSize
        self.maxPathsPerInvoke = maxPathsPerInvoke
        self.nextSubscriptionID = firstSubscriptionID
        self.eventLog = EventLog(firstEventNumber: firstEventNumber)
    }

    /// Emits an event: it is logged (for reads) and reported to every subscription whose event
    /// paths select it. Returns its event number.
    @discardableResult
    public func emitEvent(endpoint: EndpointID, cluster: ClusterID, event: EventID, priority: UInt8,
                          epochTimestampMs: UInt64, data: TLVElement = .structure([])) -> UInt64 {
        let record = eventLog.log(endpoint: endpoint, cluster: cluster, event: event, priority: priority,
                                  epochTimestampMs: epochTimestampMs, data: data)
        for (id, s) in subscriptions where s.eventPaths.contains(where: { $0.matches(record.path) }) {
            subscriptions[id]?.scheduler.eventsLogged()
        }
        return record.eventNumber
    }

    /// The device's endpoints changed (a bridge added or removed one). Reads and wildcard
    /// subscriptions follow the new model from now on; the device marks what changed.
    public func replaceDataModel(_ model: DataModel) {
        dataModel = model
    }

    /// The responder for one exchange the peer opened, on a session with `context`.
    public nonisolated func exchange(context: IMSessionContext) -> ServerExchange {
        ServerExchange(server: self, context: context)
    }

    // MARK: Reads

    /// Attribute reports for the given paths (wildcards expanded, statuses for missing
    /// concrete paths, clusters skipped whose data version matches a filter).
    func attributeReports(for paths: [AttributePathIB], filters: [DataVersionFilterIB], fabricFiltered: Bool,
                          context: IMSessionContext, only: Set<ConcreteAttributePath>? = nil) async -> [AttributeReportIB] {
        var reports: [AttributeReportIB] = []
        var seen: Set<ConcreteAttributePath> = []
        var versions: [ClusterPathIB: UInt32?] = [:]
        for requested in paths {
            for item in dataModel.expandRead(requested) {
                switch item {
                case .status(let p, let s):
                    if only == nil { reports.append(.status(AttributeStatusIB(path: p, status: StatusIB(s)))) }
                case .concrete(let c):
                    if let only, !only.contains(c) { continue }
                    guard seen.insert(c).inserted else { continue }
                    let key = ClusterPathIB(endpoint: c.endpoint, cluster: c.cluster)
                    if versions[key] == nil { versions[key] = .some(await device.dataVersion(c.endpoint, c.cluster)) }
                    let version = versions[key] ?? nil
                    if only == nil, let version,
                       filters.contains(where: { $0.path.endpoint == c.endpoint && $0.path.cluster == c.cluster && $0.dataVersion == version }) {
                        continue
                    }
                    do {
                        let value = try await device.readAttribute(c, fabricFiltered: fabricFiltered, context: context)
                        reports.append(.data(AttributeDataIB(dataVersion: version, path: c.ib, data: value)))
                    } catch {
                        // Wildcard reads skip what the requester may not see (Matter Core 8.4.3.2).
                        if requested.isWildcard && (error == .unsupportedAccess || error == .unsupportedRead) { continue }
                        reports.append(.status(AttributeStatusIB(path: c.ib, status: StatusIB(error))))
                    }
                }
            }
        }
        return reports
    }

    /// Event reports for a read or a subscription's priming report: a status for each concrete
    /// path the data model lacks, then the logged events the paths select, numbered at least the
    /// filters' `eventMin`. With `subscription`, its cursor moves past what is reported.
    func eventReports(for paths: [EventPathIB], filters: [EventFilterIB], subscription: UInt32? = nil) -> [EventReportIB] {
        let statuses: [EventReportIB] = paths.compactMap { p in
            guard let e = p.endpoint, let c = p.cluster, let event = p.event else { return nil }
            let status: IMStatus
            if dataModel.endpoints[e] == nil { status = .unsupportedEndpoint }
            else if let cluster = dataModel.cluster(e, c) {
                guard !cluster.events.contains(event) else { return nil }
                status = .unsupportedEvent
            } else { status = .unsupportedCluster }
            return .status(EventStatusIB(path: p, status: StatusIB(status)))
        }
        let eventMin = filters.map(\.eventMin).max() ?? 0
        let selected = eventLog.select(paths, eventMin: eventMin)
        if let subscription, let last = selected.last { subscriptions[subscription]?.eventCursor = last.eventNumber &+ 1 }
        return statuses + selected.map { .data($0) }
    }

    /// The events logged since `subscription` last reported, for its next report.
    private func pendingEvents(_ subscription: UInt32) -> [EventReportIB] {
        guard let s = subscriptions[subscription], !s.eventPaths.isEmpty else { return [] }
        let selected = eventLog.select(s.eventPaths, eventMin: s.eventCursor)
        if let last = selected.last { subscriptions[subscription]?.eventCursor = last.eventNumber &+ 1 }
        return selected.map { .data($0) }
    }

    // MARK: Writes and commands

    func write(_ request: WriteRequestMessage, context: IMSessionContext) async -> [AttributeStatusIB] {
        var out: [AttributeStatusIB] = []
        for item in request.writeRequests {
            switch dataModel.resolveWrite(item.path, timed: request.timedRequest) {
            case .status(let p, let s):
                out.append(AttributeStatusIB(path: p, status: StatusIB(s)))
            case .concrete(let c):
                if let wanted = item.dataVersion, let current = await device.dataVersion(c.endpoint, c.cluster), wanted != current {
                    out.append(AttributeStatusIB(path: item.path, status: StatusIB(.dataVersionMismatch)))
                    continue
                }
                do {
                    try await device.writeAttribute(c, value: item.data, listIndex: item.path.listIndex, context: context)
                    out.append(AttributeStatusIB(path: item.path, status: .success))
                } catch {
                    out.append(AttributeStatusIB(path: item.path, status: StatusIB(error)))
                }
            }
        }
        return out
    }

    func invoke(_ command: CommandDataIB, timed: Bool, context: IMSessionContext) async -> InvokeResponseIB {
        switch dataModel.resolveCommand(command.path, timed: timed) {
        case .status(let p, let s):
            return .status(CommandStatusIB(path: p, status: StatusIB(s), commandRef: command.commandRef))
        case .concrete(let p):
            switch await device.invokeCommand(p, fields: command.fields, context: context) {
            case .status(let s):
                return .status(CommandStatusIB(path: p, status: s, commandRef: command.commandRef))
            case .response(let id, let fields):
                let path = CommandPathIB(endpoint: p.endpoint, cluster: p.cluster, command: id)
                return .command(CommandDataIB(path: path, fields: fields, commandRef: command.commandRef))
            }
        }
    }

    // MARK: Subscriptions

    /// Creates a subscription (not yet active) and returns its ID and negotiated max interval.
    func createSubscription(_ request: SubscribeRequestMessage, context: IMSessionContext) -> (UInt32, UInt16) {
        if !request.keepSubscriptions {
            subscriptions = subscriptions.filter { $0.value.context.peerNodeID != context.peerNodeID
                || $0.value.context.fabricIndex != context.fabricIndex }
        }
        let id = nextSubscriptionID
        nextSubscriptionID &+= 1
        let maxInterval = Self.maxInterval(floor: request.minIntervalFloor, ceiling: request.maxIntervalCeiling, icdIdle: icdIdleSeconds)
        subscriptions[id] = Subscription(id: id, context: context, paths: request.attributeRequests ?? [],
                                         fabricFiltered: request.isFabricFiltered,
                                         scheduler: SubscriptionScheduler(minIntervalSeconds: request.minIntervalFloor,
                                                                          maxIntervalSeconds: maxInterval, now: 0),
                                         maxInterval: maxInterval, eventPaths: request.eventRequests ?? [],
                                         eventCursor: request.eventFilters?.map(\.eventMin).max() ?? 0)
        pendingActivation.insert(id)
        return (id, maxInterval)
    }
    private var pendingActivation: Set<UInt32> = []

    /// The subscriber's ceiling (at least its floor); for an ICD, its idle duration, or the first
    /// multiple of it at or above the floor, at most an hour (the SDK's publisher limit).
    static func maxInterval(floor: UInt16, ceiling: UInt16, icdIdle: UInt16?) -> UInt16 {
        guard let idle = icdIdle, idle > 0 else { return max(floor, ceiling) }
        let multiple = floor <= idle ? UInt32(idle) : (UInt32(floor) / UInt32(idle) + 1) * UInt32(idle)
        return UInt16(min(multiple, 3600))
    }

    /// Whether `peerNodeID` on `fabricIndex` holds an active subscription (an ICD checks in
    /// only with registered clients that do not, Matter Core 9.16.6.5).
    public func hasActiveSubscription(from peerNodeID: UInt64, fabricIndex: UInt8) -> Bool {
        subscriptions.values.contains {
            !pendingActivation.contains($0.id) && $0.context.peerNodeID == peerNodeID && $0.context.fabricIndex == fabricIndex
        }
    }

    /// The priming report was acknowledged and SubscribeResponse sent: reports start now.
    func activateSubscription(_ id: UInt32, now: UInt64) {
        guard var s = subscriptions[id] else { return }
        pendingActivation.remove(id)
        s.scheduler = SubscriptionScheduler(minIntervalSeconds: UInt16(s.scheduler.minInterval / 1000),
                                            maxIntervalSeconds: s.maxInterval, now: now)
        subscriptions[id] = s
    }

    func dropSubscription(_ id: UInt32) {
        subscriptions[id] = nil
        pendingActivation.remove(id)
    }

    /// Forgets a subscription without telling the subscriber (a device that lost its state):
    /// what a test device does to have a subscription die silently.
    public func forgetSubscription(_ id: UInt32) {
        dropSubscription(id)
    }

    /// The IDs of the active subscriptions.
    public var activeSubscriptionIDs: [UInt32] {
        subscriptions.keys.filter { !pendingActivation.contains($0) }.sorted()
    }

    /// Tells the server that attributes changed; matching subscriptions become dirty.
    public func attributesChanged(_ paths: [ConcreteAttributePath]) {
        for id in subscriptions.keys where !pendingActivation.contains(id) {
            let subscribed = subscriptions[id]!.paths
            let matching = paths.filter { c in subscribed.contains { $0.matches(c) } }
            subscriptions[id]!.scheduler.attributesChanged(matching)
        }
    }

    /// The earliest time `dueReports` has something to do (for the driver's timer).
    public var nextReportDeadline: UInt64? {
        subscriptions.filter { !pendingActivation.contains($0.key) }.compactMap { $0.value.scheduler.nextDeadline }.min()
    }

    /// The reports due at `now`, built and chunked. Deliver each with `deliver(_:on:now:)`.
    public func dueReports(now: UInt64) async -> [OutgoingSubscriptionReport] {
        var out: [OutgoingSubscriptionReport] = []
        for id in subscriptions.keys.sorted() where !pendingActivation.contains(id) {
            guard let (action, paths) = subscriptions[id]?.scheduler.tick(now: now), let s = subscriptions[id] else { continue }
            let reports = action == .sendKeepAlive ? []
                : await attributeReports(for: s.paths, filters: [], fabricFiltered: s.fabricFiltered,
                                         context: s.context, only: paths)
            let events = action == .sendKeepAlive ? [] : pendingEvents(id)
            let chunker = ReportChunker(maxPayloadSize: maxPayloadSize, subscriptionID: id, suppressResponseOnLast: false)
            do {
                out.append(OutgoingSubscriptionReport(subscriptionID: id, chunks: try chunker.chunk(reports, events: events), paths: paths,
                                                      context: s.context))
            } catch {
                // A value that cannot fit any message ends the subscription rather than looping.
                dropSubscription(id)
            }
        }
        return out
    }

    /// Sends one subscription report on an exchange the driver opened to the subscriber,
    /// waiting for StatusResponse(Success) after every chunk. Any failure, or a subscriber that
    /// answers InvalidSubscription, ends the subscription (Matter Core 8.5.2).
    public func deliver(_ report: OutgoingSubscriptionReport, on exchange: any IMExchange, now: UInt64) async throws {
        do {
            for chunk in report.chunks {
                let reply = try await exchange.request(.reportData, chunk.payload)
                guard reply.opcode == .statusResponse else {
                    throw InteractionError.unexpectedMessage(expected: "StatusResponse", received: reply.opcode)
                }
                let status = try StatusResponseMessage(payload: reply.payload).status
                guard status.isSuccess else { throw InteractionError.status(status, clusterStatus: nil, path: nil) }
            }
            subscriptions[report.subscriptionID]?.scheduler.reportSent(now: now)
        } catch {
            dropSubscription(report.subscriptionID)
            throw error
        }
    }
}

extension AttributePathIB {
    /// True when this (possibly wildcard) path selects the concrete path.
    public func matches(_ c: ConcreteAttributePath) -> Bool {
        (endpoint == nil || endpoint == c.endpoint) && (cluster == nil || cluster == c.cluster)
            && (attribute == nil || attribute == c.attribute)
    }
}
