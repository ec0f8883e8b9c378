internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`).
public enum SecureRandom {
    /// `count` random bytes. Traps only if OpenSSL's DRBG itself is broken, which leaves no
    /// safe way to continue.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "negative byte count")
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBufferPointer { mh_random_bytes($0.baseAddress, $0.count) }
        precondition(ok == 1, "RAND_bytes failed: the system entropy source is unusable")
        return out
    }
}

/// A source of entropy that protocol state machines take as a parameter, so tests can inject
/// fixed or seeded bytes. Production code uses `SystemRandomSource`.
public protocol RandomSource: Sendable {
    /// The next `count` bytes.
    mutating func bytes(_ count: Int) -> [UInt8]
}

/// Entropy from `SecureRandom` (OpenSSL's DRBG).
public struct SystemRandomSource: RandomSource {
    public init() {}
    public mutating func bytes(_ count: Int) -> [UInt8] { SecureRandom.bytes(count) }
}

/// Entropy from any `RandomNumberGenerator`, e.g. a seeded generator in tests. Never use it
/// with a non-cryptographic generator outside tests.
public struct GeneratorRandomSource<Generator: RandomNumberGenerator & Sendable>: RandomSource {
    public var generator: Generator
    public init(_ generator: Generator) { self.generator = generator }
    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

/// Replays fixed byte strings in order, one per request, then falls back to zeros; for
/// reproducing published protocol vectors (e.g. a given SPAKE2+ `x`).
public struct FixedRandomSource: RandomSource {
    private var queue: [[UInt8]]
    public init(_ outputs: [[UInt8]]) { queue = outputs }
    public mutating func bytes(_ count: Int) -> [UInt8] {
        guard !queue.isEmpty else { return [UInt8](repeating: 0, count: count) }
        let next = queue.removeFirst()
        return Array((next + [UInt8](repeating: 0, count: max(0, count - next.count))).prefix(count))
    }
}
