import MatterCrypto
import MatterMessaging
import MatterSecureChannel
import Synchronization
import Testing
import TestSupport

/// PASE against captured real exchanges (matter.js <-> CHIP SDK), and our initiator against our
/// responder in-process, also under loss.
@Suite struct PASEVectorTests {
    @Test(arguments: TestVectors.vectors("pase_session.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let requestBytes = try #require(v.hex("pbkdf_param_request"))
        let responseBytes = try #require(v.hex("pbkdf_param_response"))
        // Our codecs read the real messages and write them back byte for byte.
        let request = try PBKDFParamRequest(decoding: requestBytes)
        let response = try PBKDFParamResponse(decoding: responseBytes)
        #expect(request.encoded() == requestBytes)
        #expect(response.encoded() == responseBytes)
        #expect(response.initiatorRandom == request.initiatorRandom)
        #expect(PASE.context(request: requestBytes, response: responseBytes) == v.hex("context_hash"))

        guard let y = v.hex("verifier_y"), let X = v.hex("pA_X") else { return }
        // The device side: from the commissioner's X, the verifier with the captured y answers
        // with the captured Y and cB.
        let passcode = try #require(v.int("passcode"))
        let salt = try #require(v.hex("salt"))
        let iterations = try #require(v.int("iterations"))
        #expect(response.pbkdfParameters?.salt == salt)
        #expect(response.pbkdfParameters.map { Int($0.iterations) } == iterations)
        let stored = try PASEVerifier(passcode: UInt32(passcode), salt: salt, iterations: iterations)
        #expect(stored.w0.bytes == v.hex("w0"))
        #expect(stored.L == v.hex("L"))
        var verifier = try Spake2pVerifier(context: PASE.context(request: requestBytes, response: responseBytes),
                                           verifier: stored, random: FixedRandomSource([y]))
        #expect(try verifier.computeY() == v.hex("expected_pB_Y"))
        let result = try verifier.finish(X: X)
        #expect(result.cB == v.hex("expected_cB"))
    }

    @Test func malformedHandshakeMessagesAreTypedErrors() throws {
        #expect(throws: SecureChannelError.self) { try PBKDFParamRequest(decoding: []) }
        #expect(throws: SecureChannelError.self) { try PBKDFParamRequest(decoding: [0x15, 0x18]) }
        // A 31-byte random is refused.
        let short = PBKDFParamRequest(initiatorRandom: Array(repeating: 1, count: 31), initiatorSessionID: 1,
                                      hasPBKDFParameters: false, initiatorSessionParameters: nil)
        #expect(throws: SecureChannelError.self) { try PBKDFParamRequest(decoding: short.encoded()) }
        var rng = SeededRandom(seed: 77)
        let seeds = TestVectors.vectors("pase_session.json").flatMap { [$0.hex("pbkdf_param_request"), $0.hex("pbkdf_param_response")] }
            .compactMap { $0 }
        try #require(!seeds.isEmpty)
        for i in 0..<5_000 {
            let input = Mutation.mutate(seeds[i % seeds.count], using: &rng)
            _ = try? PBKDFParamRequest(decoding: input)
            _ = try? PBKDFParamResponse(decoding: input)
        }
    }
}

@Suite struct PASEHandshakeTests {
    static let passcode: UInt32 = 20_202_021
    static let salt = Array("MatterHub PASE test salt".utf8)

    /// A device manager with a PASE responder, and a commissioner manager; optionally lossy.
    static func makeNodes(faults: FaultInjectingTransport.Faults = .init(), seed: UInt64 = 1,
                          mrp: SessionParameters = .matterHub) async throws
        -> (commissioner: ExchangeManager, device: ExchangeManager, deviceAddress: PeerAddress,
            outcomes: OutcomeLog) {
        let net = MemoryNetwork()
        let a = net.makeEndpoint(), b = net.makeEndpoint()
        let commissioner = ExchangeManager(transport: FaultInjectingTransport(wrapping: a, faults: faults, seed: seed))
        let device = ExchangeManager(transport: FaultInjectingTransport(wrapping: b, faults: faults, seed: ~seed))
        let verifier = try PASEVerifier(passcode: passcode, salt: salt, iterations: 1000)
        let outcomes = OutcomeLog()
        let responder = await PASEResponder(
            manager: device,
            configuration: .init(verifier: verifier, salt: salt, iterations: 1000, parameters: mrp)
        ) { outcome in
            let text: String = switch outcome {
            case .established: "established"
            case .failedAttempt: "failed"
            case .abandoned(let e): "abandoned: \(e)"
            }
            outcomes.append(text)
        }
        await device.setHandler(for: .secureChannel) { exchange, first in await responder.handle(exchange, first: first) }
        await commissioner.start()
        await device.start()
        return (commissioner, device, b.address, outcomes)
    }

