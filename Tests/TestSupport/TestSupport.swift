import Foundation

/// Helpers shared by the test targets: vector files, hex, seeded randomness.
public enum TestVectors {
    /// The project's `testvectors/` folder, found from this source file's path.
    public static let directory: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // Tests/TestSupport/TestSupport.swift
        return url.appendingPathComponent("testvectors")
    }()

    /// The `vectors` array of a vector file (path relative to `testvectors/`), as JSON objects.
    public static func load(_ file: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: directory.appendingPathComponent(file))
        let root = try JSONSerialization.jsonObject(with: quotingNonFiniteNumbers(data))
        if let dict = root as? [String: Any], let vectors = dict["vectors"] as? [[String: Any]] {
            return vectors
        }
        if let list = root as? [[String: Any]] { return list }
        throw VectorError.malformed(file)
    }

    /// The vectors of a file as `Vector` values, ready for parameterised tests.
    public static func vectors(_ file: String, where include: (Vector) -> Bool = { _ in true }) -> [Vector] {
        do {
            return try load(file).map(Vector.init).filter(include)
        } catch {
            return [Vector(["id": "load-failure:\(file)", "error": "\(error)"])]
        }
    }

    public enum VectorError: Error { case malformed(String) }

    /// The vector files are written by Python, which emits bare `Infinity`, `-Infinity` and `NaN`
    /// (not JSON). Outside strings these become the strings "Infinity", "-Infinity" and "NaN".
    static func quotingNonFiniteNumbers(_ data: Data) -> Data {
        var out = [UInt8]()
        out.reserveCapacity(data.count)
        let bytes = [UInt8](data)
        var i = 0, inString = false
        while i < bytes.count {
            let c = bytes[i]
            if inString {
                out.append(c)
                if c == UInt8(ascii: "\\"), i + 1 < bytes.count { out.append(bytes[i + 1]); i += 2; continue }
                if c == UInt8(ascii: "\"") { inString = false }
                i += 1
                continue
            }
            if c == UInt8(ascii: "\"") { inString = true }
            var matched = false
            for word in ["-Infinity", "Infinity", "NaN"] where bytes[i...].starts(with: word.utf8) {
                out += Array("\"\(word)\"".utf8)
                i += word.utf8.count
                matched = true
                break
            }
            if !matched { out.append(c); i += 1 }
        }
        return Data(out)
    }
}

/// One test vector: a JSON object with typed accessors. `CustomStringConvertible` gives the id,
/// so Swift Testing names each parameterised case after its vector.
public struct Vector: @unchecked Sendable, CustomStringConvertible {
    public let json: [String: Any]
    public init(_ json: [String: Any]) { self.json = json }

    public var id: String { json["id"] as? String ?? "?" }
    public var description: String { id }
    public var valid: Bool { json["valid"] as? Bool ?? true }
    public var loadError: String? { json["error"] as? String }

    public subscript(key: String) -> Any? { json[key] }
    public func string(_ key: String) -> String? { json[key] as? String }
    public func int(_ key: String) -> Int? { (json[key] as? NSNumber)?.intValue }
    public func uint64(_ key: String) -> UInt64? { (json[key] as? NSNumber)?.uint64Value }
    public func bool(_ key: String) -> Bool? { json[key] as? Bool }
    public func object(_ key: String) -> [String: Any]? { json[key] as? [String: Any] }
    public func hex(_ key: String) -> [UInt8]? { (json[key] as? String).flatMap(Hex.decode) }
}

public enum Hex {
    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8).filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: ":") }
        guard chars.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// A deterministic generator (SplitMix64) for seeded mutation and loss tests.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

public enum Mutation {
    /// A copy of `input` with random byte flips, truncation, insertion or deletion.
    public static func mutate(_ input: [UInt8], using rng: inout SeededRandom) -> [UInt8] {
        var out = input
        switch rng.next() % 4 {
        case 0 where !out.isEmpty:
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                out[Int(rng.next() % UInt64(out.count))] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
            }
        case 1 where !out.isEmpty:
            out = Array(out.prefix(Int(rng.next() % UInt64(out.count))))
        case 2:
            out.insert(UInt8(truncatingIfNeeded: rng.next()), at: Int(rng.next() % UInt64(out.count + 1)))
        default:
            if !out.isEmpty { out.remove(at: Int(rng.next() % UInt64(out.count))) }
        }
        return out
    }
}

/// A missing value in a test fixture.
public struct MissingValue: Error, CustomStringConvertible {
    public let what: String
    public var description: String { "missing \(what)" }
}

/// Unwraps inside expressions where nesting `#require` is not allowed.
public func unwrap<T>(_ value: T?, _ what: String = "value") throws -> T {
    guard let value else { throw MissingValue(what: what) }
    return value
}
