import MatterInteraction
import MatterMessaging

/// Answers the Interaction Model exchanges peers open, for any node that has an
/// ``InteractionServer``: the virtual device and the hub's own node.
public enum InteractionServing {
    /// The IM facts of the session a message came on; nil for an unsecured session (the IM never
    /// runs on one).
    public static func context(of session: SessionHandle, on manager: ExchangeManager) async -> IMSessionContext? {
        guard let s = await manager.secureSession(session) else { return nil }
        switch s.peer {
        case .pase:
            return IMSessionContext(authMode: .pase, sessionID: s.localSessionID)
        case .operational(let fabric, let node, let cats):
            return IMSessionContext(fabricIndex: fabric, peerNodeID: node, authMode: .case, caseAuthenticatedTags: cats,
                                    sessionID: s.localSessionID)
        }
    }

    /// Runs one exchange to its end: each request's reply is sent, and the next message waited
    /// for (30 s) until the interaction is finished. `beforeReply` may hold or stop a reply (the
    /// virtual device's faults): false ends the exchange without sending it. The exchange is not
    /// closed here.
    public static func serve(_ exchange: Exchange, first: ReceivedMessage, context: IMSessionContext, server: InteractionServer,
                             now: @Sendable () -> UInt64,
                             beforeReply: (IMFrame) async -> Bool = { _ in true }) async {
        var responder = server.exchange(context: context)
        var message = first
        while message.protocolID == .interactionModel {
            guard let reply = await responder.receive(IMFrame(IMOpcode(message.opcode), message.payload), now: now()),
                  await beforeReply(reply) else { return }
            do { try await exchange.send(.interactionModel, opcode: reply.opcode.rawValue, payload: reply.payload) } catch { return }
            if responder.isFinished { return }
            do { message = try await exchange.receive(timeout: .seconds(30)) } catch { return }
        }
    }
}
