/// The subscriber's side of reports the publisher sends on exchanges it opens (Matter Core
/// 8.5.2): reassembles chunks, answers each with StatusResponse, and rejects reports for
/// subscriptions it does not know with InvalidSubscription.
public struct SubscriptionReportReceiver: Sendable {
    public private(set) var knownSubscriptions: Set<UInt32>
    private var assembler = ReportAssembler()

    public init(knownSubscriptions: Set<UInt32>) {
        self.knownSubscriptions = knownSubscriptions
    }

    public mutating func add(_ id: UInt32) { knownSubscriptions.insert(id) }
    public mutating func remove(_ id: UInt32) { knownSubscriptions.remove(id) }

    /// Handles one received message; returns the reply to send and, when the last chunk has
    /// arrived, the complete report.
    public mutating func receive(_ frame: IMFrame) -> (reply: IMFrame?, report: AssembledReport?) {
        guard frame.opcode == .reportData, let message = try? ReportDataMessage(payload: frame.payload) else {
            assembler = ReportAssembler()
            return (IMFrame(StatusResponseMessage(status: .invalidAction)), nil)
        }
        guard let id = message.subscriptionID, knownSubscriptions.contains(id) else {
            assembler = ReportAssembler()
            return (IMFrame(StatusResponseMessage(status: .invalidSubscription)), nil)
        }
        do {
            switch try assembler.receive(message) {
            case .sendStatusAndContinue(let s): return (IMFrame(s), nil)
            case .complete(let report, let reply): return (reply.map { IMFrame($0) }, report)
            }
        } catch {
            assembler = ReportAssembler()
            return (IMFrame(StatusResponseMessage(status: .invalidAction)), nil)
        }
    }
}
