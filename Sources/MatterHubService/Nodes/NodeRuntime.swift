import FoundationEssentials
import MatterCertificates
import MatterClusters
import MatterHome
import MatterInteraction
import MatterInteractionMessaging
import MatterMessaging
import MatterTLV

/// What the node runtime tells the hub's API.
public enum NodeUpdate: Sendable, Equatable {
    /// Values that changed (or arrived for the first time), from a report or a read.
    case attributes(NodeID, [ConcreteAttributePath: TLVElement])
    case availability(NodeID, Bool)
    /// An event the node reported (each once: later subscriptions start after the last one seen).
    case event(NodeID, EventDataIB)
    /// What the hub is doing about the node changed (``NodeConnection``): connecting, waiting
    /// to retry, live.
    case connection(NodeID, NodeConnection)
    /// The node's root PartsList changed (a bridge added or removed devices): the endpoints
    /// that came and went. The values of those that went are forgotten (cache and store).
    case endpoints(NodeID, added: [EndpointID], removed: [EndpointID])
    /// A report of a subscription a client opened (schema 14's `subscribe`): for that client
    /// only, not cached.
    case subscriptionReport(NodeID, subscriptionID: UInt32, AssembledReport)
    /// Client subscriptions that died with the node's session (or because the hub subscribed
    /// again, which ends the others on the device).
    case subscriptionsEnded(NodeID, subscriptionIDs: [UInt32])
}

/// What the hub is doing about a node: "reconnecting" told apart from "unavailable, next try at".
public enum NodeConnection: Sendable, Equatable {
    /// Not kept live (removed, or the hub is stopping).
    case stopped
    /// Establishing CASE or its subscription, the `attempt`-th try in a row.
    case connecting(attempt: Int)
    /// The last try failed; the next is at `at` (sooner when the device announces itself).
    case retrying(at: Date, attempt: Int)
    /// Subscribed: reports arrive.
    case live
    /// A sleepy device (an ICD the hub is registered with) between wakes: its next Check-In or
    /// report is due by `nextCheckIn`; `missed` wakes in a row passed without one.
    case asleep(nextCheckIn: Date, missed: Int)
}

