/// The SPAKE2+ prover (party A): in Matter PASE this is the commissioner, which knows the
/// passcode and therefore w0 and w1.
///
/// A sans-I/O state machine: `computeX()` gives pA for Pake1; `finish(Y:)` takes pB from Pake2
/// and returns cA for Pake3, the expected cB to check in Pake2, and Ke for the session keys.
public struct Spake2pProver: Sendable {
    private enum State: Sendable {
        case initial
        case sentX(x: P256Scalar, X: P256Point)
        case finished
    }

    private let context: [UInt8]
    private let idProver: [UInt8]
    private let idVerifier: [UInt8]
    private let w0: P256Scalar
    private let w1: P256Scalar
    private var random: any RandomSource
    private var state = State.initial

    /// - Parameters:
    ///   - context: the SPAKE2+ context; in Matter PASE, SHA-256 of "CHIP PAKE V1 Commissioning"
    ///     || PBKDFParamRequest || PBKDFParamResponse.
    ///   - idProver, idVerifier: party identities; empty in Matter PASE.
    ///   - w0, w1: 32-byte scalars below the group order (see `PASEVerifier.derive`).
    ///   - random: entropy for the ephemeral scalar x; inject a fixed source only in tests.
    /// - Throws: `CryptoError.invalidArgument` for malformed w0/w1.
    public init(context: [UInt8], idProver: [UInt8] = [], idVerifier: [UInt8] = [], w0: SecretBytes,
                w1: SecretBytes, random: any RandomSource = SystemRandomSource()) throws(CryptoError) {
        self.context = context
        self.idProver = idProver
        self.idVerifier = idVerifier
        self.w0 = try P256Scalar(bytes: w0.bytes)
        self.w1 = try P256Scalar(bytes: w1.bytes)
        self.random = random
    }

    /// Picks x and returns pA = X = x·G + w0·M (65 bytes). Call once.
    public mutating func computeX() throws(CryptoError) -> [UInt8] {
        guard case .initial = state else { throw CryptoError(.invalidState, "SPAKE2+ prover already sent X") }
        let x = try P256Scalar.random(using: &random)
        let X = try Spake2p.M.multiplied(by: w0, plusBaseMultiple: x)
        state = .sentX(x: x, X: X)
        return X.x962
    }

    /// Takes pB = Y and derives the keys: Z = x·(Y - w0·N), V = w1·(Y - w0·N).
    /// - Throws: `CryptoError.invalidPoint` for a Y that is not a curve point,
    ///   `CryptoError.pointAtInfinity` for a Y that cancels w0·N, `.invalidState` out of order.
    public mutating func finish(Y peerY: [UInt8]) throws(CryptoError) -> Spake2pProverResult {
        guard case .sentX(let x, let X) = state else {
            throw CryptoError(.invalidState, "SPAKE2+ prover must compute X before finishing")
        }
        state = .finished
        let Y = try Spake2p.peerShare(peerY, name: "Y")
        let unblinded = try Y.subtracting(Spake2p.N.multiplied(by: w0))
        let Z = try unblinded.multiplied(by: x)
        let V = try unblinded.multiplied(by: w1)
        let keys = try Spake2p.keySchedule(context: context, idProver: idProver, idVerifier: idVerifier,
                                           X: X, Y: Y, Z: Z, V: V, w0: w0)
        return Spake2pProverResult(keys: keys)
    }
}

/// What the prover learns at the end of SPAKE2+.
public struct Spake2pProverResult: Sendable {
    package let keys: Spake2p.Keys

    /// cA = HMAC(KcA, Y), 32 bytes: send in Pake3.
    public var cA: [UInt8] { keys.cA }
    /// The cB the verifier must have sent in Pake2.
    public var expectedCB: [UInt8] { keys.cB }
    /// Ke: the shared secret for the session-key HKDF. Use only after the peer's cB verified.
    public var Ke: SecretBytes { keys.Ke }

    /// `true` when the verifier's `cB` matches (constant-time).
    public func isValidVerifierConfirmation(_ cB: [UInt8]) -> Bool { ConstantTime.equals(cB, keys.cB) }
}
