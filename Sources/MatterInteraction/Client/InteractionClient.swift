import MatterTLV

/// The outcome of one command in an invoke.
public enum InvokeResult: Hashable, Sendable {
    /// The server answered with a response command and its fields.
    case response(CommandDataIB)
    /// The server answered with a status (success for commands without a response command).
    case status(StatusIB)
}

/// An active subscription as the client sees it after the priming report.
public struct ClientSubscription: Hashable, Sendable {
    public var subscriptionID: UInt32
    /// Seconds; the server promised a report at least this often.
    public var maxInterval: UInt16
    /// The priming report: the current values of every subscribed path.
    public var primingReport: AssembledReport
}

/// The client side of the Interaction Model (Matter Core 8.4-8.8): read, write, invoke and
/// subscribe over exchanges created by `exchangeFactory`. Each call is one exchange.
public struct InteractionClient: Sendable {
    public typealias ExchangeFactory = @Sendable () async throws(InteractionError) -> any IMExchange

    private let exchangeFactory: ExchangeFactory
    /// Passed to `ReadRequest`/`SubscribeRequest` (fabric-filtered reads are the norm).
    public var isFabricFiltered: Bool = true

    public init(exchangeFactory: @escaping ExchangeFactory) {
        self.exchangeFactory = exchangeFactory
    }

    // MARK: Read

    /// Reads attributes (wildcards allowed). Every path's outcome is returned: values, and
    /// statuses for paths the server could not serve; a whole-request failure throws.
    ///
    /// Steps (Matter Core 8.4.3): send ReadRequest; receive ReportData chunks, answering each
    /// non-final chunk with StatusResponse(Success); the last chunk carries SuppressResponse.
    public func read(paths: [AttributePathIB], dataVersionFilters: [DataVersionFilterIB]? = nil) async throws(InteractionError) -> [AttributeReport] {
        try await read(ReadRequestMessage(attributeRequests: paths, isFabricFiltered: isFabricFiltered,
                                          dataVersionFilters: dataVersionFilters)).attributes
    }

    /// Reads attributes and events in one request (paths, event filter, fabric filtering and
    /// data version filters as given) and returns the whole report, statuses included.
    public func read(_ request: ReadRequestMessage) async throws(InteractionError) -> AssembledReport {
        let exchange = try await exchangeFactory()
        let first = try await exchange.request(.readRequest, request.payload)
        let (report, reply) = try await collectReport(first, on: exchange)
        if let reply { try await exchange.send(.statusResponse, reply.payload) }
        return report
    }

    /// Reads one concrete attribute and returns its value, or throws the status it failed with.
    public func readAttribute(_ path: ConcreteAttributePath) async throws(InteractionError) -> TLVElement {
        let reports = try await read(paths: [path.ib])
        guard let r = reports.first(where: { $0.path.endpoint == path.endpoint && $0.path.cluster == path.cluster
            && $0.path.attribute == path.attribute }) else {
            throw InteractionError.invalidValue(what: "read of \(path)", reason: "the report has no entry for the path")
        }
        return try r.value()
    }

    // MARK: Write

    /// Writes attributes; returns the per-path statuses the server reported.
    ///
    /// With `timedTimeout` (milliseconds), first sends TimedRequest and waits for its
    /// StatusResponse, then sends the WriteRequest with TimedRequest=true (Matter Core 8.6).
    public func write(_ writes: [AttributeDataIB], timedTimeout: UInt16? = nil) async throws(InteractionError) -> [AttributeStatusIB] {
        let exchange = try await exchangeFactory()
        if let timedTimeout { try await sendTimedRequest(timedTimeout, on: exchange) }
        let request = WriteRequestMessage(timedRequest: timedTimeout != nil, writeRequests: writes)
        let reply = try await exchange.request(.writeRequest, request.payload)
        try throwIfStatusResponse(reply)
        guard reply.opcode == .writeResponse else {
            throw InteractionError.unexpectedMessage(expected: "WriteResponse", received: reply.opcode)
        }
        return try WriteResponseMessage(payload: reply.payload).writeResponses
    }