/// The hub's live view of its commissioned nodes: for each, a CASE session kept up, one
/// subscription to all of its attributes, a cache of every value, and its availability.
/// Each node's `NodeLifecycle` decides; this actor does the I/O the lifecycle asks for and
/// feeds it the outcomes, so a slow or silent device never blocks the others.
public actor NodeRuntime {
    struct Node {
        var lifecycle = NodeLifecycle()
        var session: SessionHandle?
        var subscriptionID: UInt32?
        var receiver = SubscriptionReportReceiver(knownSubscriptions: [])
        var cache: [ConcreteAttributePath: TLVElement] = [:]
        /// The highest event number the node reported to this hub (since the hub started).
        var lastEventNumber: UInt64?
        var work: Task<Void, Never>?
        /// The lifecycle's next tick (a lapse deadline, a retry), with the id it fires with.
        var wake: (id: UInt64, timer: ClockTimer)?
        /// When the node last said something (a report, a Check-In): a sleepy node is awake
        /// for its ActiveModeDuration after that.
        var lastHeard: Milliseconds?
        /// Requests waiting for a sleepy node to wake (by waiter id).
        var awakeWaiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        /// Subscriptions clients opened, with the session each lives on (their reports go to them).
        var clientSubscriptions: [UInt32: SessionHandle] = [:]
    }

    private let hub: Hub
    /// Ticks are reset by every report: a clock timer each (no task, no wake-up to arm or cancel).
    /// The lifecycles' `now` is read from the same clock: a timer fires when its clock reaches
    /// the deadline, and a second clock, truncated to other milliseconds, saw some ticks 1 ms
    /// early, which the lifecycle ignores (a lapse or a wake that then never came).
    private let timers = SystemClock()
    private var wakeIDs: UInt64 = 0
    private var nodes: [NodeID: Node] = [:]
    private let continuation: AsyncStream<NodeUpdate>.Continuation
    /// Every change, in order: attribute values and availability.
    public nonisolated let updates: AsyncStream<NodeUpdate>
    private let configure: @Sendable (inout NodeLifecycle) -> Void
    /// Whether nodes get the hub's own subscription (`hub serve --no-auto-subscription`: not
    /// until `enable_auto_subscription`).
    public nonisolated let autoSubscribes: Bool
    /// At most this many nodes set up (CASE, then the subscription with its priming report) at
    /// once. Two hundred nodes reconnecting together otherwise share the CPU so thinly that
    /// handshakes run past their timeouts and retry, and all of them come up late.
    private var setupSlots: Int
    private var setupWaiters: [CheckedContinuation<Void, Never>] = []
    /// Cached values not yet written to the store, the timer that writes them, and the write
    /// under way (each write waits for the one before it).
    private var unsaved: [NodeID: [ConcreteAttributePath: [UInt8]]] = [:]
    /// Availability changes not yet in the store's connectivity history.
    private var unsavedConnectivity: [ConnectivityEvent] = []
    /// Endpoints whose stored values are to be forgotten (they left the node).
    private var unsavedRemovals: [NodeID: Set<EndpointID>] = [:]
    private var flush: Task<Void, Never>?
    private var writing: Task<Void, Never>?
    static let cacheWriteDelay: Milliseconds = 500

    /// `configure` adjusts each node's lifecycle (intervals, backoff) before it starts;
    /// `concurrentSetups` bounds the nodes connecting and subscribing at the same time.
    public init(hub: Hub, concurrentSetups: Int = 16, autoSubscribes: Bool = true,
                configure: @escaping @Sendable (inout NodeLifecycle) -> Void = { _ in }) {
        self.hub = hub
        self.autoSubscribes = autoSubscribes
        self.configure = configure
        setupSlots = max(1, concurrentSetups)
        (updates, continuation) = AsyncStream.makeStream(of: NodeUpdate.self, bufferingPolicy: .unbounded)
    }

    /// Routes the reports that nodes send on exchanges they open to this runtime, and every other
    /// interaction a node opens (a read, an invoke) to `requests` (the hub's own node), if given.
    public func start(requests: ExchangeManager.UnsolicitedHandler? = nil) async throws(HomeError) {
        let manager = try await hub.messaging()
        manager.setSessionClosedHandler { [weak self] session in
            Task { await self?.closedByPeer(session) }
        }
        manager.setSessionUnresponsiveHandler { [weak self] session in
            Task { await self?.unresponsive(session) }
        }
        await manager.setHandler(for: .interactionModel) { [weak self] exchange, first in
            if first.opcode != IMOpcode.reportData.rawValue, let requests {
                await requests(exchange, first)
                return
            }
            await self?.receiveReports(on: exchange, first: first)
        }
    }

    /// Starts keeping `nodeID` live (no-op when it already is). Its cached values come from
    /// the store at once, so a restarted hub lists the node with its last state while it
    /// reconnects.
    public func add(_ nodeID: NodeID) {
        guard nodes[nodeID] == nil else { return }
        var node = Node()
        configure(&node.lifecycle)
        if !autoSubscribes { _ = node.lifecycle.handle(.setSubscribes(false), now: now) }
        for (path, bytes) in (try? hub.store.attributeValues(for: nodeID)) ?? [:] {
            if let value = try? TLVDecoder.decode(bytes) { node.cache[path] = value }
        }
        nodes[nodeID] = node
        handle(nodeID, .start)
    }

    /// Stops keeping `nodeID` live and forgets its cache.
    public func remove(_ nodeID: NodeID) async {
        wakeWaiters(nodeID, awake: false)
        handle(nodeID, .stop)
        nodes[nodeID]?.work?.cancel()
        nodes[nodeID]?.wake?.timer.cancel()
        nodes[nodeID] = nil
        unsaved[nodeID] = nil
        await hub.dropSession(for: nodeID)
    }

    public func stop() async {
        await flushCache()
        for id in Array(nodes.keys) { await remove(id) }
        continuation.finish()
    }

    public func isAvailable(_ nodeID: NodeID) -> Bool { nodes[nodeID]?.lifecycle.isAvailable ?? false }

    // MARK: - Auto subscription and client subscriptions (schema 14)

    /// Switches the hub's own subscription to `nodeID` on or off (until the hub restarts).
    public func setAutoSubscription(_ nodeID: NodeID, _ on: Bool) { handle(nodeID, .setSubscribes(on)) }
    /// Whether the hub keeps its own subscription to `nodeID`.
    public func autoSubscription(of nodeID: NodeID) -> Bool { nodes[nodeID]?.lifecycle.subscribes ?? autoSubscribes }

    /// A subscription a client opened on the node's session: its reports are answered and
    /// passed on as ``NodeUpdate/subscriptionReport(_:subscriptionID:_:)``. False when the node
    /// is not kept live.
    public func addClientSubscription(_ nodeID: NodeID, _ id: UInt32, on session: SessionHandle) -> Bool {
        guard nodes[nodeID] != nil else { return false }
        nodes[nodeID]?.clientSubscriptions[id] = session
        nodes[nodeID]?.receiver.add(id)
        return true
    }

    /// Whether a client subscription is still known (not ended with the node's session).
    public func isClientSubscription(_ nodeID: NodeID, _ id: UInt32) -> Bool { nodes[nodeID]?.clientSubscriptions[id] != nil }

    /// Forgets a client subscription: its next report is refused, which ends it on the device.
    public func removeClientSubscription(_ nodeID: NodeID, _ id: UInt32) {
        guard nodes[nodeID]?.clientSubscriptions.removeValue(forKey: id) != nil else { return }
        nodes[nodeID]?.receiver.remove(id)
    }

    /// Ends the client subscriptions of a node whose session went (or that the hub replaced).
    private func endClientSubscriptions(_ nodeID: NodeID, except kept: UInt32? = nil) {
        guard let ids = nodes[nodeID]?.clientSubscriptions.keys.filter({ $0 != kept }), !ids.isEmpty else { return }
        for id in ids { removeClientSubscription(nodeID, id) }
        continuation.yield(.subscriptionsEnded(nodeID, subscriptionIDs: ids.sorted()))
    }
    public func attributes(of nodeID: NodeID) -> [ConcreteAttributePath: TLVElement] { nodes[nodeID]?.cache ?? [:] }
    public var nodeIDs: [NodeID] { Array(nodes.keys) }

    /// Values read outside the subscription (read_attribute, an interview, a write): cached,
    /// persisted and announced like a report.
    public func merge(_ values: [ConcreteAttributePath: TLVElement], into nodeID: NodeID) {
        guard nodes[nodeID] != nil else { return }
        apply(AssembledReport(subscriptionID: nil, attributes: values.map { path, value in
            AttributeReport(path: path.ib, dataVersion: nil, outcome: .value(value))
        }, events: []), to: nodeID)
    }

    /// Waits (bounded) until `nodeID` is available; false when it was not within `timeout`.
    public func waitUntilAvailable(_ nodeID: NodeID, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if isAvailable(nodeID) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return isAvailable(nodeID)
    }

    /// Waits (bounded) until the hub's own subscription to `nodeID` delivers; false when it did
    /// not within `timeout`.
    public func waitUntilSubscribed(_ nodeID: NodeID, timeout: Duration) async -> Bool {
        func subscribed() -> Bool {
            if case .live(_, _, let due)? = nodes[nodeID]?.lifecycle.state, due != .max { return true }
            return false
        }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if subscribed() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return subscribed()
    }

    /// The device announced itself on `_matter._tcp`: reconnect now if waiting.
    public func deviceAnnounced(_ nodeID: NodeID) { handle(nodeID, .deviceAnnounced) }

    /// The device's advert came back after it went away, or on another port: it restarted or
    /// moved; reconnect now, at its announced address.
    public func deviceRestarted(_ nodeID: NodeID) { handle(nodeID, .deviceRestarted) }

    /// The node announces itself at `announced`. When its live session goes elsewhere (its
    /// host got a new ULA, its Thread prefix changed, it restarted on another port before the
    /// hub saw its first advert) it moved: the session is torn down and the node reconnected
    /// at once (true), instead of when its subscription lapses. A node that only gained an
    /// address, or whose advert has no address of its session's family yet, keeps its session.
    public func deviceMoved(_ nodeID: NodeID, announcing announced: [PeerAddress]) async -> Bool {
        guard let session = nodes[nodeID]?.session, case .live = nodes[nodeID]?.lifecycle.state else { return false }
        let manager = try? await hub.messaging()
        guard let current = await manager?.secureSession(session)?.peerAddress,
              nodes[nodeID]?.session == session,
              announced.contains(where: { $0.isIPv6 == current.isIPv6 }),
              !announced.contains(where: { $0.ip == current.ip && $0.port == current.port }) else { return false }
        handle(nodeID, .deviceRestarted)
        return true
    }

    // MARK: - Sleepy nodes (ICD)

    /// The hub registered with (`schedule`) or unregistered from (nil) the node's ICD
    /// Management cluster.
    public func setICDSchedule(_ nodeID: NodeID, _ schedule: NodeLifecycle.ICDSchedule?) {
        nodes[nodeID]?.lifecycle.icd = schedule
        if schedule == nil { wakeWaiters(nodeID, awake: true) }
    }

    /// A valid Check-In from the node: it is awake and has no subscription for the hub.
    public func checkIn(_ nodeID: NodeID) { handle(nodeID, .checkIn) }

    /// Whether a request can reach the node now: always, unless it is a sleepy node that is
    /// not live or whose last word is older than its ActiveModeDuration (less a margin).
    public func isAwake(_ nodeID: NodeID) -> Bool {
        guard let node = nodes[nodeID], let icd = node.lifecycle.icd else { return true }
        guard case .live = node.lifecycle.state, let heard = node.lastHeard else { return false }
        return now + Self.awakeMargin < heard + icd.active
    }
    static let awakeMargin: Milliseconds = 500

    /// When a sleepy node's next Check-In or report is due (nil: not a sleepy node).
    public func nextExpectedCheckIn(_ nodeID: NodeID) -> Date? {
        guard let node = nodes[nodeID], let icd = node.lifecycle.icd else { return nil }
        let due: Milliseconds
        switch node.lifecycle.state {
        case .asleep(_, let deadline): due = deadline
        case .live(_, _, let deadline) where deadline != .max: due = deadline - node.lifecycle.lapseMargin
        default: due = (node.lastHeard ?? now) + icd.idle  // also live without a subscription
        }
        return Date().addingTimeInterval(Double(Int64(due) - Int64(now)) / 1000)
    }

    /// Holds a request for a sleepy node until it is next awake (its Check-In answered and
    /// subscribed again, or a report): true at once for a node that is awake or not sleepy,
    /// false when `timeout` passed first.
    public func waitUntilAwake(_ nodeID: NodeID, timeout: Duration) async -> Bool {
        guard nodes[nodeID] != nil, !isAwake(nodeID) else { return true }
        waiterIDs += 1
        let id = waiterIDs
        let ms = Milliseconds(max(0, timeout / .milliseconds(1)))
        let timer = timers.schedule(at: timers.now() + ms) { [weak self] in
            Task { await self?.expireWaiter(nodeID, id) }
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { c in
            if nodes[nodeID] == nil { return c.resume(returning: false) }
            nodes[nodeID]?.awakeWaiters[id] = c
        }
    }
    private var waiterIDs: UInt64 = 0

    private func expireWaiter(_ nodeID: NodeID, _ id: UInt64) {
        nodes[nodeID]?.awakeWaiters.removeValue(forKey: id)?.resume(returning: false)
    }

    private func heard(_ nodeID: NodeID) {
        guard nodes[nodeID] != nil else { return }
        nodes[nodeID]?.lastHeard = now
    }

    /// Lets the held requests go (after the lifecycle moved: a report, a new subscription).
    private func wakeWaiters(_ nodeID: NodeID, awake: Bool) {
        guard let waiters = nodes[nodeID]?.awakeWaiters, !waiters.isEmpty else { return }
        nodes[nodeID]?.awakeWaiters = [:]
        for c in waiters.values { c.resume(returning: awake) }
    }

    // MARK: - Driving the lifecycle

    private var now: Milliseconds { timers.now() }

    private func handle(_ nodeID: NodeID, _ event: NodeLifecycle.Event) {
        var heardFrom = false
        switch event {
        case .reportReceived, .subscribed, .checkIn:
            heard(nodeID)
            heardFrom = true
        default: break
        }
        guard var node = nodes[nodeID] else { return }
        let before = Self.phase(node.lifecycle.state)
        let actions = node.lifecycle.handle(event, now: now)
        nodes[nodeID] = node
        for action in actions { perform(action, for: nodeID) }
        // A sleepy node that spoke and is live again takes the requests held for it.
        if heardFrom, case .live = node.lifecycle.state { wakeWaiters(nodeID, awake: true) }
        if Self.phase(node.lifecycle.state) != before { continuation.yield(.connection(nodeID, connection(node.lifecycle.state))) }
    }

    /// A lifecycle state without what changes while nothing happens to the connection (a live
    /// subscription's deadline moves with every report).
    private static func phase(_ state: NodeLifecycle.State) -> NodeLifecycle.State {
        if case .live = state { return .live(subscriptionID: 0, maxIntervalSeconds: 0, deadline: 0) }
        if case .subscribing(let attempt) = state { return .connecting(attempt: attempt) }
        return state
    }

    /// What the hub is doing about `nodeID` now.
    public func connection(of nodeID: NodeID) -> NodeConnection {
        guard let node = nodes[nodeID] else { return .stopped }
        // A sleepy node live between its wakes is asleep (its next report or Check-In due).
        if case .live = node.lifecycle.state, node.lifecycle.icd != nil, !isAwake(nodeID), let next = nextExpectedCheckIn(nodeID) {
            return .asleep(nextCheckIn: next, missed: 0)
        }
        return connection(node.lifecycle.state)
    }

    private func connection(_ state: NodeLifecycle.State) -> NodeConnection {
        switch state {
        case .idle: .stopped
        case .connecting(let attempt), .subscribing(let attempt): .connecting(attempt: attempt)
        case .live: .live
        case .waiting(let until, let attempt):
            .retrying(at: Date().addingTimeInterval(Double(Int64(until) - Int64(now)) / 1000), attempt: attempt)
        case .asleep(let missed, let deadline):
            .asleep(nextCheckIn: Date().addingTimeInterval(Double(Int64(deadline) - Int64(now)) / 1000), missed: missed)
        }
    }

    private func perform(_ action: NodeLifecycle.Action, for nodeID: NodeID) {
        switch action {
        case .establishSession(let resolve):
            run(nodeID) { runtime, hub in
                do {
                    let session = try await hub.session(for: nodeID, resolveAddress: resolve)
                    await runtime.sessionEstablished(nodeID, session)
                } catch {
                    await runtime.event(nodeID, .sessionFailed)
                }
            }
        case .subscribe(let ceiling):
            guard let session = nodes[nodeID]?.session else { return handle(nodeID, .subscribeFailed) }
            let eventMin = nodes[nodeID]?.lastEventNumber.map { $0 &+ 1 }
            run(nodeID) { runtime, hub in
                do {
                    let client = InteractionClient.over(try await hub.messaging(), session: session)
                    // Wildcard: every attribute and event of every cluster on every endpoint;
                    // events the hub already saw are not asked for again.
                    let subscription = try await client.subscribe(paths: [AttributePathIB()], events: [EventPathIB()],
                                                                  eventMin: eventMin, minIntervalFloor: 0,
                                                                  maxIntervalCeiling: ceiling)
                    await runtime.subscribed(nodeID, subscription)
                } catch {
                    await runtime.event(nodeID, .subscribeFailed)
                }
            }
        case .tearDown:
            endClientSubscriptions(nodeID)
            nodes[nodeID]?.work?.cancel()
            if let id = nodes[nodeID]?.subscriptionID { nodes[nodeID]?.receiver.remove(id) }
            nodes[nodeID]?.subscriptionID = nil
            if nodes[nodeID]?.session != nil {
                nodes[nodeID]?.session = nil
                let hub = self.hub
                Task { await hub.dropSession(for: nodeID) }
            }
        case .setAvailable(let available):
            continuation.yield(.availability(nodeID, available))
            // Kept in the node's history (written with the next batch of values); a stop is
            // the hub's doing, not the node's.
            if let reason = nodes[nodeID]?.lifecycle.availabilityReason, reason != .stopped {
                unsavedConnectivity.append(ConnectivityEvent(nodeID: nodeID, at: Date(), available: available, reason: reason.rawValue))
                scheduleFlush()
            }
        case .wake(let at):
            nodes[nodeID]?.wake?.timer.cancel()
            wakeIDs += 1
            let id = wakeIDs
            let timer = timers.schedule(at: at) { [weak self] in
                Task { await self?.wakeFired(nodeID, id) }
            }
            nodes[nodeID]?.wake = (id, timer)
        }
    }

    /// Runs one attempt of `nodeID`'s I/O off the actor, once a setup slot is free.
    private func run(_ nodeID: NodeID, _ body: @escaping @Sendable (NodeRuntime, Hub) async -> Void) {
        let hub = self.hub
        nodes[nodeID]?.work = Task { [weak self] in
            guard let self else { return }
            await self.acquireSetupSlot()
            if !Task.isCancelled { await body(self, hub) }
            await self.releaseSetupSlot()
        }
    }

    private func acquireSetupSlot() async {
        if setupSlots > 0 {
            setupSlots -= 1
            return
        }
        await withCheckedContinuation { setupWaiters.append($0) }
    }

    /// Hands the slot to the next waiter (first come, first served), or frees it.
    private func releaseSetupSlot() {
        if setupWaiters.isEmpty { setupSlots += 1 } else { setupWaiters.removeFirst().resume() }
    }

    private func event(_ nodeID: NodeID, _ event: NodeLifecycle.Event) { handle(nodeID, event) }

    /// A node ended our session with it (CloseSession: it restarts, or frees the slot): the
    /// session is lost now, not when the subscription lapses.
    private func closedByPeer(_ session: SessionHandle) {
        guard let nodeID = nodes.first(where: { $0.value.session == session })?.key else { return }
        handle(nodeID, .sessionFailed)
    }

    /// A message on a node's live session went unacknowledged (a command, a read, an answer to
    /// a report): the device most likely restarted and forgot the session without a word, so
    /// it is lost now, not when the subscription lapses. Other states have an attempt under way
    /// that fails by itself, and a sleepy node going quiet is its schedule's business.
    private func unresponsive(_ session: SessionHandle) {
        guard let nodeID = nodes.first(where: { $0.value.session == session })?.key,
              case .live = nodes[nodeID]?.lifecycle.state, nodes[nodeID]?.lifecycle.icd == nil else { return }
        handle(nodeID, .sessionFailed)
    }

    /// A tick, unless a later `.wake` replaced the timer that fired (or the node was removed).
    private func wakeFired(_ nodeID: NodeID, _ id: UInt64) {
        guard nodes[nodeID]?.wake?.id == id else { return }
        nodes[nodeID]?.wake = nil
        handle(nodeID, .tick)
        // A tick the lifecycle found early must not leave its deadline without a timer.
        if nodes[nodeID]?.wake == nil, let due = nodes[nodeID]?.lifecycle.deadline, due > now {
            perform(.wake(at: due), for: nodeID)
        }
    }

    private func sessionEstablished(_ nodeID: NodeID, _ session: SessionHandle) {
        guard nodes[nodeID] != nil else { return }
        nodes[nodeID]?.session = session
        handle(nodeID, .sessionEstablished)
    }

    private func subscribed(_ nodeID: NodeID, _ subscription: ClientSubscription) {
        guard nodes[nodeID] != nil else { return }
        // The hub's subscription (KeepSubscriptions false) ended the clients' on the device.
        endClientSubscriptions(nodeID)
        nodes[nodeID]?.subscriptionID = subscription.subscriptionID
        nodes[nodeID]?.receiver.add(subscription.subscriptionID)
        apply(subscription.primingReport, to: nodeID)
        handle(nodeID, .subscribed(subscriptionID: subscription.subscriptionID, maxIntervalSeconds: subscription.maxInterval))
    }

    // MARK: - Reports

    /// A node's report on an exchange it opened: every chunk answered, then applied.
    private func receiveReports(on exchange: Exchange, first: ReceivedMessage) async {
        // The node's own session, or one a client subscription lives on.
        guard let nodeID = nodes.first(where: { $0.value.session == first.session
            || $0.value.clientSubscriptions.values.contains(first.session) })?.key else {
            // Not one of our subscriptions (or already torn down): the receiver refuses it.
            var stranger = SubscriptionReportReceiver(knownSubscriptions: [])
            let (reply, _) = stranger.receive(IMFrame(IMOpcode(rawValue: first.opcode), first.payload))
            if let reply { try? await exchange.send(.interactionModel, opcode: reply.opcode.rawValue, payload: reply.payload) }
            await exchange.close()
            return
        }
        var message = first
        // One assembler per exchange: chunked reports of two subscriptions (the hub's and a
        // client's, or two clients') interleave across exchanges; the node's receiver only says
        // which subscriptions are known.
        guard var receiver = nodes[nodeID].map({ SubscriptionReportReceiver(knownSubscriptions: $0.receiver.knownSubscriptions) }) else {
            await exchange.close()
            return
        }
        while true {
            guard nodes[nodeID] != nil else { break }
            let (reply, report) = receiver.receive(IMFrame(IMOpcode(rawValue: message.opcode), message.payload))
            if let reply {
                try? await exchange.send(.interactionModel, opcode: reply.opcode.rawValue, payload: reply.payload,
                                         reliable: true)
            }
            if let report, let id = report.subscriptionID, nodes[nodeID]?.clientSubscriptions[id] != nil {
                continuation.yield(.subscriptionReport(nodeID, subscriptionID: id, report))
                break
            }
            if let report {
                apply(report, to: nodeID)
                if let id = report.subscriptionID { handle(nodeID, .reportReceived(subscriptionID: id)) }
                break
            }
            // A chunk: the rest of the report comes on the same exchange; a refusal ends it.
            guard reply?.opcode == .statusResponse, let next = try? await exchange.receive(timeout: .seconds(10)) else { break }
            message = next
            if reply.map({ (try? StatusResponseMessage(payload: $0.payload))?.status.isSuccess == false }) == true { break }
        }
        await exchange.close()
    }

    /// Puts a report's values in the cache; tells the API about the ones that changed, and
    /// about each event not seen before.
    private func apply(_ report: AssembledReport, to nodeID: NodeID) {
        applyAttributes(report, to: nodeID)
        let events = report.events.compactMap { report -> EventDataIB? in
            if case .data(let event) = report { return event }
            return nil
        }
        for event in events.sorted(by: { $0.eventNumber < $1.eventNumber }) {
            if let last = nodes[nodeID]?.lastEventNumber, event.eventNumber <= last { continue }
            nodes[nodeID]?.lastEventNumber = event.eventNumber
            continuation.yield(.event(nodeID, event))
        }
    }

    private func applyAttributes(_ report: AssembledReport, to nodeID: NodeID) {
        var changed: [ConcreteAttributePath: TLVElement] = [:]
        let partsBefore = nodes[nodeID]?.cache[Self.rootPartsList]
        for attribute in report.attributes {
            guard case .value(let value) = attribute.outcome, let path = attribute.path.concrete else { continue }
            if nodes[nodeID]?.cache[path] != value {
                nodes[nodeID]?.cache[path] = value
                changed[path] = value
            }
        }
        guard !changed.isEmpty else { return }
        unsaved[nodeID, default: [:]].merge(changed.mapValues { TLVWriter.encode($0) }) { $1 }
        scheduleFlush()
        continuation.yield(.attributes(nodeID, changed))
        if let before = partsBefore, let after = changed[Self.rootPartsList] { partsListChanged(nodeID, from: before, to: after) }
    }

    static let rootPartsList = ConcreteAttributePath(0, .descriptor, Clusters.Descriptor.Attribute.partsList)

    /// Endpoints that left the root PartsList take their values with them; the change is told
    /// (endpoint_added/endpoint_removed), so that a bridge's new light is read alone, not the
    /// whole bridge again.
    private func partsListChanged(_ nodeID: NodeID, from before: TLVElement, to after: TLVElement) {
        func endpoints(_ e: TLVElement) -> Set<EndpointID> { Set(e.members.compactMap { try? EndpointID($0.unsigned(as: UInt16.self)) }) }
        let old = endpoints(before), new = endpoints(after)
        let added = new.subtracting(old).sorted(), removed = old.subtracting(new).sorted()
        guard !added.isEmpty || !removed.isEmpty else { return }
        if !removed.isEmpty, let cache = nodes[nodeID]?.cache {
            let gone = Set(removed)
            nodes[nodeID]?.cache = cache.filter { !gone.contains($0.key.endpoint) }
            unsaved[nodeID] = unsaved[nodeID]?.filter { !gone.contains($0.key.endpoint) }
            unsavedRemovals[nodeID, default: []].formUnion(gone)
            scheduleFlush()
        }
        continuation.yield(.endpoints(nodeID, added: added, removed: removed))
    }

    /// Writes what is unsaved after `cacheWriteDelay` (once, however much comes meanwhile).
    private func scheduleFlush() {
        guard flush == nil else { return }
        flush = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(Int64(Self.cacheWriteDelay)))
            await self?.flushCache()
        }
    }

    /// Writes the values not yet in the store, all nodes in one transaction, off this actor.
    /// The store syncs every transaction to disk (it also holds the fabric); a transaction per
    /// report had 200 nodes' first subscriptions wait 20 s on the disk, with the actor blocked.
    /// A crash loses at most `cacheWriteDelay` of values, which the next subscription reads
    /// again; a stop writes them first.
    /// It returns once every value cached before the call is in the store, including those of
    /// a write already under way: a stop that returned earlier let the next hub on this state
    /// read the store before the timer's write had committed, and list its nodes without values.
    private func flushCache() async {
        flush?.cancel()
        flush = nil
        let batch = unsaved, connectivity = unsavedConnectivity, removals = unsavedRemovals, store = hub.store, previous = writing
        unsaved = [:]
        unsavedConnectivity = []
        unsavedRemovals = [:]
        let write = Task.detached {
            await previous?.value
            if !removals.isEmpty { try? store.removeAttributeValues(removals) }
            if !batch.isEmpty { try? store.storeAttributeValues(batch) }
            if !connectivity.isEmpty { try? store.appendConnectivity(connectivity) }
        }
        writing = write
        await write.value
        if writing == write { writing = nil }
    }
}
