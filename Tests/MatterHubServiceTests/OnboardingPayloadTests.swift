import Foundation
@testable import MatterHubService
import MatterServerAPI
import MatterSetupPayload
import Testing
import TestSupport

/// `parse_onboarding_payload` against the CHIP SDK's setup-code vectors (testvectors/setup_payload.json):
/// every valid QR code (one or several payloads) and manual code decodes into matter-python-client's
/// shapes with the vector's values (each field the vector states); every invalid one is error 8,
/// and so is a code the SDK's raw parser reads but whose passcode the spec forbids (the hub checks
/// codes as commissioning does).
/// (matter-python-client 1.6.1 parses the hub's answers into its own models in ohf-hub-check.py.)
@Suite struct OnboardingPayloadTests {
    /// The vector's field names, and the client model's.
    static let fields = ["version": "version", "commissioning_flow": "flow_type", "discovery_capabilities": "discovery_capabilities",
                         "discriminator": "discriminator", "passcode": "setup_pin_code", "short_discriminator": "short_discriminator",
                         "vendor_id": "vendor_id", "product_id": "product_id"]

    @Test(arguments: TestVectors.vectors("setup_payload.json").filter { ["qr", "manual"].contains($0.string("kind")) })
    func decodesAsTheSDK(_ v: Vector) throws {
        let input = try #require(v.string("input"))
        guard v.valid else {
            #expect(throws: APIError.self, "\(v.id) \(input)") { _ = try HubService.onboardingPayload(input) }
            return
        }
        let expected: [[String: Any]] = (v["expected"] as? [[String: Any]]) ?? (v.object("expected").map { [$0] } ?? [])
        try #require(!expected.isEmpty, "\(v.id) states nothing")
        // The SDK's raw parsers read some codes that commissioning refuses (a forbidden passcode,
        // a product ID without a vendor ID): the hub refuses those.
        let raw = v.string("kind") == "qr" ? try QRCode.decode(input) : [try ManualPairingCode.decode(input)]
        if raw.contains(where: { (try? $0.validate()) == nil }) {
            #expect(throws: APIError.self, "\(v.id): the raw payload fails commissioning's checks") { _ = try HubService.onboardingPayload(input) }
            return
        }
        let json = try HubService.onboardingPayload(input)
        let decoded: [JSONValue]
        if v.string("kind") == "qr" {
            #expect(json["type"] == .string("qr"))
            decoded = json["payloads"]?.array ?? []
        } else {
            #expect(json["type"] == .string("manual"))
            decoded = [json]
        }
        #expect(decoded.count == expected.count, "\(v.id): \(json)")
        for (got, e) in zip(decoded, expected) {
            for (key, value) in e {
                guard let field = Self.fields[key], let number = (value as? NSNumber)?.int64Value else { continue }
                // The client's model has null for a vendor or product ID of 0; a manual code states
                // them only in its 21-digit form.
                let isID = key == "vendor_id" || key == "product_id"
                let want: Int64? = isID && (number == 0 || e["vid_pid_present"] as? Bool == false) ? nil : number
                #expect(got[field]?.int64 == want, "\(v.id) \(field): \(got) against \(e)")
            }
            if e["vid_pid_present"] as? Bool == false {
                #expect(got["vendor_id"] == .null && got["product_id"] == .null, "\(v.id): \(got)")
            }
        }
    }
}
