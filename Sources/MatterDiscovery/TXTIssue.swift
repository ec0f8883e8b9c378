import MatterTLV

/// A TXT value that could not be read: the entry is kept (raw bytes stay in the record) and the
/// problem is reported next to it.
public struct TXTIssue: Sendable, Hashable, CustomStringConvertible {
    public let key: String
    public let reason: String
    public init(key: String, reason: String) {
        self.key = key
        self.reason = reason
    }
    public var description: String { "\(key): \(reason)" }
}

/// Reads typed values out of a TXT record and collects the malformed ones.
struct TXTReader {
    let record: TXTRecord
    var issues: [TXTIssue] = []

    init(_ record: TXTRecord) { self.record = record }

    /// A decimal unsigned integer no larger than `max`.
    mutating func decimal<T: FixedWidthInteger & UnsignedInteger>(_ key: String, as _: T.Type, max: T = .max) -> T? {
        guard let raw = present(key) else { return nil }
        guard let text = String(validating: raw, as: UTF8.self), !text.isEmpty,
              text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let v = T(text) else {
            return fail(key, "not a decimal number in 0...\(max)")
        }
        guard v <= max else { return fail(key, "\(v) is above the maximum \(max)") }
        return v
    }

    /// UTF-8 text of at most `maxBytes` bytes.
    mutating func text(_ key: String, maxBytes: Int) -> String? {
        guard let raw = present(key) else { return nil }
        guard let s = String(validating: raw, as: UTF8.self) else { return fail(key, "not UTF-8") }
        guard raw.count <= maxBytes else { return fail(key, "longer than \(maxBytes) bytes") }
        return s
    }

    /// Hexadecimal text (as in `RI`) decoded to bytes.
    mutating func hexText(_ key: String, maxBytes: Int) -> [UInt8]? {
        guard let raw = present(key) else { return nil }
        guard raw.count % 2 == 0, raw.count / 2 <= maxBytes, let bytes = Base16.decode(utf8: raw) else {
            return fail(key, "not an even-length hexadecimal string of at most \(maxBytes) bytes")
        }
        return bytes
    }

    /// A binary value of exactly `length` bytes (meshcop).
    mutating func binary(_ key: String, length: Int) -> [UInt8]? {
        guard let raw = present(key) else { return nil }
        guard raw.count == length else { return fail(key, "\(raw.count) bytes, expected \(length)") }
        return raw
    }

    /// A big-endian unsigned integer of exactly `MemoryLayout<T>.size` bytes (meshcop).
    mutating func bigEndian<T: FixedWidthInteger & UnsignedInteger>(_ key: String, as _: T.Type) -> T? {
        guard let raw = binary(key, length: MemoryLayout<T>.size) else { return nil }
        return raw.reduce(T(0)) { $0 << 8 | T($1) }
    }

    /// The value if the key is present with a value; a valueless key is reported.
    private mutating func present(_ key: String) -> [UInt8]? {
        guard let e = record.entry(key) else { return nil }
        guard let v = e.value else { return fail(key, "has no value") }
        return v
    }

    mutating func fail<T>(_ key: String, _ reason: String) -> T? {
        issues.append(TXTIssue(key: key, reason: reason))
        return nil
    }
}
