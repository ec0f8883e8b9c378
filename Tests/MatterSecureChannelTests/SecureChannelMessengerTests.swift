import MatterMessaging
@testable import MatterSecureChannel
import Testing

/// The messenger every handshake role speaks through, against a scripted peer over the in-memory
/// network: what each answer of the peer becomes, and what the messenger tells the peer.
@Suite struct SecureChannelMessengerTests {
    /// Our messenger on an exchange we started, and the peer's side of that exchange.
    struct Pair {
        let ours: SecureChannelMessenger
        let peer: Exchange
        let managers: [ExchangeManager]

        /// The peer answers with a message of the Secure Channel protocol.
        func peerSends(_ opcode: SecureChannelOpcode, _ payload: [UInt8]) async throws {
            try await peer.send(.secureChannel, opcode: opcode.rawValue, payload: payload)
        }

        func shutdown() async {
            for m in managers { await m.shutdown() }
        }
    }

    static func pair(timeout: Duration = .seconds(5)) async throws -> Pair {
        let net = MemoryNetwork()
        let ourEndpoint = net.makeEndpoint(), peerEndpoint = net.makeEndpoint()
        let ours = ExchangeManager(transport: ourEndpoint), peer = ExchangeManager(transport: peerEndpoint)
        await ours.start()
        await peer.start()
        let (exchanges, arrived) = AsyncStream.makeStream(of: Exchange.self)
        await peer.setHandler(for: .secureChannel) { exchange, _ in arrived.yield(exchange) }
        let session = await ours.newUnsecuredSession(to: peerEndpoint.address)
        let messenger = SecureChannelMessenger(try await ours.newExchange(on: session), timeout: timeout)
        try await messenger.send(.pbkdfParamRequest, [0x15, 0x18], step: "PASE PBKDFParamRequest")
        var iterator = exchanges.makeAsyncIterator()
        let peerExchange = try #require(await iterator.next())
        return Pair(ours: messenger, peer: peerExchange, managers: [ours, peer])
    }

    static func report(_ general: StatusReport.GeneralCode, _ code: UInt16) -> StatusReport {
        StatusReport(generalCode: general, protocolID: .secureChannel, protocolCode: code)
    }

    /// What the peer sends instead of PBKDFParamResponse, and the error that becomes.
    static let refusals: [(opcode: SecureChannelOpcode, payload: [UInt8], error: SecureChannelError)] = [
        (.statusReport, report(.failure, StatusReport.SecureChannelCode.noSharedTrustRoots).encoded(), .noSharedTrustRoots),
        (.statusReport, report(.busy, StatusReport.SecureChannelCode.busy).encoded(),
         .peerReportedFailure(step: "PASE PBKDFParamResponse", report: report(.busy, StatusReport.SecureChannelCode.busy))),
        // A report that does not decode is still a refusal, of an unnamed kind.
        (.statusReport, [0x01, 0x00],
         .peerReportedFailure(step: "PASE PBKDFParamResponse", report: report(.failure, 0xFFFF))),
        (.pake2, [0x15, 0x18], .unexpectedMessage(step: "PASE PBKDFParamResponse", opcode: SecureChannelOpcode.pake2.rawValue)),
    ]

    @Test(arguments: refusals)
    func aRefusalInsteadOfTheExpectedMessageIsTyped(_ opcode: SecureChannelOpcode, _ payload: [UInt8],
                                                     _ expected: SecureChannelError) async throws {
        let pair = try await Self.pair()
        try await pair.peerSends(opcode, payload)
        await #expect(throws: expected) { _ = try await pair.ours.expect(.pbkdfParamResponse, step: "PASE PBKDFParamResponse") }
        await pair.shutdown()
    }

    @Test func theExpectedMessageIsReturned() async throws {
        let pair = try await Self.pair()
        try await pair.peerSends(.sigma2Resume, [0x15, 0x24, 0x01, 0x07, 0x18])
        let message = try await pair.ours.expect(oneOf: [.sigma2, .sigma2Resume], step: "CASE Sigma2")
        #expect(message.opcode == SecureChannelOpcode.sigma2Resume.rawValue && message.payload == [0x15, 0x24, 0x01, 0x07, 0x18])
        await pair.shutdown()
    }

    @Test func silenceIsNoResponseNamingTheStep() async throws {
        let pair = try await Self.pair(timeout: .milliseconds(100))
        await #expect(throws: SecureChannelError.noResponse(step: "PASE Pake2", underlying: .timeout(waitedMilliseconds: 100))) {
            _ = try await pair.ours.expect(.pake2, step: "PASE Pake2")
        }
        await pair.shutdown()
    }

    @Test func aCancelledWaitIsCancelledNotSilence() async throws {
        let pair = try await Self.pair()
        let wait = Task { try await pair.ours.expect(.pake2, step: "PASE Pake2") }
        wait.cancel()
        await #expect(throws: SecureChannelError.cancelled(step: "PASE Pake2")) { _ = try await wait.value }
        await pair.shutdown()
    }

    @Test func theClosingStatusReport() async throws {
        let pair = try await Self.pair()
        try await pair.peerSends(.statusReport, Self.report(.success, 0).encoded())
        try await pair.ours.expectSuccess(step: "CASE Sigma3")

        let invalid = Self.report(.failure, StatusReport.SecureChannelCode.invalidParameter)
        try await pair.peerSends(.statusReport, invalid.encoded())
        await #expect(throws: SecureChannelError.peerReportedFailure(step: "CASE Sigma3", report: invalid)) {
            try await pair.ours.expectSuccess(step: "CASE Sigma3")
        }

        try await pair.peerSends(.sigma2, [0x15, 0x18])
        await #expect(throws: SecureChannelError.unexpectedMessage(step: "CASE Sigma3", opcode: SecureChannelOpcode.sigma2.rawValue)) {
            try await pair.ours.expectSuccess(step: "CASE Sigma3")
        }
        await pair.shutdown()
    }

    @Test func failAndSucceedTellThePeer() async throws {
        let pair = try await Self.pair()
        let error = await pair.ours.fail(StatusReport.SecureChannelCode.invalidParameter, .wrongPasscode)
        #expect(error == .wrongPasscode)
        await pair.ours.succeed()
        var reports: [StatusReport] = []
        for _ in 0..<2 {
            let m = try await pair.peer.receive(timeout: .seconds(5))
            #expect(m.isStatusReport)
            reports.append(try StatusReport.decode(m.payload))
        }
        #expect(reports == [Self.report(.failure, StatusReport.SecureChannelCode.invalidParameter),
                            Self.report(.success, StatusReport.SecureChannelCode.sessionEstablishmentSuccess)])
        await pair.shutdown()
    }
}
