/// Bytes that must not be printed: keys, shared secrets, PAKE scalars.
///
/// `description`, `debugDescription` and reflection all show `<redacted>`. Equality runs in time
/// independent of where the first difference is.
public struct SecretBytes: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The secret itself, for use inside MatterHub only.
    package let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Number of bytes held.
    public var count: Int { bytes.count }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// Calls `body` with the secret bytes without copying them.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    public static func == (lhs: SecretBytes, rhs: SecretBytes) -> Bool {
        ConstantTime.equals(lhs.bytes, rhs.bytes)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}

/// Comparisons whose running time does not depend on the position of the first difference.
public enum ConstantTime {
    /// `true` when both byte strings are equal; only the lengths leak through timing.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for i in a.indices { diff |= a[i] ^ b[i] }
        return diff == 0
    }
}
