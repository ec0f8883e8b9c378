/// An `IMExchange` that hands every message straight to an `InteractionServer` in the same
/// process: for tests and for driving the virtual device without a network.
public actor LoopbackExchange: IMExchange {
    private var responder: ServerExchange
    private let clock: @Sendable () -> UInt64

    /// `clock` gives monotonic milliseconds (tests pass a manual clock).
    public init(server: InteractionServer, context: IMSessionContext, clock: @escaping @Sendable () -> UInt64) {
        responder = server.exchange(context: context)
        self.clock = clock
    }

    public func request(_ opcode: IMOpcode, _ payload: [UInt8]) async throws(InteractionError) -> IMFrame {
        var r = responder
        let reply = await r.receive(IMFrame(opcode, payload), now: clock())
        responder = r
        guard let reply else { throw InteractionError.exchangeFailed(ExchangeFailure(.closed, "the server ended the exchange without a reply")) }
        return reply
    }

    public func send(_ opcode: IMOpcode, _ payload: [UInt8]) async throws(InteractionError) {
        var r = responder
        let reply = await r.receive(IMFrame(opcode, payload), now: clock())
        responder = r
        if let reply { throw InteractionError.unexpectedMessage(expected: "no reply", received: reply.opcode) }
    }
}
