import Foundation
import MatterSetupPayload
import MatterTLV
import Testing
import TestSupport

/// The SDK's onboarding payload vectors, decided by each vector's `kind` and `valid` fields.
@Suite struct SetupPayloadVectorTests {
    @Test(arguments: TestVectors.vectors("setup_payload.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        switch v.string("kind") {
        case "qr": try qr(v)
        case "qr_extract_payload":
            #expect(QRCode.extractPayload(try #require(v.string("input"))) == v.string("expected_payload"))
        case "manual": try manual(v)
        case "manual_generate": try manualGenerate(v)
        case "passcode":
            let passcode = try #require(v.uint64("input"))
            #expect(passcode <= UInt32.max)
            #expect(Passcode.isValid(UInt32(passcode)) == v.valid)
        default:
            Issue.record("unknown kind \(v.string("kind") ?? "nil") in \(v.id)")
        }
    }

    func qr(_ v: Vector) throws {
        let input = try #require(v.string("input"))
        guard v.valid else {
            #expect(throws: SetupPayloadError.self) { try SetupPayload.parse(input) }
            return
        }
        let payloads = try SetupPayload.parse(input)
        let single = v.object("expected")
        let expected: [[String: Any]] = (v["expected"] as? [[String: Any]]) ?? (single.map { [$0] } ?? [])
        #expect(!expected.isEmpty)
        #expect(payloads.count == expected.count)
        for (p, e) in zip(payloads, expected) {
            #expect(p.kind == .qrCode)
            check(p, e)
        }
        if let optional = v.object("expected_optional") {
            let p = try #require(payloads.first)
            #expect(p.serialNumber == optional["serial_number"] as? String)
            for element in optional["vendor_elements"] as? [[String: Any]] ?? [] {
                let tag = (element["tag"] as? NSNumber)?.uint8Value
                let found = p.extensions.first { $0.tag == tag }
                switch found?.value {
                case .utf8(let s)?: #expect(s == element["value"] as? String)
                case .signed(let n)?: #expect(n == (element["value"] as? NSNumber)?.int64Value)
                case .unsigned(let n)?: #expect(n == (element["value"] as? NSNumber)?.uint64Value)
                default: Issue.record("vendor element \(tag ?? 0) missing or of another type")
                }
            }
        }
        // Re-encoding gives back the same string (element order of optional data aside).
        let reencoded = try QRCode.encode(payloads)
        if reencoded != input {
            #expect(try QRCode.decode(reencoded).map(Normalized.init) == payloads.map(Normalized.init))
        }
    }

    func manual(_ v: Vector) throws {
        let input = try #require(v.string("input"))
        guard v.valid else {
            #expect(throws: SetupPayloadError.self) { try SetupPayload.parse(input) }
            return
        }
        let p = try ManualPairingCode.decode(input)
        let e = try #require(v.object("expected"))
        #expect(p.kind == .manualCode)
        if let s = e["short_discriminator"] as? Int { #expect(Int(p.discriminator.shortValue) == s) }
        if let pc = e["passcode"] as? Int { #expect(Int(p.passcode) == pc) }
        if let present = e["vid_pid_present"] as? Bool { #expect((p.vendorID != nil) == present) }
        if let vid = e["vendor_id"] as? Int { #expect(p.vendorID.map(Int.init) == vid) }
        if let pid = e["product_id"] as? Int { #expect(p.productID.map(Int.init) == pid) }
        let digits = input.filter(\.isNumber)
        #expect(try ManualPairingCode.encode(p, allowInvalid: true) == digits)
    }

    func manualGenerate(_ v: Vector) throws {
        let input = try #require(v.object("input"))
        let p = SetupPayload(
            kind: .qrCode,
            vendorID: (input["vendor_id"] as? NSNumber)?.uint16Value,
            productID: (input["product_id"] as? NSNumber)?.uint16Value,
            commissioningFlow: CommissioningFlow(rawValue: (input["commissioning_flow"] as? NSNumber)?.uint8Value ?? 0),
            discoveryCapabilities: .onNetwork,
            discriminator: .long(try #require((input["long_discriminator"] as? NSNumber)?.uint16Value)),
            passcode: try #require((input["passcode"] as? NSNumber)?.uint32Value))
        #expect(try ManualPairingCode.encode(p, allowInvalid: true) == v.string("expected_code"))
        if !Passcode.isValid(p.passcode) {
            #expect(throws: SetupPayloadError.self) { try ManualPairingCode.encode(p) }
        }
    }

    func check(_ p: SetupPayload, _ e: [String: Any]) {
        func int(_ k: String) -> Int? { (e[k] as? NSNumber)?.intValue }
        if let x = int("version") { #expect(Int(p.version) == x) }
        if let x = int("vendor_id") { #expect(p.vendorID.map(Int.init) == x) }
        if let x = int("product_id") { #expect(p.productID.map(Int.init) == x) }
        if let x = int("commissioning_flow") { #expect(p.commissioningFlow.map { Int($0.rawValue) } == x) }
        if let x = int("discovery_capabilities") { #expect(p.discoveryCapabilities.map { Int($0.rawValue) } == x) }
        if let x = int("discriminator") { #expect(p.discriminator.longValue.map(Int.init) == x) }
        if let x = int("passcode") { #expect(Int(p.passcode) == x) }
    }
}

/// A payload with its extensions sorted, for comparing codes whose optional data differ only in order.
struct Normalized: Equatable {
    let payload: SetupPayload
    init(_ p: SetupPayload) {
        var q = p
        q.extensions.sort { $0.tag < $1.tag }
        payload = q
    }
}
