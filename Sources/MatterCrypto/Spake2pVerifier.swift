/// The SPAKE2+ verifier (party B): in Matter PASE this is the device, which stores only the
/// PASE verifier (w0, L), never the passcode or w1.
///
/// A sans-I/O state machine: `computeY()` gives pB for Pake2; `finish(X:)` takes pA from Pake1
/// and returns cB for Pake2, the expected cA to check in Pake3, and Ke.
public struct Spake2pVerifier: Sendable {
    private enum State: Sendable {
        case initial
        case sentY(y: P256Scalar, Y: P256Point)
        case finished
    }

    private let context: [UInt8]
    private let idProver: [UInt8]
    private let idVerifier: [UInt8]
    private let w0: P256Scalar
    private let L: P256Point
    private var random: any RandomSource
    private var state = State.initial

    /// - Parameters:
    ///   - w0: 32-byte scalar below the group order; L: 65-byte point w1·G.
    ///   - random: entropy for the ephemeral scalar y; inject a fixed source only in tests.
    /// - Throws: `CryptoError.invalidArgument` / `.invalidPoint` for a malformed verifier.
    public init(context: [UInt8], idProver: [UInt8] = [], idVerifier: [UInt8] = [], w0: SecretBytes,
                L: [UInt8], random: any RandomSource = SystemRandomSource()) throws(CryptoError) {
        self.context = context
        self.idProver = idProver
        self.idVerifier = idVerifier
        self.w0 = try P256Scalar(bytes: w0.bytes)
        guard L.count == 65 else { throw CryptoError.length("SPAKE2+ L", is: L.count, expected: "65") }
        self.L = try P256Point(x962: L)
        self.random = random
    }

    /// A verifier from a stored PASE verifier.
    public init(context: [UInt8], idProver: [UInt8] = [], idVerifier: [UInt8] = [], verifier: PASEVerifier,
                random: any RandomSource = SystemRandomSource()) throws(CryptoError) {
        try self.init(context: context, idProver: idProver, idVerifier: idVerifier, w0: verifier.w0, L: verifier.L,
                      random: random)
    }

    /// Picks y and returns pB = Y = y·G + w0·N (65 bytes). Call once.
    public mutating func computeY() throws(CryptoError) -> [UInt8] {
        guard case .initial = state else { throw CryptoError(.invalidState, "SPAKE2+ verifier already sent Y") }
        let y = try P256Scalar.random(using: &random)
        let Y = try Spake2p.N.multiplied(by: w0, plusBaseMultiple: y)
        state = .sentY(y: y, Y: Y)
        return Y.x962
    }

    /// Takes pA = X and derives the keys: Z = y·(X - w0·M), V = y·L.
    /// - Throws: `CryptoError.invalidPoint` for an X that is not a curve point,
    ///   `.pointAtInfinity` for an X that cancels w0·M, `.invalidState` out of order.
    public mutating func finish(X peerX: [UInt8]) throws(CryptoError) -> Spake2pVerifierResult {
        guard case .sentY(let y, let Y) = state else {
            throw CryptoError(.invalidState, "SPAKE2+ verifier must compute Y before finishing")
        }
        state = .finished
        let X = try Spake2p.peerShare(peerX, name: "X")
        let unblinded = try X.subtracting(Spake2p.M.multiplied(by: w0))
        let Z = try unblinded.multiplied(by: y)
        let V = try L.multiplied(by: y)
        let keys = try Spake2p.keySchedule(context: context, idProver: idProver, idVerifier: idVerifier,
                                           X: X, Y: Y, Z: Z, V: V, w0: w0)
        return Spake2pVerifierResult(keys: keys)
    }
}

/// What the verifier learns at the end of SPAKE2+.
public struct Spake2pVerifierResult: Sendable {
    package let keys: Spake2p.Keys

    /// cB = HMAC(KcB, X), 32 bytes: send in Pake2.
    public var cB: [UInt8] { keys.cB }
    /// The cA the prover must send in Pake3.
    public var expectedCA: [UInt8] { keys.cA }
    /// Ke: the shared secret for the session-key HKDF. Use only after the peer's cA verified.
    public var Ke: SecretBytes { keys.Ke }

    /// `true` when the prover's `cA` matches (constant-time).
    public func isValidProverConfirmation(_ cA: [UInt8]) -> Bool { ConstantTime.equals(cA, keys.cA) }
}
