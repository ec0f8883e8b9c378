import MatterInteraction
import MatterMessaging

/// An Interaction Model exchange this node opened (subscription reports): IM messages out,
/// the subscriber's IM replies in.
struct MessagingIMExchange: IMExchange {
    let exchange: Exchange

    func request(_ opcode: IMOpcode, _ payload: [UInt8]) async throws -> IMFrame {
        try await exchange.send(.interactionModel, opcode: opcode.rawValue, payload: payload)
        let reply = try await exchange.receive(timeout: .seconds(10))
        guard reply.protocolID == .interactionModel else {
            throw InteractionError.exchangeFailed("a non-IM message arrived on the IM exchange")
        }
        return IMFrame(IMOpcode(reply.opcode), reply.payload)
    }

    func send(_ opcode: IMOpcode, _ payload: [UInt8]) async throws {
        try await exchange.send(.interactionModel, opcode: opcode.rawValue, payload: payload)
    }
}
