/// Writes JSON values as compact UTF-8 text (no spaces), the form the server sends.
///
/// Integers are written exactly with no fraction or exponent; doubles that are not finite
/// (which JSON cannot express) are written as `null`.
public enum JSONWriter {
    public static func encode(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out)
        return out
    }

    public static func string(_ value: JSONValue) -> String {
        String(decoding: encode(value), as: UTF8.self)
    }

    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let n): writeInteger(n, into: &out)
        case .uint(let n): writeInteger(n, into: &out)
        case .double(let d):
            if d.isFinite { out.append(contentsOf: d.description.utf8) } else { out.append(contentsOf: "null".utf8) }
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(member.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeInteger<T: BinaryInteger>(_ n: T, into out: inout [UInt8]) {
        if n == 0 { out.append(UInt8(ascii: "0")); return }
        // Digits of the magnitude, least significant first, without going through String.
        var digits: (UInt64, Bool) = n < 0 ? (UInt64(n.magnitude), true) : (UInt64(n), false)
        var buffer = [UInt8](repeating: 0, count: 20)
        var i = 20
        while digits.0 > 0 {
            i -= 1
            buffer[i] = UInt8(ascii: "0") + UInt8(digits.0 % 10)
            digits.0 /= 10
        }
        if digits.1 { out.append(UInt8(ascii: "-")) }
        out.append(contentsOf: buffer[i...])
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0..<0x20:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(b >> 4)], hexDigits[Int(b & 0xF)]])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of the value.
    public var description: String { JSONWriter.string(self) }
}