    /// Writes one attribute and throws the status if the write failed.
    public func writeAttribute(_ path: ConcreteAttributePath, value: TLVElement, timedTimeout: UInt16? = nil) async throws(InteractionError) {
        let statuses = try await write([AttributeDataIB(path: path.ib, data: value)], timedTimeout: timedTimeout)
        for s in statuses { if let e = s.status.error(at: .attribute(s.path)) { throw e } }
    }

    // MARK: Invoke

    /// Invokes several commands in one InvokeRequest; results come back in request order.
    /// Each command gets a CommandRef when there is more than one (Matter Core 8.8.2).
    public func invoke(_ commands: [CommandDataIB], timedTimeout: UInt16? = nil) async throws(InteractionError) -> [InvokeResult] {
        var numbered = commands
        if commands.count > 1 {
            for i in numbered.indices { numbered[i].commandRef = UInt16(truncatingIfNeeded: i) }
        }
        let exchange = try await exchangeFactory()
        if let timedTimeout { try await sendTimedRequest(timedTimeout, on: exchange) }
        let request = InvokeRequestMessage(timedRequest: timedTimeout != nil, invokeRequests: numbered)
        var frame = try await exchange.request(.invokeRequest, request.payload)
        var responses: [InvokeResponseIB] = []
        while true {
            try throwIfStatusResponse(frame)
            guard frame.opcode == .invokeResponse else {
                throw InteractionError.unexpectedMessage(expected: "InvokeResponse", received: frame.opcode)
            }
            let message = try InvokeResponseMessage(payload: frame.payload)
            responses += message.invokeResponses
            guard message.moreChunkedMessages == true else { break }
            frame = try await exchange.request(.statusResponse, StatusResponseMessage(status: .success).payload)
        }
        return try match(responses, to: numbered)
    }

    /// Invokes one command and returns the response command or status.
    public func invoke(commandPath: CommandPathIB, fields: TLVElement? = .structure([]),
                       timedTimeout: UInt16? = nil) async throws(InteractionError) -> InvokeResult {
        let results = try await invoke([CommandDataIB(path: commandPath, fields: fields)], timedTimeout: timedTimeout)
        return results[0]
    }

    /// Invokes a typed cluster command on an endpoint and decodes its typed response; a status
    /// other than success throws. Commands the spec marks as timed use `timedTimeout` (default
    /// 10 s) even if none is given.
    public func invoke<R: CommandRequest>(_ request: R, endpoint: EndpointID, timedTimeout: UInt16? = nil) async throws(InteractionError) -> R.Response {
        let path = CommandPathIB(endpoint, R.cluster, R.command)
        let timed = timedTimeout ?? (R.requiresTimedInvoke ? 10_000 : nil)
        switch try await invoke(commandPath: path, fields: request.fields, timedTimeout: timed) {
        case .status(let s):
            if let e = s.error(at: .command(path)) { throw e }
            guard R.Response.self == StatusOnlyResponse.self else {
                throw InteractionError.invalidValue(what: "response to \(path)", reason: "expected a response command, got a bare success status")
            }
            return try R.Response(element: .structure([]))
        case .response(let data):
            guard data.path.cluster == R.Response.cluster, data.path.command == R.Response.command else {
                throw InteractionError.invalidValue(what: "response to \(path)", reason: "unexpected response command \(data.path)")
            }
            return try R.Response(element: data.fields ?? .structure([]))
        }
    }

    // MARK: Subscribe

