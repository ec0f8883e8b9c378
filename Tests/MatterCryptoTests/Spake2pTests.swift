import MatterCrypto
import Testing
import TestSupport

@Suite struct Spake2pTests {
    @Test(arguments: TestVectors.vectors("spake2p.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        switch v.string("kind") {
        case "protocol": try protocolRun(v)
        case "scalar_mul_mod_n":
            let a = try P256Scalar(reducing: #require(v.bytes("fe1")))
            let b = try P256Scalar(reducing: #require(v.bytes("fe2")))
            #expect((try a.multiplied(by: b).bytes == v.bytes("fe_out")) == v.valid)
        case "scalar_load_reduce_mod_n":
            #expect((try P256Scalar(reducing: #require(v.bytes("fe_in"))).bytes == v.bytes("fe_out")) == v.valid)
        case "point_mul":
            let point = try P256Point(x962: #require(v.bytes("point")))
            let scalar = try P256Scalar(reducing: #require(v.bytes("scalar")))
            #expect((try point.multiplied(by: scalar).x962 == v.bytes("out_point")) == v.valid)
        case "point_mul_add":
            let sum = try P256Point.mulAdd(P256Point(x962: #require(v.bytes("point1"))),
                                           P256Scalar(reducing: #require(v.bytes("scalar1"))),
                                           P256Point(x962: #require(v.bytes("point2"))),
                                           P256Scalar(reducing: #require(v.bytes("scalar2"))))
            #expect((sum.x962 == v.bytes("out_point")) == v.valid)
        case "point_is_valid":
            let bytes = try #require(v.bytes("point"))
            #expect(P256Point.isValid(bytes) == v.valid)
            if !v.valid {
                // A share that is not on the curve is refused by both roles.
                #expect(throws: CryptoError.self) { try P256Point(x962: bytes) }
                var prover = try Self.prover(password: 1)
                _ = try prover.computeX()
                #expect(throws: CryptoError.self) { try prover.finish(Y: bytes) }
            }
        case "point_load_write":
            let bytes = try #require(v.bytes("point"))
            #expect((try? P256Point(x962: bytes).x962 == bytes) == v.valid)
        case "hmac_sha256":
            let mac = HMACSHA256.authenticate(key: try #require(v.bytes("key")), message: try #require(v.bytes("input")))
            #expect((mac == v.bytes("output")) == v.valid)
        default:
            Issue.record("unknown spake2p vector kind \(v.string("kind") ?? "nil")")
        }
    }

    /// Runs both roles with the published ephemeral scalars and compares every intermediate.
    private func protocolRun(_ v: Vector) throws {
        let context = try #require(v.bytes("context"))
        let idProver = try #require(v.bytes("idProver")), idVerifier = try #require(v.bytes("idVerifier"))
        let w0 = SecretBytes(try #require(v.bytes("w0"))), w1 = SecretBytes(try #require(v.bytes("w1")))
        let L = try #require(v.bytes("L")), X = try #require(v.bytes("X")), Y = try #require(v.bytes("Y"))

        #expect(try P256Point.baseMultiple(P256Scalar(bytes: w1.bytes)).x962 == L)
        var prover = try Spake2pProver(context: context, idProver: idProver, idVerifier: idVerifier, w0: w0, w1: w1,
                                       random: FixedRandomSource([try #require(v.bytes("x"))]))
        var verifier = try Spake2pVerifier(context: context, idProver: idProver, idVerifier: idVerifier, w0: w0, L: L,
                                           random: FixedRandomSource([try #require(v.bytes("y"))]))
        #expect(try prover.computeX() == X)
        #expect(try verifier.computeY() == Y)
        let a = try prover.finish(Y: Y), b = try verifier.finish(X: X)
        for keys in [a.keys, b.keys] {
            #expect(keys.Z == v.bytes("Z"))
            #expect(keys.V == v.bytes("V"))
            #expect(keys.Ka.bytes == v.bytes("Ka"))
            #expect(keys.Ke.bytes == v.bytes("Ke"))
            #expect(keys.KcA.bytes == v.bytes("KcA"))
            #expect(keys.KcB.bytes == v.bytes("KcB"))
        }
        #expect(a.cA == v.bytes("MAC_KcA"))
        #expect(b.cB == v.bytes("MAC_KcB"))
        #expect(a.isValidVerifierConfirmation(b.cB))
        #expect(b.isValidProverConfirmation(a.cA))
        #expect(a.Ke == b.Ke)
    }

    @Test func constantsMatchTheCompressedFormsOfTheDraft() throws {
        #expect(try P256Point(x962: Hex.decode("02886e2f97ace46e55ba9dd7242579f2993b64e16ef3dcab95afd497333d8fa12f")!) == Spake2p.M)
        #expect(try P256Point(x962: Hex.decode("03d8bbd6c639c62937b04d997f38c3770719c629d7014d49a24b4f98baa1292b49")!) == Spake2p.N)
    }

    static func prover(password: UInt32, seed: UInt64 = 1) throws -> Spake2pProver {
        let (w0, w1, _) = try PASEVerifier.derive(passcode: password, salt: Array("SPAKE2P Key Salt".utf8), iterations: 1000)
        return try Spake2pProver(context: SHA256.hash(Array("test context".utf8)), w0: w0, w1: w1,
                                 random: GeneratorRandomSource(SeededRandom(seed: seed)))
    }

    static func verifier(password: UInt32) throws -> Spake2pVerifier {
        let verifier = try PASEVerifier(passcode: password, salt: Array("SPAKE2P Key Salt".utf8), iterations: 1000)
        return try Spake2pVerifier(context: SHA256.hash(Array("test context".utf8)), verifier: verifier)
    }

    @Test func proverAndVerifierInProcessAgree() throws {
        var prover = try Self.prover(password: 20202021), verifier = try Self.verifier(password: 20202021)
        let X = try prover.computeX(), Y = try verifier.computeY()
        let a = try prover.finish(Y: Y), b = try verifier.finish(X: X)
        #expect(a.isValidVerifierConfirmation(b.cB))
        #expect(b.isValidProverConfirmation(a.cA))
        #expect(a.Ke == b.Ke)
        #expect(a.Ke.count == 16)
    }

    @Test func wrongPasscodeFailsConfirmation() throws {
        var prover = try Self.prover(password: 20202021), verifier = try Self.verifier(password: 20202022)
        let X = try prover.computeX(), Y = try verifier.computeY()
        let a = try prover.finish(Y: Y), b = try verifier.finish(X: X)
        #expect(!a.isValidVerifierConfirmation(b.cB))
        #expect(!b.isValidProverConfirmation(a.cA))
        #expect(a.Ke != b.Ke)
    }

    @Test func stepsOutOfOrderAreRefused() throws {
        var prover = try Self.prover(password: 1)
        #expect(throws: CryptoError.self) { try prover.finish(Y: Spake2p.N.x962) }
        var verifier = try Self.verifier(password: 1)
        #expect(throws: CryptoError.self) { try verifier.finish(X: Spake2p.M.x962) }
        _ = try verifier.computeY()
        #expect(throws: CryptoError.self) { try verifier.computeY() }
    }

    @Test func degenerateSharesAreRefused() throws {
        // Y = w0·N makes Y - w0·N the identity; a compressed or truncated share is malformed.
        let (w0, _, _) = try PASEVerifier.derive(passcode: 1, salt: Array("SPAKE2P Key Salt".utf8), iterations: 1000)
        let cancelling = try Spake2p.N.multiplied(by: P256Scalar(bytes: w0.bytes)).x962
        for share in [cancelling, Array(Spake2p.N.x962.prefix(33)), [], [4]] {
            var prover = try Self.prover(password: 1)
            _ = try prover.computeX()
            #expect(throws: CryptoError.self) { try prover.finish(Y: share) }
        }
    }

    @Test func exhaustedEntropyThrowsInsteadOfLooping() throws {
        let (w0, w1, _) = try PASEVerifier.derive(passcode: 1, salt: Array("SPAKE2P Key Salt".utf8), iterations: 1000)
        var prover = try Spake2pProver(context: [], w0: w0, w1: w1, random: FixedRandomSource([]))
        #expect(throws: CryptoError.self) { try prover.computeX() }
    }
}

@Suite struct PASEVerifierTests {
    @Test(arguments: TestVectors.vectors("pase_verifier.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let passcode = UInt32(try #require(v.int("passcode")))
        let salt = try #require(v.bytes("salt"))
        let iterations = try #require(v.int("iterations"))
        let serialized = try #require(v.bytes("verifier_serialized"))
        // The published bytes are a correct computation even when the parameters are out of range.
        let raw = try PASEVerifier.deriveUnchecked(passcode: passcode, salt: salt, iterations: iterations)
        #expect(raw.w0.bytes + raw.L == serialized)
        if v.valid {
            let verifier = try PASEVerifier(passcode: passcode, salt: salt, iterations: iterations)
            #expect(verifier.serialized.bytes == serialized)
            #expect(try PASEVerifier(serialized: serialized) == verifier)
            if let w0 = v.bytes("w0") { #expect(verifier.w0.bytes == w0) }
            if let L = v.bytes("L") { #expect(verifier.L == L) }
        } else {
            #expect(v.expectedError != nil)
            do {
                _ = try PASEVerifier.derive(passcode: passcode, salt: salt, iterations: iterations)
                Issue.record("out-of-range PAKE parameters accepted")
            } catch {  // a CryptoError: the API throws only that
                #expect(error.code == .invalidPAKEParameters)
            }
        }
    }

    @Test func passcodeMustFitIn27Bits() {
        let salt = [UInt8](repeating: 1, count: 16)
        #expect(throws: CryptoError.self) { try PASEVerifier.derive(passcode: 1 << 27, salt: salt, iterations: 1000) }
        #expect(throws: Never.self) { try PASEVerifier.derive(passcode: (1 << 27) - 1, salt: salt, iterations: 1000) }
    }

    @Test func malformedSerializedFormsAreRejected() throws {
        let good = try PASEVerifier(passcode: 20202021, salt: [UInt8](repeating: 1, count: 16), iterations: 1000).serialized.bytes
        var offCurve = good
        offCurve[96] ^= 1
        let aboveOrder = [UInt8](repeating: 0xFF, count: 32) + good.suffix(65)
        for bytes in [Array(good.prefix(96)), good + [0], offCurve, aboveOrder, []] {
            #expect(throws: CryptoError.self) { try PASEVerifier(serialized: bytes) }
        }
    }
}

/// The device (verifier) side of real PASE exchanges captured by matter.js against the C++ SDK:
/// from the passcode and the commissioner's pA, our verifier must produce the same pB and cB.
@Suite struct PASESessionTraceTests {
    private func number(_ v: Vector, _ key: String) -> Int? { v.int(key) ?? v.string(key).flatMap { Int($0) } }

    @Test(arguments: TestVectors.vectors("pase_session.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let context = try #require(v.bytes("context_hash"))
        if let request = v.bytes("pbkdf_param_request"), let response = v.bytes("pbkdf_param_response") {
            let prefix = Array((v.string("context_prefix_ascii") ?? "CHIP PAKE V1 Commissioning").utf8)
            #expect(SHA256.hash(prefix + request + response) == context)
        }
        guard let passcode = number(v, "passcode") else { return }  // a context-only vector
        let iterations = try #require(number(v, "iterations"))
        let salt = try #require(v.bytes("salt"))
        let verifier = try PASEVerifier(passcode: UInt32(passcode), salt: salt, iterations: iterations)
        #expect(verifier.w0.bytes == v.bytes("w0"))
        #expect(verifier.L == v.bytes("L"))

        var device = try Spake2pVerifier(context: context, verifier: verifier,
                                         random: FixedRandomSource([try #require(v.bytes("verifier_y"))]))
        let Y = try device.computeY()
        let result = try device.finish(X: try #require(v.bytes("pA_X")))
        #expect((Y == v.bytes("expected_pB_Y") && result.cB == v.bytes("expected_cB")) == v.valid)
    }
}
