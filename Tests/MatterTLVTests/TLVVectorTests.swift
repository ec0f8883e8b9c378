import Foundation
import MatterTLV
import Testing
import TestSupport

/// The SDK's TLV vectors: every valid encoding decodes to the independent decoder's view and,
/// where the SDK writer would produce it, re-encodes to the same bytes; invalid ones are rejected.
@Suite struct TLVVectorTests {
    @Test(arguments: TestVectors.vectors("tlv.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let bytes = try #require(v.hex("encoding"))
        guard v.valid else {
            #expect(throws: TLVError.self) { try TLVDecoder.decode(bytes) }
            return
        }
        let element = try TLVDecoder.decode(bytes)
        if let expected = v["decoded"] {
            #expect(JSONView.matches(element, expected), "decoded tree differs from the vector's view")
        }
        if v.string("direction") != "decode_only" {
            #expect(Hex.encode(TLVWriter.encode(element)) == Hex.encode(bytes))
        }
    }
}

/// Compares an element with the vector file's JSON view: {"tag": null | [kind, n...], "type", "value"}.
enum JSONView {
    static func matches(_ e: TLVElement, _ json: Any) -> Bool {
        guard let obj = json as? [String: Any], let type = obj["type"] as? String else { return false }
        guard tagMatches(e.tag, obj["tag"]) else { return false }
        let value = obj["value"]
        switch (e.value, type) {
        case (.bool(let b), "bool"): return (value as? Bool) == b
        case (.signed(let n), "int"): return (value as? NSNumber)?.int64Value == n
        case (.unsigned(let n), "uint"): return (value as? NSNumber)?.uint64Value == n
        case (.float(let f), "float"): return numberMatches(Double(f), value)
        case (.double(let d), "double"): return numberMatches(d, value)
        case (.utf8(let s), "utf8"): return (value as? String) == s
        case (.bytes(let b), "bytes"): return (value as? String) == Hex.encode(b)
        case (.null, "null"): return value == nil || value is NSNull
        case (.container(let kind, let members), _):
            let expectedKind: TLVContainerKind? = ["struct": .structure, "array": .array, "list": .list][type]
            guard kind == expectedKind, let list = value as? [Any], list.count == members.count else { return false }
            return zip(members, list).allSatisfy { matches($0, $1) }
        default: return false
        }
    }

    static func numberMatches(_ d: Double, _ value: Any?) -> Bool {
        if let s = value as? String { return Double(s).map { $0 == d || ($0.isNaN && d.isNaN) } ?? false }
        guard let n = value as? NSNumber else { return false }
        return n.doubleValue == d || (n.doubleValue.isNaN && d.isNaN)
    }

    static func tagMatches(_ tag: TLVTag, _ json: Any?) -> Bool {
        guard let parts = json as? [Any] else { return tag == .anonymous }
        let kind = parts.first as? String
        let n = parts.dropFirst().map { ($0 as? NSNumber)?.uint64Value ?? .max }
        switch (tag, kind) {
        case (.context(let t), "ctx"): return n == [UInt64(t)]
        case (.commonProfile(let t), "common2"), (.commonProfile(let t), "common4"),
             (.implicitProfile(let t), "implicit2"), (.implicitProfile(let t), "implicit4"):
            guard n == [UInt64(t)] else { return false }
            let short = t <= UInt16.max
            return kind!.hasSuffix("2") == short || kind!.hasSuffix("4") == !short
                && (tag.isCommon == kind!.hasPrefix("common"))
        case (.fullyQualified(let v, let p, let t), "full6"), (.fullyQualified(let v, let p, let t), "full8"):
            return n == [UInt64(v), UInt64(p), UInt64(t)]
        default: return false
        }
    }
}

extension TLVTag {
    var isCommon: Bool { if case .commonProfile = self { return true } else { return false } }
}
