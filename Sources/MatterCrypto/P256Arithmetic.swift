internal import COpenSSL

/// A scalar modulo the P-256 group order n, as 32 big-endian bytes. Used by SPAKE2+.
package struct P256Scalar: Sendable, Hashable, CustomStringConvertible {
    package let bytes: [UInt8]

    /// A scalar from exactly 32 bytes that are already below n (zero allowed).
    package init(bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count == 32 else { throw CryptoError.length("P-256 scalar", is: bytes.count, expected: "32") }
        let reduced = try P256Scalar(reducing: bytes)
        guard reduced.bytes == bytes else {
            throw CryptoError(.invalidArgument, "P-256 scalar is not below the group order")
        }
        self.bytes = bytes
    }

    /// A big-endian integer of any length reduced mod n.
    package init(reducing input: [UInt8]) throws(CryptoError) {
        var out = [UInt8](repeating: 0, count: 32)
        let ok = input.withUnsafeBufferPointer { i in
            out.withUnsafeMutableBufferPointer { mh_p256_scalar_reduce(i.baseAddress, i.count, $0.baseAddress) }
        }
        guard ok == 1 else { throw CryptoError.backend("scalar reduction") }
        bytes = out
    }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// A uniformly random scalar in 1...n-1 by rejection sampling 32-byte draws from `random`.
    /// - Throws: `CryptoError.invalidState` if the source keeps producing out-of-range values
    ///   (a broken or exhausted test source), instead of looping forever.
    package static func random(using random: inout some RandomSource) throws(CryptoError) -> P256Scalar {
        for _ in 0..<64 {
            let candidate = random.bytes(32)
            if candidate.count == 32, candidate.withUnsafeBufferPointer({ mh_p256_scalar_is_valid($0.baseAddress) }) == 1 {
                return P256Scalar(unchecked: candidate)
            }
        }
        throw CryptoError(.invalidState, "random source produced no P-256 scalar in 1...n-1 after 64 draws")
    }

    /// `true` for 1...n-1.
    package var isNonZero: Bool { bytes.withUnsafeBufferPointer { mh_p256_scalar_is_valid($0.baseAddress) } == 1 }

    /// self · other mod n.
    package func multiplied(by other: P256Scalar) throws(CryptoError) -> P256Scalar {
        var out = [UInt8](repeating: 0, count: 32)
        let ok = bytes.withUnsafeBufferPointer { a in
            other.bytes.withUnsafeBufferPointer { b in
                out.withUnsafeMutableBufferPointer { mh_p256_scalar_mul(a.baseAddress, b.baseAddress, $0.baseAddress) }
            }
        }
        guard ok == 1 else { throw CryptoError.backend("scalar multiplication") }
        return P256Scalar(unchecked: out)
    }

    package var description: String { "P256Scalar(<redacted>)" }
}

/// A P-256 point other than the identity, held as its 65-byte uncompressed SEC1 form.
/// Operations whose result would be the identity throw `CryptoError.pointAtInfinity`.
package struct P256Point: Sendable, Hashable {
    package let x962: [UInt8]

    /// A point from SEC1 bytes (65 uncompressed or 33 compressed) that lie on the curve.
    /// - Throws: `CryptoError.invalidPoint`.
    package init(x962 bytes: [UInt8]) throws(CryptoError) {
        var out = [UInt8](repeating: 0, count: 65)
        let ok = bytes.withUnsafeBufferPointer { b in
            out.withUnsafeMutableBufferPointer { mh_p256_point_normalize(b.baseAddress, b.count, $0.baseAddress) }
        }
        guard ok == 1 else { throw CryptoError(.invalidPoint, "not a P-256 point on the curve (\(bytes.count) bytes)") }
        x962 = out
    }

    private init(unchecked bytes: [UInt8]) { x962 = bytes }

    /// `true` when `bytes` encode a point on the curve that is not the identity.
    package static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { mh_p256_point_is_valid($0.baseAddress, $0.count) } == 1
    }

    /// The standard base point G.
    package static let generator = P256Point(unchecked: [0x04] + Array(fromHex:
        "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
        + "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"))

    /// k·G.
    package static func baseMultiple(_ k: P256Scalar) throws(CryptoError) -> P256Point {
        try combine { out in k.bytes.withUnsafeBufferPointer { mh_p256_mul($0.baseAddress, nil, nil, out) } }
    }

    /// k·self.
    package func multiplied(by k: P256Scalar) throws(CryptoError) -> P256Point {
        try combine { out in
            x962.withUnsafeBufferPointer { p in
                k.bytes.withUnsafeBufferPointer { mh_p256_mul(nil, p.baseAddress, $0.baseAddress, out) }
            }
        }
    }

    /// g·G + k·self in one OpenSSL call.
    package func multiplied(by k: P256Scalar, plusBaseMultiple g: P256Scalar) throws(CryptoError) -> P256Point {
        try combine { out in
            x962.withUnsafeBufferPointer { p in
                k.bytes.withUnsafeBufferPointer { kb in
                    g.bytes.withUnsafeBufferPointer { mh_p256_mul($0.baseAddress, p.baseAddress, kb.baseAddress, out) }
                }
            }
        }
    }

    /// s1·p1 + s2·p2.
    package static func mulAdd(_ p1: P256Point, _ s1: P256Scalar, _ p2: P256Point, _ s2: P256Scalar) throws(CryptoError) -> P256Point {
        try p1.multiplied(by: s1).adding(p2.multiplied(by: s2))
    }

    /// self + other.
    package func adding(_ other: P256Point) throws(CryptoError) -> P256Point {
        try combine { out in
            x962.withUnsafeBufferPointer { a in
                other.x962.withUnsafeBufferPointer { mh_p256_add(a.baseAddress, $0.baseAddress, out) }
            }
        }
    }

    /// -self.
    package func negated() throws(CryptoError) -> P256Point {
        try combine { out in x962.withUnsafeBufferPointer { mh_p256_negate($0.baseAddress, out) } }
    }

    /// self - other.
    package func subtracting(_ other: P256Point) throws(CryptoError) -> P256Point {
        try adding(other.negated())
    }

    private static func combine(_ body: (UnsafeMutablePointer<UInt8>) -> Int32) throws(CryptoError) -> P256Point {
        var out = [UInt8](repeating: 0, count: 65)
        let result = out.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
        switch result {
        case 1: return P256Point(unchecked: out)
        case -2: throw CryptoError(.pointAtInfinity, "P-256 operation produced the point at infinity")
        default: throw CryptoError.backend("P-256 point arithmetic")
        }
    }

    private func combine(_ body: (UnsafeMutablePointer<UInt8>) -> Int32) throws(CryptoError) -> P256Point {
        try Self.combine(body)
    }
}

extension Array where Element == UInt8 {
    /// Bytes from a hex literal in the source; only for constants known to be well formed.
    init(fromHex hex: String) {
        var bytes: [UInt8] = []
        var iterator = hex.utf8.makeIterator()
        while let hi = iterator.next(), let lo = iterator.next() {
            bytes.append(UInt8(Self.nibble(hi) << 4 | Self.nibble(lo)))
        }
        self = bytes
    }

    private static func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x61...0x66: return c - 0x61 + 10
        case 0x41...0x46: return c - 0x41 + 10
        default: return 0
        }
    }
}