    /// Subscribes to attributes and events (Matter Core 8.5): SubscribeRequest, the priming
    /// ReportData chunks (each answered with StatusResponse), then SubscribeResponse. Later
    /// reports arrive on exchanges the server opens; feed them to a `ReportAssembler`. With
    /// `eventMin`, only events numbered at least that are reported (those seen before are not).
    /// `primed` hears the subscription ID once the priming report is in, before it is
    /// acknowledged: the server sends no later report before that, so a receiver registered
    /// there misses none.
    public func subscribe(paths: [AttributePathIB], events: [EventPathIB]? = nil, eventMin: UInt64? = nil,
                          minIntervalFloor: UInt16, maxIntervalCeiling: UInt16,
                          keepSubscriptions: Bool = false,
                          dataVersionFilters: [DataVersionFilterIB]? = nil,
                          primed: (@Sendable (UInt32) async -> Void)? = nil) async throws(InteractionError) -> ClientSubscription {
        let request = SubscribeRequestMessage(keepSubscriptions: keepSubscriptions, minIntervalFloor: minIntervalFloor,
                                              maxIntervalCeiling: maxIntervalCeiling, attributeRequests: paths.isEmpty ? nil : paths,
                                              eventRequests: events, eventFilters: eventMin.map { [EventFilterIB(eventMin: $0)] },
                                              isFabricFiltered: isFabricFiltered, dataVersionFilters: dataVersionFilters)
        let exchange = try await exchangeFactory()
        let first = try await exchange.request(.subscribeRequest, request.payload)
        let (report, reply) = try await collectReport(first, on: exchange)
        guard let reply, let id = report.subscriptionID else {
            throw InteractionError.invalidValue(what: "priming report", reason: "missing subscription ID or SuppressResponse set")
        }
        await primed?(id)
        let frame = try await exchange.request(.statusResponse, reply.payload)
        try throwIfStatusResponse(frame)
        guard frame.opcode == .subscribeResponse else {
            throw InteractionError.unexpectedMessage(expected: "SubscribeResponse", received: frame.opcode)
        }
        let response = try SubscribeResponseMessage(payload: frame.payload)
        guard response.subscriptionID == id else {
            throw InteractionError.invalidValue(what: "SubscribeResponse", reason: "subscription ID differs from the priming report")
        }
        guard response.maxInterval >= minIntervalFloor else {
            throw InteractionError.invalidValue(what: "SubscribeResponse", reason: "MaxInterval is below the requested floor")
        }
        return ClientSubscription(subscriptionID: id, maxInterval: response.maxInterval, primingReport: report)
    }

    // MARK: Pieces

    private func sendTimedRequest(_ timeout: UInt16, on exchange: any IMExchange) async throws(InteractionError) {
        let reply = try await exchange.request(.timedRequest, TimedRequestMessage(timeout: timeout).payload)
        guard reply.opcode == .statusResponse else {
            throw InteractionError.unexpectedMessage(expected: "StatusResponse", received: reply.opcode)
        }
        let status = try StatusResponseMessage(payload: reply.payload).status
        guard status.isSuccess else { throw InteractionError.status(status, clusterStatus: nil, path: nil) }
    }

    /// Collects ReportData chunks starting with `first`; returns the report and the final reply.
    private func collectReport(_ first: IMFrame, on exchange: any IMExchange) async throws(InteractionError) -> (AssembledReport, StatusResponseMessage?) {
        var assembler = ReportAssembler()
        var frame = first
        while true {
            try throwIfStatusResponse(frame)
            guard frame.opcode == .reportData else {
                throw InteractionError.unexpectedMessage(expected: "ReportData", received: frame.opcode)
            }
            switch try assembler.receive(try ReportDataMessage(payload: frame.payload)) {
            case .sendStatusAndContinue(let status):
                frame = try await exchange.request(.statusResponse, status.payload)
            case .complete(let report, let reply):
                return (report, reply)
            }
        }
    }

    private func throwIfStatusResponse(_ frame: IMFrame) throws(InteractionError) {
        guard frame.opcode == .statusResponse else { return }
        let status = try StatusResponseMessage(payload: frame.payload).status
        throw InteractionError.status(status, clusterStatus: nil, path: nil)
    }

    /// Orders responses like the requests: by CommandRef when several, else by path.
    private func match(_ responses: [InvokeResponseIB], to requests: [CommandDataIB]) throws(InteractionError) -> [InvokeResult] {
        var out: [InvokeResult] = []
        for (i, req) in requests.enumerated() {
            let found = responses.first { r in
                if requests.count > 1 { return r.commandRef == UInt16(truncatingIfNeeded: i) }
                switch r {
                case .command: return true
                case .status(let s): return s.path.cluster == req.path.cluster && s.path.command == req.path.command
                }
            }
            switch found {
            case .command(let c)?: out.append(.response(c))
            case .status(let s)?: out.append(.status(s.status))
            case nil:
                throw InteractionError.invalidValue(what: "InvokeResponse", reason: "no response for \(req.path)")
            }
        }
        return out
    }
}
