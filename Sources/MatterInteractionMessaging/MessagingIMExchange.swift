import MatterInteraction
import MatterMessaging
import Synchronization

/// The Interaction Model's exchange boundary over a MatterMessaging exchange (protocol 0x0001):
/// the one glue between the two layers, for clients (the commissioner, the hub) and for the
/// device's subscription reports alike. The interaction owns it; when it is let go, the exchange
/// is closed (flushing any acknowledgement still owed). Messaging failures surface as
/// `InteractionError.exchangeFailed`.
public final class MessagingIMExchange: IMExchange {
    public let exchange: Exchange
    /// How long a request waits for the peer's reply.
    public let timeout: Duration

    public init(exchange: Exchange, timeout: Duration = .seconds(30)) {
        self.exchange = exchange
        self.timeout = timeout
    }

    deinit {
        let e = exchange
        if let deferred = DeferredExchangeClose.current, deferred.hold(e) { return }
        // Immediate: closing (and the acknowledgement it may send) runs here and now. A plain
        // task woke another thread, which then preempted this one just as it was about to
        // answer: the hub's reply to a command waited for the exchange's close.
        Task.immediate { await e.close() }
    }

    public func request(_ opcode: IMOpcode, _ payload: [UInt8]) async throws(InteractionError) -> IMFrame {
        let reply: ReceivedMessage
        do {
            reply = try await exchange.request(.interactionModel, opcode: opcode.rawValue, payload: payload, timeout: timeout)
        } catch {
            throw InteractionError.exchangeFailed(ExchangeFailure(error))
        }
        guard reply.protocolID == .interactionModel else {
            throw InteractionError.exchangeFailed(ExchangeFailure(.other, "the peer answered on protocol \(reply.protocolID)"))
        }
        return IMFrame(IMOpcode(rawValue: reply.opcode), reply.payload)
    }

    public func send(_ opcode: IMOpcode, _ payload: [UInt8]) async throws(InteractionError) {
        do {
            try await exchange.send(.interactionModel, opcode: opcode.rawValue, payload: payload)
        } catch {
            throw InteractionError.exchangeFailed(ExchangeFailure(error))
        }
    }
}

extension ExchangeFailure {
    /// The kind of a messaging failure, keeping the error itself.
    public init(_ error: MessagingError) {
        let kind: Kind
        switch error {
        case .timeout: kind = .timeout
        case .noAcknowledgement: kind = .unreachable
        case .closedByPeer: kind = .closedByPeer
        case .closed, .unknownSession: kind = .closed
        case .cancelled: kind = .cancelled
        case .transport: kind = .network
        case .truncated, .unsupportedVersion, .reservedDestinationSize, .reservedSessionType, .authenticationFailed, .duplicate,
             .tooLarge, .invalidHeader:
            kind = .other
        }
        self.init(kind, error.description, underlying: error)
    }

    /// The messaging layer's error, when the exchange ran over MatterMessaging.
    public var messagingError: MessagingError? { underlying as? MessagingError }
}

extension InteractionClient {
    /// A client whose interactions each run on a new exchange of `session`.
    public static func over(_ manager: ExchangeManager, session: SessionHandle,
                            timeout: Duration = .seconds(30)) -> InteractionClient {
        InteractionClient { () async throws(InteractionError) -> any IMExchange in
            do throws(MessagingError) {
                return MessagingIMExchange(exchange: try await manager.newExchange(on: session), timeout: timeout)
            } catch {
                throw .exchangeFailed(ExchangeFailure(error))
            }
        }
    }
}

/// Holds the exchanges that interactions let go of while a task runs `run(_:)`, and closes them
/// (sending the acknowledgements they owe) when `closeAll()` is called: the hub answers its
/// client first and acknowledges the device's reply right after, instead of the other way round.
/// For one short interaction only (a command, a read): the peer retransmits what is not
/// acknowledged within its MRP interval.
public final class DeferredExchangeClose: Sendable {
    @TaskLocal static var current: DeferredExchangeClose?
    /// Nil once `closeAll` ran: a task that `body` started and that outlives it (it inherits
    /// the task local) then closes its exchanges itself.
    private let held = Mutex<[Exchange]?>([])

    public init() {}

    /// Runs `body` with this collector in place.
    public func run<R: Sendable>(_ body: () async -> R) async -> R {
        await Self.$current.withValue(self) { await body() }
    }

    /// False when it is too late to hold `exchange`.
    func hold(_ exchange: Exchange) -> Bool {
        held.withLock { h in
            guard h != nil else { return false }
            h!.append(exchange)
            return true
        }
    }

    public func closeAll() async {
        for e in held.withLock({ h in defer { h = nil }; return h ?? [] }) { await e.close() }
    }
}
