import MatterTLV

/// The server's state for one exchange the peer opened: turns each received IM message into
/// the reply to send (events in, actions out). It keeps the timed-interaction window and the
/// chunks still to send; the messaging layer owns the exchange and the clock.
public struct ServerExchange: Sendable {
    private let server: InteractionServer
    public let context: IMSessionContext
    /// Set by TimedRequest: the monotonic millisecond time the window closes.
    private var timedDeadline: UInt64?
    /// Chunks still to send, each after a StatusResponse(Success) from the peer.
    private var pending: [IMFrame] = []
    /// After the last priming chunk is acknowledged: SubscribeResponse, then activation.
    private var pendingSubscribeResponse: SubscribeResponseMessage?
    /// A timed write whose later chunks arrive without a new TimedRequest.
    private var timedWriteContinues = false
    /// True once the interaction is over; further messages are answered with InvalidAction.
    public private(set) var isFinished = false

    init(server: InteractionServer, context: IMSessionContext) {
        self.server = server
        self.context = context
    }

    /// Handles one message received at monotonic time `now` (milliseconds); returns the reply,
    /// or nil when nothing is sent (suppressed responses, the end of an interaction).
    public mutating func receive(_ frame: IMFrame, now: UInt64) async -> IMFrame? {
        if isFinished { return statusResponse(.invalidAction, finish: true) }
        if !pending.isEmpty || pendingSubscribeResponse != nil { return await continueChunks(frame, now: now) }

        if timedDeadline != nil, frame.opcode != .writeRequest, frame.opcode != .invokeRequest {
            // Only a write or invoke may follow a TimedRequest (Matter Core 8.7.2.1).
            return statusResponse(.invalidAction, finish: true)
        }
        switch frame.opcode {
        case .readRequest: return await read(frame.payload)
        case .subscribeRequest: return await subscribe(frame.payload)
        case .writeRequest: return await write(frame.payload, now: now)
        case .invokeRequest: return await invoke(frame.payload, now: now)
        case .timedRequest:
            guard let timed = try? TimedRequestMessage(payload: frame.payload) else {
                return statusResponse(.invalidAction, finish: true)
            }
            timedDeadline = now + UInt64(timed.timeout)
            return statusResponse(.success, finish: false)
        case .statusResponse:
            // A StatusResponse that answers nothing ends the exchange without a reply.
            isFinished = true
            return nil
        default:
            return statusResponse(.invalidAction, finish: true)
        }
    }

    // MARK: Per interaction

    private mutating func read(_ payload: [UInt8]) async -> IMFrame? {
        guard let request = try? ReadRequestMessage(payload: payload),
              !(request.attributeRequests ?? []).isEmpty || !(request.eventRequests ?? []).isEmpty else {
            return statusResponse(.invalidAction, finish: true)
        }
        let reports = await server.attributeReports(for: request.attributeRequests ?? [],
                                                    filters: request.dataVersionFilters ?? [],
                                                    fabricFiltered: request.isFabricFiltered, context: context)
        let events = await server.eventReports(for: request.eventRequests ?? [], filters: request.eventFilters ?? [])
        let chunker = ReportChunker(maxPayloadSize: server.maxPayloadSize, suppressResponseOnLast: true)
        guard let chunks = try? chunker.chunk(reports, events: events) else {
            return statusResponse(.resourceExhausted, finish: true)
        }
        return startChunks(chunks.map(IMFrame.init))
    }

    private mutating func subscribe(_ payload: [UInt8]) async -> IMFrame? {
        guard let request = try? SubscribeRequestMessage(payload: payload),
              request.minIntervalFloor <= request.maxIntervalCeiling,
              !(request.attributeRequests ?? []).isEmpty || !(request.eventRequests ?? []).isEmpty else {
            return statusResponse(.invalidAction, finish: true)
        }
        let (id, maxInterval) = await server.createSubscription(request, context: context)
        let reports = await server.attributeReports(for: request.attributeRequests ?? [],
                                                    filters: request.dataVersionFilters ?? [],
                                                    fabricFiltered: request.isFabricFiltered, context: context)
        let events = await server.eventReports(for: request.eventRequests ?? [], filters: request.eventFilters ?? [],
                                               subscription: id)
        let chunker = ReportChunker(maxPayloadSize: server.maxPayloadSize, subscriptionID: id, suppressResponseOnLast: false)
        guard let chunks = try? chunker.chunk(reports, events: events) else {
            await server.dropSubscription(id)
            return statusResponse(.resourceExhausted, finish: true)
        }
        pendingSubscribeResponse = SubscribeResponseMessage(subscriptionID: id, maxInterval: maxInterval)
        return startChunks(chunks.map(IMFrame.init))
    }