    @Test func establishesASessionBothSidesCanUse() async throws {
        let (commissioner, device, address, outcomes) = try await Self.makeNodes()
        let session = try await PASEInitiator.establish(manager: commissioner, peer: address, passcode: Self.passcode)
        let ours = try #require(await commissioner.secureSession(session))
        #expect(await eventually(5) { await !device.secureSessions().isEmpty })
        let theirs = try #require(await device.secureSessions().first)
        #expect(ours.encryptKey == theirs.decryptKey && ours.decryptKey == theirs.encryptKey)
        #expect(ours.attestationChallenge == theirs.attestationChallenge)
        #expect(ours.peerSessionID == theirs.localSessionID && theirs.peerSessionID == ours.localSessionID)
        #expect(outcomes.all == ["established"])
        #expect("\(ours.encryptKey)" == "<redacted>")
        await commissioner.shutdown()
        await device.shutdown()
    }

    @Test func wrongPasscodeIsNamedAndReported() async throws {
        let (commissioner, device, address, outcomes) = try await Self.makeNodes()
        await #expect(throws: SecureChannelError.wrongPasscode) {
            _ = try await PASEInitiator.establish(manager: commissioner, peer: address, passcode: 12_121_212)
        }
        try await Task.sleep(for: .milliseconds(100))
        // The device heard the initiator's failure report and counted nothing established.
        #expect(await device.secureSessions().isEmpty)
        #expect(!outcomes.all.contains("established"))
        #expect(SecureChannelError.wrongPasscode.description.contains("passcode"))
        await commissioner.shutdown()
        await device.shutdown()
    }

    @Test func noDeviceTimesOutNamingPASE() async throws {
        let net = MemoryNetwork()
        let commissioner = ExchangeManager(transport: net.makeEndpoint())
        await commissioner.start()
        let nowhere = net.makeEndpoint()
        do {
            _ = try await PASEInitiator.establish(manager: commissioner, peer: nowhere.address, passcode: Self.passcode,
                                                  peerMRP: MRPParameters(idleInterval: 10, activeInterval: 10))
            Issue.record("PASE succeeded with nobody answering")
        } catch {
            #expect(error.description.contains("PASE PBKDFParamResponse"))
        }
        await commissioner.shutdown()
    }

    /// 100 seeded runs with 20 % loss in each direction: report how many complete.
    @Test func completesUnderTwentyPercentLoss() async throws {
        // 200 ms, as the exchange tests learned: five transmissions span about 3.5 s, so a stall of
        // the whole process (all handshakes in flight) does not exhaust them; at 40 ms it was 0.5 s.
        let fast = SessionParameters(idleInterval: 200, activeInterval: 200, activeThreshold: 4000)
        let runs = 100
        let completed = await successes(ofRuns: runs) { seed in
            guard let nodes = try? await Self.makeNodes(faults: .init(loss: 0.2), seed: seed, mrp: fast) else { return false }
            let ok = (try? await PASEInitiator.establish(
                manager: nodes.commissioner, peer: nodes.deviceAddress, passcode: Self.passcode,
                peerMRP: fast.mrp, parameters: fast, timeout: .seconds(10))) != nil
            await nodes.commissioner.shutdown()
            await nodes.device.shutdown()
            return ok
        }
        print("PASE under 20% loss each way: \(completed)/\(runs) handshakes completed")
        #expect(completed >= 95)
    }
}

/// What the responder reported, shared with the test.
final class OutcomeLog: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ s: String) { entries.withLock { $0.append(s) } }
    var all: [String] { entries.withLock { $0 } }
}
