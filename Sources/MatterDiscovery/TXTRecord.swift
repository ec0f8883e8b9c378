/// A DNS-SD TXT record (RFC 6763 section 6): an ordered list of `key[=value]` strings. Values are
/// bytes (`_meshcop._udp` carries binary values); keys compare case-insensitively and only the
/// first occurrence of a key counts.
public struct TXTRecord: Sendable, Hashable {
    /// One `key[=value]` string. `value` is nil for a boolean attribute written without `=`.
    public struct Entry: Sendable, Hashable {
        public let key: String
        public let value: [UInt8]?
        public init(key: String, value: [UInt8]?) {
            self.key = key
            self.value = value
        }
    }

    public private(set) var entries: [Entry]

    public init(_ entries: [Entry] = []) { self.entries = entries }

    /// Builds a record from string values, in the order given.
    public init(_ pairs: KeyValuePairs<String, String>) {
        entries = pairs.map { Entry(key: $0.key, value: Array($0.value.utf8)) }
    }

    /// Parses TXT RDATA: length-prefixed strings. Empty strings and strings starting with `=`
    /// are skipped (RFC 6763 6.4); a length running past the end keeps what fits.
    public init(wire: [UInt8]) {
        var out: [Entry] = []
        var seen: Set<String> = []
        var i = 0
        while i < wire.count {
            let length = Int(wire[i])
            i += 1
            let end = min(i + length, wire.count)
            let item = wire[i..<end]
            i = end
            guard let first = item.first, first != UInt8(ascii: "=") else { continue }
            let eq = item.firstIndex(of: UInt8(ascii: "="))
            let keyBytes = item[item.startIndex..<(eq ?? item.endIndex)]
            let key = String(decoding: keyBytes, as: UTF8.self)
            guard seen.insert(key.lowercased()).inserted else { continue }
            out.append(Entry(key: key, value: eq.map { Array(item[item.index(after: $0)...]) }))
        }
        entries = out
    }

    /// The record as TXT RDATA.
    public var wire: [UInt8] {
        var out: [UInt8] = []
        for item in items {
            out.append(UInt8(min(item.count, 255)))
            out.append(contentsOf: item.prefix(255))
        }
        return out
    }

    /// Each entry as the raw `key=value` bytes that go into one TXT string.
    public var items: [[UInt8]] {
        entries.map { e in
            var b = Array(e.key.utf8)
            if let v = e.value { b.append(UInt8(ascii: "=")); b.append(contentsOf: v) }
            return b
        }
    }

    /// The value of `key` (case-insensitive); nil when absent or valueless.
    public subscript(key: String) -> [UInt8]? {
        entry(key)?.value
    }

    /// The entry for `key` (case-insensitive).
    public func entry(_ key: String) -> Entry? {
        let k = key.lowercased()
        return entries.first { $0.key.lowercased() == k }
    }

    /// The value of `key` as UTF-8 text, if it is valid UTF-8.
    public func string(_ key: String) -> String? {
        self[key].flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// Sets or replaces `key`.
    public mutating func set(_ key: String, _ value: [UInt8]?) {
        let k = key.lowercased()
        if let i = entries.firstIndex(where: { $0.key.lowercased() == k }) {
            entries[i] = Entry(key: key, value: value)
        } else {
            entries.append(Entry(key: key, value: value))
        }
    }

    public mutating func set(_ key: String, _ value: String) { set(key, Array(value.utf8)) }
}