    private mutating func write(_ payload: [UInt8], now: UInt64) async -> IMFrame? {
        guard let request = try? WriteRequestMessage(payload: payload) else {
            return statusResponse(.invalidAction, finish: true)
        }
        if timedWriteContinues {
            // Later chunks of a timed write repeat TimedRequest=true (Matter Core 8.7.3.2).
            if !request.timedRequest { return statusResponse(.timedRequestMismatch, finish: true) }
        } else if let failure = checkTimed(request.timedRequest, now: now) {
            return statusResponse(failure, finish: true)
        }
        timedWriteContinues = request.timedRequest && request.moreChunkedMessages == true
        let statuses = await server.write(request, context: context)
        if request.moreChunkedMessages != true { isFinished = true }
        if request.suppressResponse == true { return nil }
        return IMFrame(WriteResponseMessage(writeResponses: statuses))
    }

    private mutating func invoke(_ payload: [UInt8], now: UInt64) async -> IMFrame? {
        guard let request = try? InvokeRequestMessage(payload: payload), !request.invokeRequests.isEmpty else {
            return statusResponse(.invalidAction, finish: true)
        }
        if let failure = checkTimed(request.timedRequest, now: now) { return statusResponse(failure, finish: true) }
        let commands = request.invokeRequests
        if commands.count > server.maxPathsPerInvoke { return statusResponse(.invalidAction, finish: true) }
        if commands.count > 1 {
            // Several commands need distinct CommandRefs and distinct paths (Matter Core 8.8.2).
            let refs = commands.compactMap(\.commandRef)
            let paths = Set(commands.map(\.path))
            guard refs.count == commands.count, Set(refs).count == refs.count, paths.count == commands.count else {
                return statusResponse(.invalidAction, finish: true)
            }
        }
        var responses: [InvokeResponseIB] = []
        for command in commands {
            responses.append(await server.invoke(command, timed: request.timedRequest, context: context))
        }
        if request.suppressResponse {
            isFinished = true
            return nil
        }
        return startChunks(chunkInvokeResponses(responses))
    }

    // MARK: Pieces

    /// Applies the timed-interaction rules (Matter Core 8.7.2.1): an action after a TimedRequest
    /// must say TimedRequest=true and arrive in time; one that says so without a TimedRequest
    /// is a mismatch.
    private mutating func checkTimed(_ flagged: Bool, now: UInt64) -> IMStatus? {
        defer { timedDeadline = nil }
        guard let deadline = timedDeadline else { return flagged ? .timedRequestMismatch : nil }
        if !flagged { return .timedRequestMismatch }
        if now > deadline { return .timeout }
        return nil
    }

    private mutating func startChunks(_ frames: [IMFrame]) -> IMFrame? {
        guard let first = frames.first else { return nil }
        pending = Array(frames.dropFirst())
        if pending.isEmpty && pendingSubscribeResponse == nil { isFinished = true }
        return first
    }

    private mutating func continueChunks(_ frame: IMFrame, now: UInt64) async -> IMFrame? {
        guard frame.opcode == .statusResponse,
              let status = try? StatusResponseMessage(payload: frame.payload), status.status.isSuccess else {
            // The peer aborted: drop what was pending (and the half-made subscription).
            if let s = pendingSubscribeResponse { await server.dropSubscription(s.subscriptionID) }
            pending = []
            pendingSubscribeResponse = nil
            isFinished = true
            return frame.opcode == .statusResponse ? nil : statusResponse(.invalidAction, finish: true)
        }
        if !pending.isEmpty {
            let next = pending.removeFirst()
            if pending.isEmpty && pendingSubscribeResponse == nil { isFinished = true }
            return next
        }
        guard let response = pendingSubscribeResponse else { return nil }
        pendingSubscribeResponse = nil
        isFinished = true
        await server.activateSubscription(response.subscriptionID, now: now)
        return IMFrame(response)
    }

    private mutating func statusResponse(_ status: IMStatus, finish: Bool) -> IMFrame {
        if finish { isFinished = true }
        return IMFrame(StatusResponseMessage(status: status))
    }

    /// Packs invoke responses into messages under the payload budget.
    private func chunkInvokeResponses(_ responses: [InvokeResponseIB]) -> [IMFrame] {
        let budget = server.maxPayloadSize - InvokeResponseMessage(invokeResponses: [], moreChunkedMessages: true).payload.count
        var messages: [[InvokeResponseIB]] = [[]]
        var used = 0
        for r in responses {
            let size = TLVWriter.encode(r.element(tag: .anonymous)).count
            if used + size > budget, !messages[messages.count - 1].isEmpty {
                messages.append([])
                used = 0
            }
            messages[messages.count - 1].append(r)
            used += size
        }
        return messages.enumerated().map { i, items in
            IMFrame(InvokeResponseMessage(invokeResponses: items, moreChunkedMessages: i < messages.count - 1 ? true : nil))
        }
    }
}
